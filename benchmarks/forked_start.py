"""A forked worker against a fresh one: start time, and whether it measures the same.

Alternates (fresh, forked, fresh, ...; the order swapped every round) the same fixed window of
a workload in one process: a fresh worker (`python -m engine.worker`, the fork server off) and
one forked from the warm server (engine/process/forked.py). For each: seconds from the
launcher's start to the worker's `started` event and to its last event, the figure
(samples/s) and the peak memory. Prints each round, the medians and the ratios forked / fresh
measured in the same rounds. Run it on a quiet machine.

    .venv/bin/python benchmarks/forked_start.py [--rounds 10] [--model tiny-mlp]
        [--steps 3000] [--batch-size 16] [--threads 1] [--framework torch|tensorflow]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness_overhead import fixed_window  # noqa: E402

from engine.core.events import Finished, Started  # noqa: E402
from engine.measure.config import RunConfig  # noqa: E402
from engine.process import forked  # noqa: E402
from engine.process.launcher import WorkerProcess  # noqa: E402


def one(config: RunConfig, warm: bool) -> dict[str, Any]:
    os.environ[forked.OFF_ENV] = "1" if warm else "0"
    t0 = time.perf_counter()
    worker = WorkerProcess(config).start()
    kind = type(worker.proc).__name__
    started = None
    result = None
    try:
        for event in worker.events():
            if isinstance(event, Started) and started is None:
                started = time.perf_counter() - t0
            if isinstance(event, Finished):
                result = event.result
    finally:
        worker.close()
    if result is None:
        raise SystemExit(f"the {kind} run failed")
    if warm != (kind == "ForkedWorker"):
        raise SystemExit(f"a {'forked' if warm else 'fresh'} run started as {kind}")
    return {
        "kind": kind,
        "to_started_s": started,
        "wall_s": time.perf_counter() - t0,
        "samples_per_s": result["throughput_samples_per_s"],
        "peak_memory_bytes": result["peak_memory_bytes"],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--model", default="tiny-mlp")
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--framework", choices=forked.FRAMEWORKS, default="torch")
    args = p.parse_args()
    # A fixed step count, as harness_overhead.py's windows: both workers time the same work.
    config = fixed_window(
        args.model, args.batch_size, 50, args.steps, threads=args.threads, framework=args.framework
    )
    config = config.validated()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", flush=True)
    if not forked.wait_ready(framework=args.framework, timeout_s=120):
        raise SystemExit(f"the fork server did not get ready: is {args.framework} installed here?")
    rows: dict[str, list[dict[str, Any]]] = {"fresh": [], "forked": []}
    for i in range(args.rounds):
        order = ("fresh", "forked") if i % 2 == 0 else ("forked", "fresh")
        for name in order:
            rows[name].append(one(config, warm=name == "forked"))
        a, b = rows["fresh"][-1], rows["forked"][-1]
        print(
            f"round {i + 1}: fresh {a['to_started_s']:.2f} s to started, {a['wall_s']:.2f} s, "
            f"{a['samples_per_s']:,.0f} samples/s, {a['peak_memory_bytes'] / 2**20:,.0f} MiB | "
            f"forked {b['to_started_s']:.2f} s, {b['wall_s']:.2f} s, "
            f"{b['samples_per_s']:,.0f} samples/s, {b['peak_memory_bytes'] / 2**20:,.0f} MiB",
            flush=True,
        )
    summary: dict[str, Any] = {"rounds": args.rounds, "model": args.model}
    summary["framework"] = args.framework
    for key in ("to_started_s", "wall_s", "samples_per_s", "peak_memory_bytes"):
        fresh = statistics.median(r[key] for r in rows["fresh"])
        warm = statistics.median(r[key] for r in rows["forked"])
        paired = sorted(b[key] / a[key] for a, b in zip(rows["fresh"], rows["forked"], strict=True))
        summary[key] = {
            "fresh_median": round(fresh, 4),
            "forked_median": round(warm, 4),
            "ratio_of_medians": round(warm / fresh, 4),
            "round_ratios": [round(x, 4) for x in paired],
        }
        print(
            f"{key}: fresh {fresh:,.3f}, forked {warm:,.3f}, forked / fresh {warm / fresh:.3f} "
            f"(rounds {paired[0]:.3f} to {paired[-1]:.3f}, median "
            f"{statistics.median(paired):.3f})",
            flush=True,
        )
    summary["load_average_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(summary), flush=True)
    forked.shutdown()


if __name__ == "__main__":
    main()
