"""epochcost cost: the arithmetic alone, for timings measured elsewhere or published."""

from __future__ import annotations

import argparse

from engine.cli.common import UsageError, print_json
from engine.pricing import cost


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cost", help="cost of an epoch (and a run) from its time and a price")
    p.add_argument("--epoch-seconds", type=float, required=True)
    p.add_argument("--price-per-hour", type=float, required=True, metavar="USD")
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    for name, value in (
        ("epoch_seconds", args.epoch_seconds),
        ("price_per_hour", args.price_per_hour),
        ("epochs", args.epochs),
    ):
        if not value >= 0 or value == float("inf"):
            raise UsageError(name, f"{value:g} must be a number of at least 0")
    per_epoch = cost.usd_per_epoch(args.epoch_seconds, args.price_per_hour)
    total = cost.usd_per_run(args.epoch_seconds, args.price_per_hour, args.epochs)
    if args.json:
        print_json(
            {
                "epoch_seconds": args.epoch_seconds,
                "usd_per_hour": args.price_per_hour,
                "epochs": args.epochs,
                "usd_per_epoch": per_epoch,
                "usd_total": total,
            }
        )
        return 0
    print(
        f"per epoch  ${per_epoch:,.4f}  ({args.epoch_seconds:,.1f} s at "
        f"${args.price_per_hour:,.2f}/h)"
    )
    print(f"{args.epochs:g} epochs  ${total:,.2f}")
    return 0
