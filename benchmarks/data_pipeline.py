"""What loading the data costs: the same model and batch with synthetic batches and with an
image folder read, decoded and augmented every step at 0 and 2 loader workers, PyTorch and
TensorFlow; throughput and the share of each step spent waiting for data.

Writes a random-image folder (epochcost data make-imagefolder's JPEGs) once, then runs each
case in its own worker, as `epochcost run --data ...` does. Prints a table and one JSON line;
the load average before and after says whether the machine was quiet.

    .venv/bin/python benchmarks/data_pipeline.py [--images 512] [--size 128]
        [--model tiny-mlp] [--batch 32] [--framework torch|tensorflow|both] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from engine.cli.common import run_worker
from engine.measure.config import RunConfig
from engine.workloads.data import random_folder

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
CASES = (("synthetic", None), ("imagefolder", 0), ("imagefolder", 2))


def measure(args: argparse.Namespace, framework: str, data: str, workers: int | None) -> dict:
    config = RunConfig(
        model=args.model,
        framework=framework,
        batch_size=args.batch,
        device="cpu",
        threads=args.threads,
        warmup_steps=5,
        min_steps=20,
        max_steps=200,
        max_seconds=args.seconds,
        repeats=3,
        data=data,
        loader_workers=workers,
    ).validated()
    result, failure, _ = run_worker(config)
    if result is None or result["status"] != "ok":
        raise SystemExit(f"{framework} {data} failed: {failure}")
    wait = result.get("input_wait_fraction")
    return {
        "framework": framework,
        "model": args.model,
        "batch": args.batch,
        "data": "synthetic" if data == "synthetic" else "imagefolder",
        "loader_workers": workers,
        "throughput_samples_per_s": round(result["throughput_samples_per_s"], 1),
        "throughput_ci95": [round(x, 1) for x in result["throughput_ci95"]],
        "input_wait_fraction": None if wait is None else round(wait, 3),
        "other_cpu_fraction": result.get("other_cpu_fraction"),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--images", type=int, default=512)
    p.add_argument("--size", type=int, default=128, help="the images' width and height")
    p.add_argument("--model", default="tiny-mlp")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--threads", type=int, default=1, help="the training step's CPU threads")
    p.add_argument("--seconds", type=float, default=4.0, help="each window's time limit")
    p.add_argument("--framework", choices=("torch", "tensorflow", "both"), default="both")
    args = p.parse_args()
    frameworks = ["torch", "tensorflow"] if args.framework == "both" else [args.framework]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        folder = random_folder.make(Path(tmp) / "images", args.images, args.size, 10, "jpeg")
        print(
            f"{os.cpu_count()} CPUs, load average {load_before:.2f}; {args.images} JPEGs of "
            f"{args.size}x{args.size} in 10 classes; {args.model}, batch {args.batch}, "
            f"{args.threads} training thread(s)",
            flush=True,
        )
        rows = []
        for framework in frameworks:
            for kind, workers in CASES:
                data = "synthetic" if kind == "synthetic" else f"imagefolder:{folder}"
                rows.append(measure(args, framework, data, workers))
                print(_line(rows[-1]), flush=True)
    print(
        json.dumps(
            {
                "cpu_count": os.cpu_count(),
                "load_average_1min_before": round(load_before, 2),
                "load_average_1min_after": round(os.getloadavg()[0], 2),
                "images": args.images,
                "size": args.size,
                "results": rows,
            }
        )
    )


def _line(row: dict) -> str:
    workers = "-" if row["loader_workers"] is None else str(row["loader_workers"])
    wait = row["input_wait_fraction"]
    share = "-" if wait is None else f"{wait:.0%}"
    low, high = row["throughput_ci95"]
    return (
        f"{row['framework']:10s} {row['data']:11s} workers {workers:1s}  "
        f"{row['throughput_samples_per_s']:9.1f} samples/s (95% {low:.0f}-{high:.0f})  "
        f"input wait {share:>4s}"
    )


if __name__ == "__main__":
    main()
