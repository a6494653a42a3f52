"""Where a millisecond step's time goes, in the worker and in the hand loop, by a profiler.

Launches `epochcost run`'s worker (one fixed tiny-mlp window, harness_overhead.py's case) and
the hand loop (benchmarks/hand_loop_tiny.py, glibc's heap set as the worker sets it) in turn,
each under `perf record` (cpu-clock, 1,999 Hz; this box has no hardware counters). From each
launch it keeps the main thread's samples between its first and its last in a matrix
multiply (MKL's sgemm: the steps, the warm-up's and the window's), and prints them per step, in
microseconds, by where they fell: PyTorch's library (its kernels and dispatcher), the Python
interpreter, the operating system, and the rest (libc, c10, the other libraries).

Both PyTorch's part and the interpreter's move from launch to launch of the same loop (PyTorch
471-516 us a step, Python 54-66 us on tiny-mlp), with where the tensors and objects landed in
memory: compare the medians of several launches; the interpreter's difference between the two
loops is what the harness's Python adds to a step (benchmarks/RESULTS.md, issue 42). A sample
stands for about 0.5 ms, so one launch's figure is good to about 1.5 us a step.

    .venv/bin/python benchmarks/harness_profile.py [--launches 3] [--steps 20000]

PyTorch only (TensorFlow runs its ops on its own threads, not the main one). Needs `perf`
(linux-perf); without it the script says so and stops.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
HZ = 1999
FRAMEWORK_LIBRARY = "libtorch_cpu.so"
STEP_SYMBOL = "sgemm"  # only a step multiplies matrices: its samples bound the steps' span
PARTS = ("PyTorch", "Python", "OS", "rest")
_SAMPLE = re.compile(r"\s*(\d+)/(\d+)\s+[0-9a-f]+\s*(.*)\((.*)\)\s*$")


def part(dso: str) -> str:
    if dso.endswith(FRAMEWORK_LIBRARY):
        return "PyTorch"
    if "libpython" in dso:
        return "Python"
    if "kernel.kallsyms" in dso:
        return "OS"
    return "rest"


def steps_profile(data: Path, steps: int) -> dict[str, float]:
    """Microseconds a step in each part: the main thread's samples from its first to its last
    in a matrix multiply."""
    script = subprocess.run(
        ["perf", "script", "-i", str(data), "-F", "pid,tid,ip,sym,dso"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = [(int(m[2]), m[3], m[4]) for m in map(_SAMPLE.match, script.splitlines()) if m]
    in_steps = collections.Counter(t for t, sym, _ in rows if STEP_SYMBOL in sym)
    main = in_steps.most_common(1)[0][0]
    thread = [(STEP_SYMBOL in sym, part(dso)) for t, sym, dso in rows if t == main]
    hot = [i for i, (step, _) in enumerate(thread) if step]
    counts = collections.Counter(p for _, p in thread[hot[0] : hot[-1] + 1])
    return {p: counts[p] / HZ / steps * 1e6 for p in PARTS}


def recorded(command: list[str], env: dict[str, str], into: Path) -> float:
    """Run `command` under perf record; its last line's samples/s (or a bare number)."""
    out = subprocess.run(
        ["perf", "record", "-q", "-F", str(HZ), "-o", str(into), "--", *command],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=ROOT,
    ).stdout.splitlines()[-1]
    value = json.loads(out)
    return float(value["throughput_samples_per_s"] if isinstance(value, dict) else value)


def worker_launch(steps: int) -> None:
    """--worker: one worker's fixed window (a child of this process, which perf follows)."""
    sys.path.insert(0, str(HERE))
    import dataclasses

    from harness_overhead import CASES, harness

    print(harness("torch", dataclasses.replace(CASES["tiny-mlp"], steps=steps), "cpu"))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--launches", type=int, default=3)
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker_launch(args.worker)
        return
    if shutil.which("perf") is None:
        raise SystemExit("perf is not installed (Debian: linux-perf): nothing to profile with")
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(HERE))
    from harness_overhead import CASES

    from engine.worker.measure.heap import STEADY_ENVIRONMENT

    case = CASES["tiny-mlp"]
    hand = [sys.executable, *case.hand_loop("torch", "cpu")]
    hand[hand.index("--steps") + 1] = str(args.steps)
    loops = {
        "epochcost": ([sys.executable, __file__, "--worker", str(args.steps)], {}),
        "hand loop": (hand, {**STEADY_ENVIRONMENT, "PYTHONPATH": str(ROOT)}),
    }
    # The steps each loop's span holds: warm-up and window (the worker also counts FLOPs once).
    spans = {"epochcost": case.warmup + args.steps + 1, "hand loop": case.warmup + args.steps}
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    found: dict[str, list[dict[str, float]]] = {name: [] for name in loops}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.launches):
            order = list(loops) if i % 2 == 0 else list(loops)[::-1]
            for name in order:
                command, extra = loops[name]
                data = Path(tmp) / "perf.data"
                rate = recorded(command, {**os.environ, **extra}, data)
                figures = {"samples/s": rate, **steps_profile(data, spans[name])}
                found[name].append(figures)
                shown = "  ".join(f"{k} {figures[k]:6.1f}" for k in PARTS)
                print(f"{name:9s} launch {i + 1}: {rate:9.0f} samples/s   us a step: {shown}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    medians = {
        name: {k: statistics.median(f[k] for f in runs) for k in ("samples/s", *PARTS)}
        for name, runs in found.items()
    }
    for name, m in medians.items():
        shown = "  ".join(f"{k} {m[k]:6.1f}" for k in PARTS)
        print(f"median {name:9s}: {m['samples/s']:9.0f} samples/s   us a step: {shown}")
    ours, theirs = medians["epochcost"], medians["hand loop"]
    print(
        "epochcost - hand loop, us a step: "
        + "  ".join(f"{k} {ours[k] - theirs[k]:+.1f}" for k in PARTS)
        + f"  (all {sum(ours[k] for k in PARTS) - sum(theirs[k] for k in PARTS):+.1f})"
    )


if __name__ == "__main__":
    main()
