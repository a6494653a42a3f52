"""epochcost models: the built-in workloads."""

from __future__ import annotations

import argparse

from engine.cli.common import print_json
from engine.workloads import registry


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="list the built-in workloads")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if args.json:
        print_json([w.to_dict() for w in registry.WORKLOADS])
        return 0
    print(f"{'model':16s} {'input':13s} {'epoch':>11s}  {'frameworks':18s} description")
    for w in registry.WORKLOADS:
        shape = "x".join(str(d) for d in w.input_shape)
        print(
            f"{w.name:16s} {shape:13s} {w.epoch_samples:>11,d}  {','.join(w.frameworks):18s} "
            f"{w.description}"
        )
    return 0
