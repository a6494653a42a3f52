"""epochcost breakeven: after how many days of use owning a machine beats renting one."""

from __future__ import annotations

import argparse

from engine.cli import numbers
from engine.cli.common import UsageError
from engine.cli.output import print_json
from engine.cli.owned_options import add_owned_options, owning_default
from engine.pricing import breakeven, cost, owning
from engine.pricing.owning import DEFAULTS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "breakeven",
        help="days of use after which buying beats renting, electricity counted",
        description="Days of use after which owning a machine is cheaper than renting one for "
        "the same work. SPEEDUP = owned throughput / cloud throughput (0.5: the owned machine "
        "is half as fast, so renting the same work needs half the hours).",
    )
    p.add_argument("--purchase-usd", type=numbers.PURCHASE_USD, required=True, metavar="P")
    p.add_argument("--cloud-usd-per-hour", type=numbers.PRICE_PER_HOUR, required=True, metavar="C")
    p.add_argument(
        "--speedup",
        type=numbers.number(0.001, 1_000, "(owned throughput / cloud throughput)"),
        required=True,
        metavar="R",
    )
    add_owned_options(
        p,
        ("power_w", "rest_of_system_w", "usd_per_kwh", "psu_efficiency", "hours_per_day"),
        {
            "power_w": "owned machine's draw (W), at the wall unless --psu-efficiency is given "
            "(or the GPU's alone, with --rest-of-system-w)",
            "psu_efficiency": "when --power-w is the DC draw (NVML), e.g. 0.9; default 1: W is "
            f"at the wall (with --rest-of-system-w, {DEFAULTS['psu_efficiency']:g}, as compare)",
        },
    )
    p.add_argument("--json", action="store_true", help="machine-readable output (key: days)")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    args.hours_per_day = owning_default("hours_per_day", args.hours_per_day)
    if args.psu_efficiency is None:
        # --power-w alone is a whole machine's draw at the wall: no power supply to add. With
        # --rest-of-system-w it is the GPU's DC draw, and the power supply counts as in compare.
        args.psu_efficiency = 1.0 if args.rest_of_system_w is None else DEFAULTS["psu_efficiency"]
    if (args.power_w is None) != (args.usd_per_kwh is None):
        given, missing = (
            ("power_w", "usd_per_kwh") if args.usd_per_kwh is None else ("usd_per_kwh", "power_w")
        )
        raise UsageError(missing, f"give it with --{given.replace('_', '-')} (or neither)")
    if args.rest_of_system_w is not None and args.power_w is None:
        raise UsageError(
            "rest_of_system_w", "give it with --power-w (the GPU's draw) and --usd-per-kwh"
        )
    # The owned set-up as compare, the app and the report price it (engine/pricing/owning.py),
    # against renting as their break-even is (engine/pricing/breakeven.against).
    owned = owning.owned_setup(
        purchase_usd=args.purchase_usd,
        usd_per_kwh=args.usd_per_kwh or 0.0,
        power_w=args.power_w,
        rest_of_system_w=args.rest_of_system_w,
        psu_efficiency=args.psu_efficiency,
        hours_per_day=args.hours_per_day,
    )
    result = breakeven.against(owned, args.cloud_usd_per_hour, args.speedup)
    if args.json:
        print_json(
            {
                **result.to_dict(),
                "cloud_usd_per_hour": args.cloud_usd_per_hour,
                "speedup": args.speedup,
                "power_w": args.power_w,
                "rest_of_system_w": args.rest_of_system_w,
                "usd_per_kwh": args.usd_per_kwh,
                "psu_efficiency": args.psu_efficiency,
            }
        )
        return 0
    cloud_hours = args.hours_per_day * args.speedup
    print(_verdict(result, args.hours_per_day))
    rest = f" + {owned.rest_of_system_w:g} W rest of system" if owned.rest_of_system_w else ""
    electricity = (
        f" + {_usd(result.owned_usd_per_day)}/day electricity ({args.power_w:g} W{rest}"
        f"{'' if args.psu_efficiency == 1 else f' / {args.psu_efficiency:g} PSU'}"
        f" at ${args.usd_per_kwh:g}/kWh)"
        if args.power_w is not None
        else " (electricity not counted: give --power-w and --usd-per-kwh)"
    )
    print(f"  owned   ${args.purchase_usd:,.2f} up front{electricity}")
    print(
        f"  rented  {_usd(result.rented_usd_per_day)}/day: the same work takes "
        f"{_figure(cloud_hours)} cloud hours a day at ${args.cloud_usd_per_hour:g}/h"
    )
    return 0


CENTURY_DAYS = 100 * 365.0


def _verdict(result: cost.BreakEven, hours_per_day: float) -> str:
    """When owning pays for itself, or why it never does, from the figures given."""
    days = result.days
    if days is None:
        # Renting costs something (every price, speedup and hour is above 0): only the
        # electricity, given, can make owning never pay.
        return (
            f"owning never pays for itself: its electricity ({_usd(result.owned_usd_per_day)}/day)"
            f" costs as much as renting the same work ({_usd(result.rented_usd_per_day)}/day) "
            "or more"
        )
    if days > CENTURY_DAYS:
        return (
            "owning does not pay for itself within a century of use (it would take "
            f"{days:.3g} days at {hours_per_day:g} h/day)"
        )
    return (
        f"owning pays for itself after {days:,.1f} days of use at {hours_per_day:g} h/day "
        f"({days * hours_per_day:,.0f} hours of training)"
    )


def _figure(value: float) -> str:
    """1,234.56, or two significant figures below 0.01 (0.0024), never 0.00 for some."""
    return f"{value:,.2f}" if value >= 0.01 or value == 0 else f"{value:.2g}"


def _usd(value: float) -> str:
    return f"${_figure(value)}"
