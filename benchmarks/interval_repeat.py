"""Do identical runs' 95% intervals hold each other? Five default tiny-mlp runs per engine.

    .venv/bin/python benchmarks/interval_repeat.py [--runs 5] [--before DIR] [--json]

Runs `epochcost run --model tiny-mlp --json --no-store` (every other option at its default)
`--runs` times with this checkout's engine and, with --before, as many times with the engine in
DIR, alternating (before, after, before, ...) so that both see the same machine. For each run:
its figure (samples/s), its 95% interval, the median of the other runs' figures of the same
engine and whether the interval holds it, the share of the CPU other processes took
(other_cpu_fraction) and whether the run warned that it may not repeat or that the machine was
busy. The engine before a change, side by side:

    mkdir /tmp/before && git archive COMMIT engine | tar -x -C /tmp/before
    .venv/bin/python benchmarks/interval_repeat.py --before /tmp/before
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ["-m", "engine.cli", "run", "--model", "tiny-mlp", "--json", "--no-store"]


def one_run(
    engine_root: Path, home: Path, command: list[str] = COMMAND
) -> tuple[dict[str, Any], float]:
    """One `command` (default: a default tiny-mlp run) with the engine under `engine_root`:
    its result, and the wall seconds from launch to exit."""
    env = {**os.environ, "PYTHONPATH": str(engine_root), "EPOCHCOST_HOME": str(home)}
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, *command],
        cwd=engine_root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"run failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
    return json.loads(proc.stdout), wall


def alternate(
    before: Path | None,
    runs: int,
    measure: Callable[[Path, Path], dict[str, Any]],
    said: Callable[[dict[str, Any]], str],
) -> dict[str, list[dict[str, Any]]]:
    """`runs` rows of this checkout's engine ("after") and, with `before` (an older engine's
    root), as many of that one's, alternating (before, after, before, ...) so that both see the
    same machine; `measure(engine root, data folder)` makes a row, `said(row)` its progress line."""
    engines = {"after": ROOT} if before is None else {"before": before, "after": ROOT}
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in engines}
    with tempfile.TemporaryDirectory() as home:
        for i in range(runs):
            for name, root in engines.items():
                rows[name].append(measure(root, Path(home)))
                print(f"{name} run {i + 1}: {said(rows[name][-1])}", file=sys.stderr)
    return rows


def row(result: dict[str, Any]) -> dict[str, Any]:
    warnings = result.get("warnings") or []
    return {
        "samples_per_s": result["throughput_samples_per_s"],
        "ci95": result["throughput_ci95"],
        "windows": result.get("throughput_repeats"),
        "other_cpu_fraction": result.get("other_cpu_fraction"),
        "may_not_repeat": any(w.startswith("may not repeat") for w in warnings),
        "busy": any(w.startswith("machine busy") for w in warnings),
    }


def holds_others(rows: list[dict[str, Any]]) -> None:
    """Mark each run: does its interval hold the median of the other runs' figures?"""
    for i, r in enumerate(rows):
        others = [o["samples_per_s"] for j, o in enumerate(rows) if j != i]
        r["others_median"] = statistics.median(others)
        low, high = r["ci95"]
        r["holds"] = low <= r["others_median"] <= high


def table(name: str, rows: list[dict[str, Any]]) -> str:
    lines = [
        f"{name}: {sum(r['holds'] for r in rows)} of {len(rows)} intervals hold the others' "
        f"median; {sum(r['may_not_repeat'] or r['busy'] for r in rows)} warned",
        f"{'run':>3}  {'samples/s':>9}  {'95% interval':>17}  {'others':>7}  holds  "
        f"{'other CPU':>9}  warned",
    ]
    for i, r in enumerate(rows, 1):
        low, high = r["ci95"]
        warned = ", ".join(w for w in ("may not repeat", "busy") if r[w.replace(" ", "_")])
        lines.append(
            f"{i:>3}  {r['samples_per_s']:>9.0f}  {low:>7.0f} - {high:>7.0f}  "
            f"{r['others_median']:>7.0f}  {'yes' if r['holds'] else 'NO':>5}  "
            f"{r['other_cpu_fraction'] or 0:>9.0%}  {warned or '-'}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, default=None, help="an older engine's root")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = alternate(
        args.before,
        args.runs,
        lambda root, home: row(one_run(root, home)[0]),
        lambda r: f"{r['samples_per_s']:.0f}",
    )
    for name in rows:
        holds_others(rows[name])
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("\n\n".join(table(name, r) for name, r in rows.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
