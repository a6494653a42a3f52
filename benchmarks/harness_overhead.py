"""Harness overhead: what `epochcost run` reports against a minimal hand-written loop.

Alternates the two (the order swapped every round), on the same model, batch, device and thread
count, for PyTorch and for TensorFlow, on resnet18-cifar (steps of a fraction of a second) and on
tiny-mlp (steps of about a millisecond, where the harness's own cost per step shows most: its
step events are coalesced, engine/worker/measure/loop.py). Prints each throughput, the ratio of the
medians over the rounds (target: at least 0.99 for every workload in both frameworks) and the load
average before and after: run it on a quiet machine. The hand loop runs with glibc's heap set as
the worker sets it (docs/measuring.md, "The same heap in every launch"); each launch's page
faults are counted, and how many launches of each loop churned anyway is printed.

    .venv/bin/python benchmarks/harness_overhead.py [--rounds 5] [--framework torch|tensorflow|both]
        [--model resnet18-cifar|tiny-mlp|both] [--device cpu|cuda:0 (PyTorch only)]
        [--steps N (each launch's measured steps, instead of the case's)]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from engine.cli.common import run_worker
from engine.measure.config import RunConfig
from engine.process.launcher import _engine_root
from engine.worker.measure.heap import STEADY_ENVIRONMENT

HERE = Path(__file__).resolve().parent
TARGETS = {"torch": 0.99, "tensorflow": 0.99}
# A launch with this many times the page faults of its loop's fewest churned its heap (churned).
CHURN = 1.08
T = TypeVar("T")


@dataclass(frozen=True)
class Case:
    """One model's settings, the same for the harness and the hand loop."""

    model: str
    batch: int
    threads: int
    warmup: int
    steps: int

    def hand_loop(self, framework: str, device: str) -> list[str]:
        common = ["--batch-size", str(self.batch), "--threads", str(self.threads)]
        if device != "cpu":
            common += ["--device", device]
        common += ["--warmup", str(self.warmup), "--steps", str(self.steps)]
        if self.model == "tiny-mlp":
            return [str(HERE / "hand_loop_tiny.py"), "--framework", framework, *common]
        script = {"torch": "hand_loop_torch.py", "tensorflow": "hand_loop_tf.py"}[framework]
        return [str(HERE / script), *common]


CASES = {
    "resnet18-cifar": Case("resnet18-cifar", batch=64, threads=2, warmup=10, steps=20),
    # One thread: two on a shared two-core machine make a millisecond step wait on the other.
    "tiny-mlp": Case("tiny-mlp", batch=16, threads=1, warmup=50, steps=3000),
}
# On a GPU a resnet18-cifar step takes milliseconds: more steps, so a window lasts seconds.
GPU_CASES = {
    "resnet18-cifar": Case("resnet18-cifar", batch=64, threads=2, warmup=50, steps=600),
    "tiny-mlp": Case("tiny-mlp", batch=16, threads=1, warmup=200, steps=5000),
}


def fixed_window(model: str, batch: int, warmup: int, steps: int, **changes: Any) -> RunConfig:
    """One window of a fixed step count (stability threshold 0), like a hand loop's, so both
    time the same work (benchmarks/loop_cost.py times the loop the same way)."""
    fields: dict[str, Any] = {
        "model": model,
        "batch_size": batch,
        "warmup_steps": warmup,
        "min_steps": steps,
        "max_steps": steps,
        "max_seconds": 600.0,
        "stability_threshold": 0.0,
        "repeats": 1,
    }
    return RunConfig(**{**fields, **changes})


def harness(framework: str, case: Case, device: str) -> float:
    config = fixed_window(
        case.model,
        case.batch,
        case.warmup,
        case.steps,
        framework=framework,
        device=device,
        threads=case.threads,
    )
    result, failure, _ = run_worker(config.validated())
    if result is None:
        raise SystemExit(f"epochcost run failed: {failure}")
    return float(result["throughput_samples_per_s"])


