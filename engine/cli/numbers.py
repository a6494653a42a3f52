"""Numbers on the command line, and the options the engine's errors name.

Every numeric option of a command is declared with a range from here (`type=numbers.EPOCHS`,
`type=numbers.whole(1, 10_000, "layers")`). A value that is not a number, is not finite (nan,
inf), or lies outside what the quantity can be in real use (a price of 1e-300 dollars an hour,
1e308 epochs, an MFU of 35) is refused while the arguments are read: argparse exits 2 with

    argument --epochs: 1e308 is out of range: give 0.001 to 1,000,000 epochs

The ranges are generous for real use, and narrow enough that every figure computed from them
stays finite: no output, text or --json, holds NaN or infinity.

The engine checks its inputs as well (the desktop app calls it without argparse) and raises
ConfigError naming its own field: `n_layers`, `g_co2e_per_kwh`. Where that differs from the
option's dest, a command's handler is wrapped in `Named` with the mapping, so that the message
names the option the user typed (`--layers`), never one that does not exist.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from engine.core.errors import ConfigError
from engine.measure.config import TARGET_PRECISION_PCT


def show(value: float) -> str:
    """A bound as people write it: 1,000,000 and 0.001, else 1e13 and 1e-6."""
    if value == int(value) and abs(value) < 1e7:
        return f"{int(value):,}"
    mantissa, e, exponent = f"{value:g}".partition("e")
    return f"{mantissa}e{int(exponent)}" if e else mantissa


@dataclass(frozen=True)
class Range:
    """An argparse `type=`: the text as a number from `low` to `high` (0 too when `zero`), a
    whole one when `integer`; anything else is refused saying the allowed range."""

    low: float
    high: float
    unit: str = ""
    integer: bool = False
    zero: bool = False  # 0 is allowed besides low..high (a free tariff, no start-up time)
    fraction: bool = False  # a share given as a percentage (35) is answered with 0.35

    def __call__(self, text: str) -> float:
        value = self._parse(text)
        if self.low <= value <= self.high or (self.zero and value == 0):
            return value
        raise argparse.ArgumentTypeError(
            f"{text.strip()} is out of range: {self.allowed}{self._percent(value)}"
        )

    @property
    def allowed(self) -> str:
        """'give 0.001 to 1,000,000 epochs', 'give 0, or 1 to 3,000 g CO2e/kWh'."""
        span = f"{show(self.low)} to {show(self.high)}"
        if self.integer:
            span = f"a whole number from {span}"
        elif self.fraction:
            span = f"a fraction from {span}"
        if self.zero:
            span = f"0, or {span}"
        return f"give {span}" + (f" {self.unit}" if self.unit else "")

    def _parse(self, text: str) -> float:
        shown = text.strip()[:40]
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{shown!r} is not a number: {self.allowed}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{shown} is not a finite number: {self.allowed}")
        if self.integer:
            if value != int(value):
                raise argparse.ArgumentTypeError(f"{shown} is not a whole number: {self.allowed}")
            return int(value)
        return value

    def _percent(self, value: float) -> str:
        if self.fraction and 1 < value <= 100:
            return f" ({value / 100:g} for {value:g}%)"
        return ""


def number(low: float, high: float, unit: str = "", *, zero: bool = False) -> Range:
    return Range(low, high, unit, zero=zero)


def whole(low: int, high: int, unit: str = "", *, zero: bool = False) -> Range:
    return Range(low, high, unit, integer=True, zero=zero)


def fraction(low: float, unit: str = "") -> Range:
    """A share, `low` to 1 (0.35 for 35%)."""
    return Range(low, 1.0, unit, fraction=True)


# The same quantity has the same range on every command.
PRICE_PER_HOUR = number(0.001, 100_000, "USD an hour")
PURCHASE_USD = number(1, 1e9, "USD", zero=True)  # 0: already paid for
USD_PER_KWH = number(0.001, 10, "USD/kWh", zero=True)  # 0: free electricity (own solar)
POWER_W = number(1, 1_000_000, "W")
REST_OF_SYSTEM_W = number(1, 1_000_000, "W", zero=True)
PSU_EFFICIENCY = fraction(0.5)
LIFETIME_YEARS = number(0.1, 50, "years")
HOURS_PER_DAY = number(0.1, 24, "hours a day")
GRID_G_PER_KWH = number(1, 3_000, "g CO2e/kWh", zero=True)
EPOCHS = number(0.001, 1_000_000, "epochs")
TARGET_PCT = number(*TARGET_PRECISION_PCT, "percent")
OFF = ("off", "none")  # words that turn an optional target off
LIMIT = whole(0, 1_000_000, "rows (0: all)")


def target_precision(text: str) -> float | None:
    """--target-precision: a percentage ("3", "3%"), or "off" (None)."""
    shown = text.strip()
    if shown.lower() in OFF:
        return None
    try:
        return TARGET_PCT(shown.removesuffix("%"))
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{exc}, or off") from None


Handler = Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class Named:
    """A command's handler whose ConfigError from the engine names the option typed: `fields`
    maps the engine's field (n_layers) to the option's dest (layers); other fields pass as
    they are, being dests already."""

    handler: Handler
    fields: Mapping[str, str] = field(default_factory=dict)

    def __call__(self, args: argparse.Namespace) -> int:
        try:
            return self.handler(args)
        except ConfigError as exc:
            dest = self.fields.get(exc.field)
            if dest is None:
                raise
            raise ConfigError(dest, exc.message) from None
