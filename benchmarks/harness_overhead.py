"""Harness overhead: what `epochcost run` reports against a minimal hand-written loop.

Alternates the two, in one run, on the same model, batch, device and thread count, and prints
each throughput and the ratio of medians (target: at least 0.98 for PyTorch).

    .venv/bin/python benchmarks/harness_overhead.py [--rounds 3] [--batch-size 64]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from engine.cli.common import run_worker
from engine.config import RunConfig

HERE = Path(__file__).resolve().parent


def harness(batch: int, threads: int, steps: int) -> float:
    # Fixed step count (stability threshold 0), like the hand loop, so both time the same work.
    config = RunConfig(
        model="resnet18-cifar",
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


def hand_loop(batch: int, threads: int, steps: int) -> float:
    out = subprocess.run(
        [
            sys.executable,
            str(HERE / "hand_loop_torch.py"),
            "--batch-size",
            str(batch),
            "--threads",
            str(threads),
            "--steps",
            str(steps),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout.splitlines()[-1])["throughput_samples_per_s"])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    ours, theirs = [], []
    for i in range(args.rounds):
        ours.append(harness(args.batch_size, args.threads, args.steps))
        theirs.append(hand_loop(args.batch_size, args.threads, args.steps))
        print(
            f"round {i + 1}: epochcost {ours[-1]:8.2f} samples/s   "
            f"hand loop {theirs[-1]:8.2f} samples/s",
            flush=True,
        )
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(
        f"torch resnet18-cifar batch {args.batch_size}, {args.threads} threads, CPU: "
        f"median epochcost {statistics.median(ours):.2f}, hand loop "
        f"{statistics.median(theirs):.2f} samples/s, ratio {ratio:.3f} (target >= 0.98)"
    )


if __name__ == "__main__":
    main()
