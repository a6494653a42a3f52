"""A minimal hand-written PyTorch training loop: the reference the harness is measured against.

Prints one JSON line: {"throughput_samples_per_s": ...}. Same model as epochcost's
resnet18-cifar (torchvision ResNet-18 with the CIFAR stem), SGD with momentum, synthetic batch,
on the CPU or --device cuda:0.
"""

from __future__ import annotations

import argparse
import json
import time

import torch
from torch import nn
from torchvision.models import resnet18


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--device", default="cpu")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = resnet18(num_classes=10)
    model.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    model.maxpool = nn.Identity()
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True  # as epochcost sets it: fixed training shapes
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
    seconds = time.perf_counter() - t0
    print(json.dumps({"throughput_samples_per_s": args.steps * args.batch_size / seconds}))


if __name__ == "__main__":
    main()
