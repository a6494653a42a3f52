"""epochcost cost: the arithmetic alone, for timings measured elsewhere or published."""

from __future__ import annotations

import argparse

from engine.cli import numbers
from engine.cli.output import print_json
from engine.pricing import cost


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cost", help="cost of an epoch (and a run) from its time and a price")
    p.add_argument(
        "--epoch-seconds", type=numbers.number(0.001, 1e9, "seconds"), required=True, metavar="S"
    )
    p.add_argument("--price-per-hour", type=numbers.PRICE_PER_HOUR, required=True, metavar="USD")
    p.add_argument("--epochs", type=numbers.EPOCHS, default=1.0, metavar="N")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
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
