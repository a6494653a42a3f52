"""The owned-hardware options of compare, plan, profile add and breakeven, declared once.

One name, one range (engine/cli/numbers.py) and one default per figure: an option left out is
None, and the engine takes engine/pricing/owning.py's DEFAULTS (3 years, 24 h a day, no rest of
the system, a 0.9 power supply) or the machine's, profile's or catalog's figure. The help says
the default from DEFAULTS, so text and code cannot drift. Each command adds the options it uses.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli import numbers
from engine.pricing.owning import DEFAULTS

# dest -> (option, type, metavar, help)
OPTIONS: dict[str, tuple[str, Any, str, str]] = {
    "purchase_usd": ("--purchase-usd", numbers.PURCHASE_USD, "USD", "per GPU; default: launch"),
    "usd_per_kwh": ("--usd-per-kwh", numbers.USD_PER_KWH, "T", "electricity tariff ($/kWh)"),
    "power_w": ("--power-w", numbers.POWER_W, "W", "GPU draw (W); default: measured, else TDP"),
    "rest_of_system_w": (
        "--rest-of-system-w",
        numbers.REST_OF_SYSTEM_W,
        "W",
        f"CPU, disks, fans (W); default {DEFAULTS['rest_of_system_w']:g}",
    ),
    "lifetime_years": (
        "--lifetime-years",
        numbers.LIFETIME_YEARS,
        "Y",
        f"default {DEFAULTS['lifetime_years']:g}",
    ),
    "hours_per_day": (
        "--hours-per-day",
        numbers.HOURS_PER_DAY,
        "H",
        f"hours of use a day; default {DEFAULTS['hours_per_day']:g}",
    ),
    "psu_efficiency": (
        "--psu-efficiency",
        numbers.PSU_EFFICIENCY,
        "E",
        f"power supply: wall draw = W / E; default {DEFAULTS['psu_efficiency']:g}",
    ),
    "grid_region": ("--grid-region", None, "PROVIDER:REGION", "grid for CO2: aws:us-east-1"),
    "grid_g_per_kwh": (
        "--grid-g-per-kwh",
        numbers.GRID_G_PER_KWH,
        "G",
        "grid intensity (g CO2e/kWh), instead of a region",
    ),
}


def add_owned_options(
    group: argparse._ActionsContainer,
    names: tuple[str, ...],
    helps: dict[str, str] | None = None,
    defaults: dict[str, float] | None = None,
) -> None:
    """Add the options `names` (keys of OPTIONS) to `group`. `helps` replaces a help where a
    command uses the figure its own way; `defaults` gives a figure a default of its own."""
    helps, defaults = helps or {}, defaults or {}
    for name in names:
        option, kind, metavar, text = OPTIONS[name]
        group.add_argument(
            option,
            dest=name,
            type=kind,
            default=defaults.get(name),
            metavar=metavar,
            help=helps.get(name, text),
        )


def owning_default(name: str, value: float | None) -> float:
    """`value`, else owning.DEFAULTS' figure for `name` (for a command that computes itself)."""
    return DEFAULTS[name] if value is None else value