def hand_loop(framework: str, case: Case, device: str) -> dict[str, float]:
    # The TensorFlow loops borrow epochcost's Keras model builder: engine must be importable.
    # glibc's heap as the worker sets it (engine/worker/measure/heap.py), so that the ratio is
    # the harness's cost and not the allocator's chance (harness_variants.py's `hand-fixed`).
    env = {**os.environ, **STEADY_ENVIRONMENT, "PYTHONPATH": _engine_root()}
    out = subprocess.run(
        [sys.executable, *case.hand_loop(framework, device)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    # TensorFlow's line also holds each of its two references (keras_reference.py).
    return {k: float(v) for k, v in json.loads(out.stdout.splitlines()[-1]).items()}


def counted(into: list[int], launch: Callable[..., T], *args: Any) -> T:
    """Run one launch, appending the page faults its processes took (they have ended)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    value = launch(*args)
    into.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - before)
    return value


def churned(faults: dict[str, list[int]], rates: dict[str, list[float]]) -> dict[str, Any]:
    """Launches whose heap churned: glibc gave the heap's top back to the system and took it
    again during the window, so the steps' tensors landed on fresh pages (a launch's page
    faults more than CHURN times the fewest of the same loop's launches: start-up's are about
    the same in each). For each loop: how many churned, and the median rate of those that did
    not (benchmarks/RESULTS.md, issue 42)."""
    out: dict[str, Any] = {}
    for name, counts in faults.items():
        floor = min(counts)
        clean = [r for r, f in zip(rates[name], counts, strict=True) if f <= floor * CHURN]
        out[name] = {
            "churned": len(counts) - len(clean),
            "launches": len(counts),
            "clean_median": round(statistics.median(clean), 2) if clean else None,
        }
        print(
            f"  {name}: {len(counts) - len(clean)} of {len(counts)} launches churned; the "
            f"others' median {out[name]['clean_median']} samples/s",
            flush=True,
        )
    return out


def compare(framework: str, case: Case, rounds: int, device: str) -> dict[str, object]:
    ours: list[float] = []
    theirs: list[float] = []
    each: dict[str, list[float]] = {}  # TensorFlow: each reference's own figures
    faults: dict[str, list[int]] = {"epochcost": [], "hand loop": []}
    for i in range(rounds):
        if i % 2 == 0:
            ours.append(counted(faults["epochcost"], harness, framework, case, device))
            hand = counted(faults["hand loop"], hand_loop, framework, case, device)
        else:  # the other order, so that a drift in the machine's speed evens out
            hand = counted(faults["hand loop"], hand_loop, framework, case, device)
            ours.append(counted(faults["epochcost"], harness, framework, case, device))
        theirs.append(hand.pop("throughput_samples_per_s"))
        for name, value in hand.items():
            each.setdefault(name, []).append(value)
        print(
            f"{framework} {case.model} round {i + 1}: epochcost {ours[-1]:10.2f} samples/s "
            f"({faults['epochcost'][-1]} page faults)   hand loop {theirs[-1]:10.2f} samples/s "
            f"({faults['hand loop'][-1]} page faults)",
            flush=True,
        )
    churn = churned(faults, {"epochcost": ours, "hand loop": theirs})
    ratio = statistics.median(ours) / statistics.median(theirs)
    verdict = "ok" if ratio >= TARGETS[framework] else "BELOW TARGET"
    # Each round's own ratio: its two launches ran back to back, so a drift of the machine's
    # speed between rounds cancels; their median and range say how far one round can be off.
    paired = sorted(a / b for a, b in zip(ours, theirs, strict=True))
    print(
        f"{framework} {case.model} batch {case.batch}, {case.threads} threads, {device}: median "
        f"epochcost {statistics.median(ours):.2f}, hand loop {statistics.median(theirs):.2f} "
        f"samples/s, ratio {ratio:.3f} (target >= {TARGETS[framework]}: {verdict}); the "
        f"rounds' own ratios: median {statistics.median(paired):.3f}, "
        f"{paired[0]:.3f} to {paired[-1]:.3f}",
        flush=True,
    )
    # The faster of two references in each round is biased up (the larger of two noisy
    # figures): the ratio against each reference alone, over the same rounds, says by how much.
    against = {
        name: round(statistics.median(ours) / statistics.median(values), 4)
        for name, values in each.items()
    }
    for name, value in against.items():
        print(f"{framework} {case.model}: ratio against {name} alone {value:.3f}", flush=True)
    return {
        "framework": framework,
        "references": each,
        "ratio_against_each": against,
        "model": case.model,
        "device": device,
        "epochcost": ours,
        "hand_loop": theirs,
        "ratio_of_medians": round(ratio, 4),
        "page_faults": faults,
        "churned": churn,
        "median_round_ratio": round(statistics.median(paired), 4),
        "target": TARGETS[framework],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--framework", choices=("torch", "tensorflow", "both"), default="both")
    p.add_argument("--model", choices=(*CASES, "both"), default="both")
    p.add_argument("--device", default="cpu", help="cpu, or cuda:0 (PyTorch only)")
    p.add_argument(
        "--steps",
        type=int,
        help="each launch's measured steps (default: the case's); a longer window averages "
        "more of the machine's own drift (benchmarks/RESULTS.md, issue 42)",
    )
    args = p.parse_args()
    frameworks = ["torch", "tensorflow"] if args.framework == "both" else [args.framework]
    models = list(CASES) if args.model == "both" else [args.model]
    load_before = os.getloadavg()
    print(f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f}", flush=True)
    if args.device != "cpu" and "tensorflow" in frameworks:
        p.error(
            "--device other than cpu: the hand loops run it for PyTorch only (--framework torch)"
        )
    cases = CASES if args.device == "cpu" else GPU_CASES
    if args.steps is not None:
        if args.steps < 1:
            p.error(f"--steps: at least 1 (got {args.steps})")
        cases = {name: dataclasses.replace(c, steps=args.steps) for name, c in cases.items()}
    rows = [compare(f, cases[m], args.rounds, args.device) for m in models for f in frameworks]
    report = {
        "cpu_count": os.cpu_count(),
        "load_average_1min_before": round(load_before[0], 2),
        "load_average_1min_after": round(os.getloadavg()[0], 2),
        "rounds": args.rounds,
        "steps": {m: cases[m].steps for m in models},
        "results": rows,
    }
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
