"""epochcost breakeven: after how many days of use owning a machine beats renting one."""

from __future__ import annotations

import argparse

from engine.cli.common import UsageError, print_json
from engine.pricing import cost


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "breakeven",
        help="days of use after which buying beats renting, electricity counted",
        description="Days of use after which owning a machine is cheaper than renting one for "
        "the same work. SPEEDUP = owned throughput / cloud throughput (0.5: the owned machine "
        "is half as fast, so renting the same work needs half the hours).",
    )
    p.add_argument("--purchase-usd", type=float, required=True, metavar="P")
    p.add_argument("--cloud-usd-per-hour", type=float, required=True, metavar="C")
    p.add_argument("--speedup", type=float, required=True, metavar="R")
    p.add_argument(
        "--power-w", type=float, default=None, metavar="W", help="owned machine's draw (watts)"
    )
    p.add_argument("--usd-per-kwh", type=float, default=None, metavar="T", help="tariff")
    p.add_argument(
        "--psu-efficiency",
        type=float,
        default=1.0,
        metavar="E",
        help="when --power-w is the DC draw (NVML), e.g. 0.9; default 1: W is at the wall",
    )
    p.add_argument("--hours-per-day", type=float, default=24.0, metavar="H")
    p.add_argument("--json", action="store_true", help="machine-readable output (key: days)")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if (args.power_w is None) != (args.usd_per_kwh is None):
        given, missing = (
            ("power_w", "usd_per_kwh") if args.usd_per_kwh is None else ("usd_per_kwh", "power_w")
        )
        raise UsageError(missing, f"give it with --{given.replace('_', '-')} (or neither)")
    result = cost.break_even(
        args.purchase_usd,
        args.cloud_usd_per_hour,
        args.speedup,
        hours_per_day=args.hours_per_day,
        power_w=args.power_w or 0.0,
        usd_per_kwh=args.usd_per_kwh or 0.0,
        psu_efficiency=args.psu_efficiency,
    )
    if args.json:
        print_json(
            {
                **result.to_dict(),
                "cloud_usd_per_hour": args.cloud_usd_per_hour,
                "speedup": args.speedup,
                "power_w": args.power_w,
                "usd_per_kwh": args.usd_per_kwh,
                "psu_efficiency": args.psu_efficiency,
            }
        )
        return 0
    days = result.days
    cloud_hours = args.hours_per_day * args.speedup
    if days is None:
        print("owning never pays for itself: its electricity costs more than renting the same work")
    else:
        print(
            f"owning pays for itself after {days:,.1f} days of use at {args.hours_per_day:g} h/day"
            f" ({days * args.hours_per_day:,.0f} hours of training)"
        )
    electricity = (
        f" + ${result.owned_usd_per_day:,.2f}/day electricity ({args.power_w:g} W"
        f"{'' if args.psu_efficiency == 1 else f' / {args.psu_efficiency:g} PSU'}"
        f" at ${args.usd_per_kwh:g}/kWh)"
        if args.power_w is not None
        else " (electricity not counted: give --power-w and --usd-per-kwh)"
    )
    print(f"  owned   ${args.purchase_usd:,.2f} up front{electricity}")
    print(
        f"  rented  ${result.rented_usd_per_day:,.2f}/day: the same work takes {cloud_hours:,.2f} "
        f"cloud hours a day at ${args.cloud_usd_per_hour:g}/h"
    )
    return 0
