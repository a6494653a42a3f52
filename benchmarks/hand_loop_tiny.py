"""A minimal hand-written training loop for tiny-mlp, in PyTorch or TensorFlow: the reference
the harness is measured against on a model whose steps take about a millisecond, where the
harness's own cost per step (timers, events, the monitor) shows most.

Prints one JSON line: {"throughput_samples_per_s": ...} (TensorFlow: the faster of a hand
tf.function step and Keras's own compiled train step, benchmarks/keras_reference.py). The same
model as epochcost's tiny-mlp (flatten, 3072 -> 128 ReLU -> 10), SGD with momentum and weight
decay, one synthetic batch (PyTorch: on the CPU or --device cuda:0).
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["KERAS_BACKEND"] = "tensorflow"


def torch_loop(args: argparse.Namespace) -> float:
    import torch
    from torch import nn

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = torch.device(args.device)
    model = nn.Sequential(nn.Flatten(), nn.Linear(3072, 128), nn.ReLU(), nn.Linear(128, 10))
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
    x = torch.randn(args.batch_size, 3, 32, 32, device=device)
    y = torch.randint(0, 10, (args.batch_size,), device=device)

    def sync() -> None:  # a GPU's steps are asynchronous: wait for them before reading the clock
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    for _ in range(args.warmup):
        step()
    sync()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        step()
    sync()
    return args.steps * args.batch_size / (time.perf_counter() - t0)


def tf_loop(args: argparse.Namespace) -> dict:
    import tensorflow as tf
    from keras_reference import fastest

    from engine.worker.frameworks.tensorflow import models as keras_models
    from engine.workloads import registry

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    workload = registry.get("tiny-mlp")
    return fastest(
        lambda: keras_models.build(workload).model, args.batch_size, args.warmup, args.steps
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--framework", choices=("torch", "tensorflow"), default="torch")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--device", default="cpu", help="PyTorch only: cpu or cuda:N")
    args = p.parse_args()
    if args.framework == "torch":
        print(json.dumps({"throughput_samples_per_s": torch_loop(args)}))
    else:
        print(json.dumps(tf_loop(args)))


if __name__ == "__main__":
    main()
