"""The default run, old engine against new: how precise it gets, and in how long.

    .venv/bin/python benchmarks/default_run.py [--runs 10] [--before DIR] [--target 3]
        [--budget 60] [--json]

Runs `epochcost run --json --no-store` with every option at its default (the model, the
batch, the stop rule: the new engine's default target and budget) `--runs` times with this
checkout's engine and, with --before, as many times with the engine in DIR, alternating
(before, after, before, ...) so that both see the same machine. For each run: the wall time
from launch to exit (the interpreter, the framework's import, warm-up and measuring: what a
user waits), the figure, how far the 95% interval's farther end lies from it, the windows, and
whether the run met "within ±TARGET% in BUDGET s" (the budget is `--max-seconds`, the
windows' measuring time together: with a target, the result's `target_precision.seconds`;
without one, the whole wall time, start-up included, the only time such a run records).
Figures are printed, never asserted. The engine before a change, side by side:

    mkdir /tmp/before && git archive COMMIT engine assets | tar -x -C /tmp/before
    .venv/bin/python benchmarks/default_run.py --before /tmp/before
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path
from typing import Any

from interval_repeat import alternate, one_run  # benchmarks/, beside this script

COMMAND = ["-m", "engine.cli", "run", "--json", "--no-store"]


def row(result: dict[str, Any], wall_s: float, target: float, budget_s: float) -> dict[str, Any]:
    figure = result["throughput_samples_per_s"]
    low, high = result["throughput_ci95"]
    far = max(figure - low, high - figure) / figure
    goal = result.get("target_precision") or {}
    measured = goal.get("seconds")
    return {
        "model": result["config"]["model"],
        "wall_s": round(wall_s, 1),
        "samples_per_s": round(figure, 2),
        "ci95": [round(low, 2), round(high, 2)],
        "far_side_pct": round(far * 100, 2),
        "windows": len(result.get("throughput_repeats") or []),
        "measure_s": round(measured, 1) if measured is not None else None,
        "met": far <= target / 100 and (measured if measured is not None else wall_s) <= budget_s,
        "target_reached": goal.get("reached"),
        "other_cpu_fraction": result.get("other_cpu_fraction"),
        "load_1min": round(os.getloadavg()[0], 2),
    }


def table(name: str, rows: list[dict[str, Any]], target: float, budget_s: float) -> str:
    walls = [r["wall_s"] for r in rows]
    fars = [r["far_side_pct"] for r in rows]
    lines = [
        f"{name}: {sum(r['met'] for r in rows)} of {len(rows)} within ±{target:g}% in "
        f"{budget_s:g} s; wall median {statistics.median(walls):.1f} s "
        f"({min(walls):.1f}-{max(walls):.1f}); far side median {statistics.median(fars):.1f}% "
        f"({min(fars):.1f}-{max(fars):.1f})",
        f"{'run':>3}  {'wall s':>6}  {'meas s':>6}  {'samples/s':>9}  {'95% interval':>17}  "
        f"{'far':>6}  "
        f"{'windows':>7}  {'other CPU':>9}  {'load':>4}  met",
    ]
    for i, r in enumerate(rows, 1):
        low, high = r["ci95"]
        lines.append(
            f"{i:>3}  {r['wall_s']:>6.1f}  {r['measure_s'] or 0:>6.1f}  "
            f"{r['samples_per_s']:>9.1f}  {low:>7.1f} - "
            f"{high:>7.1f}  {r['far_side_pct']:>5.1f}%  {r['windows']:>7}  "
            f"{r['other_cpu_fraction'] or 0:>9.0%}  {r['load_1min']:>4.1f}  "
            f"{'yes' if r['met'] else 'NO'}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--before", type=Path, default=None, help="an older engine's root")
    parser.add_argument("--target", type=float, default=3.0, help="percent (default 3)")
    parser.add_argument("--budget", type=float, default=60.0, help="seconds (default 60)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = alternate(  # the engines in turn, as interval_repeat.py runs them
        args.before,
        args.runs,
        lambda root, home: row(*one_run(root, home, COMMAND), args.target, args.budget),
        lambda r: (
            f"{r['samples_per_s']:.1f} samples/s, far side {r['far_side_pct']:.1f}%, "
            f"{r['wall_s']:.1f} s"
        ),
    )
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("\n\n".join(table(n, r, args.target, args.budget) for n, r in rows.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
