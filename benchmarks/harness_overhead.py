"""Harness overhead: what `epochcost run` reports against a minimal hand-written loop.

Alternates the two, in one run, on the same model (resnet18-cifar), batch, device and thread
count, for PyTorch and for TensorFlow, and prints each throughput and the ratio of medians
(targets: at least 0.98 for PyTorch, 0.97 for TensorFlow).

    .venv/bin/python benchmarks/harness_overhead.py [--rounds 3] [--batch-size 64]
        [--framework torch|tensorflow|both]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from engine.cli.common import run_worker
from engine.measure.config import RunConfig
from engine.process.launcher import _engine_root

HERE = Path(__file__).resolve().parent
HAND_LOOPS = {"torch": "hand_loop_torch.py", "tensorflow": "hand_loop_tf.py"}
TARGETS = {"torch": 0.98, "tensorflow": 0.97}


def harness(framework: str, batch: int, threads: int, steps: int) -> float:
    # Fixed step count (stability threshold 0), like the hand loop, so both time the same work.
    config = RunConfig(
        model="resnet18-cifar",
        framework=framework,
        batch_size=batch,
        threads=threads,
        warmup_steps=10,
        min_steps=steps,
        max_steps=steps,
        max_seconds=600.0,
        stability_threshold=0.0,
    )
    result, failure, _ = run_worker(config.validated())
    if result is None:
        raise SystemExit(f"epochcost run failed: {failure}")
    return float(result["throughput_samples_per_s"])


def hand_loop(framework: str, batch: int, threads: int, steps: int) -> float:
    script = HERE / HAND_LOOPS[framework]
    args = ["--batch-size", str(batch), "--threads", str(threads), "--steps", str(steps)]
    # The TensorFlow loop borrows epochcost's Keras model builder, so it needs engine importable.
    env = {**os.environ, "PYTHONPATH": _engine_root()}
    out = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, check=True, env=env
    )
    return float(json.loads(out.stdout.splitlines()[-1])["throughput_samples_per_s"])


def compare(framework: str, rounds: int, batch: int, threads: int, steps: int) -> None:
    ours, theirs = [], []
    for i in range(rounds):
        ours.append(harness(framework, batch, threads, steps))
        theirs.append(hand_loop(framework, batch, threads, steps))
        print(
            f"{framework} round {i + 1}: epochcost {ours[-1]:8.2f} samples/s   "
            f"hand loop {theirs[-1]:8.2f} samples/s",
            flush=True,
        )
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(
        f"{framework} resnet18-cifar batch {batch}, {threads} threads, CPU: "
        f"median epochcost {statistics.median(ours):.2f}, hand loop "
        f"{statistics.median(theirs):.2f} samples/s, ratio {ratio:.3f} "
        f"(target >= {TARGETS[framework]})",
        flush=True,
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--framework", choices=("torch", "tensorflow", "both"), default="both")
    args = p.parse_args()
    frameworks = ["torch", "tensorflow"] if args.framework == "both" else [args.framework]
    for framework in frameworks:
        compare(framework, args.rounds, args.batch_size, args.threads, args.steps)


if __name__ == "__main__":
    main()
