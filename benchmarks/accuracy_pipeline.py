"""Input pipeline share of a cost-to-accuracy step on this machine's CPU.

Times the pipeline alone (shuffle, gather, normalise: Batches.next, median of 200) and the real
TorchTrainer step that includes it (to device, forward, backward, optimizer), alternating in
blocks with the same step fed one fixed, already prepared batch. Prints the medians and the
pipeline's share of the step (pipeline time over step time; the alternating difference is
printed too, but on a loaded machine it is noisier than the pipeline itself).

    PYTHONPATH=. .venv/bin/python benchmarks/accuracy_pipeline.py [--threads 1] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch

from engine.measure.accuracy_config import AccuracyConfig
from engine.worker.frameworks.torch.session import TorchTrainer
from engine.workloads import data, registry


class _Fixed:
    """Stands in for the pipeline: the same prepared batch every step."""

    def __init__(self, batch: tuple) -> None:
        self.batch = batch

    def next(self) -> tuple:
        return self.batch


def _block(trainer: TorchTrainer, steps: int) -> float:
    trainer.sync()  # the block starts and ends with an idle device
    t0 = time.perf_counter()
    for _ in range(steps):
        trainer.step()
    trainer.sync()
    return (time.perf_counter() - t0) / steps


def measure(model: str, batch: int, rounds: int, steps: int, dataset: data.Dataset) -> dict:
    config = AccuracyConfig(model=model, batch_size=batch, device="cpu").validated()
    trainer = TorchTrainer(torch, config, registry.get(model), dataset, torch.device("cpu"))
    real = trainer._batches
    fixed = _Fixed(real.next())
    pipeline_s = []
    for _ in range(200):
        t0 = time.perf_counter()
        real.next()
        pipeline_s.append(time.perf_counter() - t0)
    with_pipeline, fixed_batch = [], []
    _block(trainer, 3)  # warm-up
    for _ in range(rounds):
        trainer._batches = real
        with_pipeline.append(_block(trainer, steps))
        trainer._batches = fixed  # type: ignore[assignment]
        fixed_batch.append(_block(trainer, steps))
    step_s, bare_s = statistics.median(with_pipeline), statistics.median(fixed_batch)
    return {
        "model": model,
        "batch_size": batch,
        "pipeline_next_s": statistics.median(pipeline_s),
        "step_with_pipeline_s": step_s,
        "step_fixed_batch_s": bare_s,
        "pipeline_share": statistics.median(pipeline_s) / step_s,
        "difference_share": (step_s - bare_s) / step_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    dataset = data.load("patterns10")
    cases = [("tiny-mlp", 64, 50), ("tiny-mlp", 256, 20), ("resnet18-cifar", 64, 2)]
    for model, batch, steps in cases:
        rounds = args.rounds if model == "tiny-mlp" else min(args.rounds, 3)
        row = measure(model, batch, rounds, steps, dataset)
        row["threads"] = args.threads
        print(json.dumps(row))


if __name__ == "__main__":
    main()
