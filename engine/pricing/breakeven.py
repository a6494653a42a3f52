"""Owning against renting, one way everywhere: the days of use after which an owned machine
(engine/pricing/owning.py's set-up) costs less than renting another for the same work, and
their range from the two throughputs' ranges (a projection's, a measurement's 95% interval).

Compare's rows (the measured machine against each instance, each GPU to buy against the
cheapest cloud epoch), `compare --buy`, the app's Compare tab and the report all take their
break-even from here, and say it with `days_text`. Money in USD, time in days of use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.pricing import cost
from engine.pricing.compare_rows import CompareOptions
from engine.pricing.projection import Projection
from engine.pricing.spread import measured_spread

# (central, low, high) samples/s; low and high None: no range known (the central figure).
Speeds = tuple[float, float | None, float | None]


def against(owned: cost.OwnedHardware, usd_per_hour: float, speedup: float) -> cost.BreakEven:
    """Owning `owned` against renting at `usd_per_hour` a machine the owned one is `speedup`
    times as fast as: each day it trains its hours_per_day, drawing its wall power."""
    return cost.break_even(
        owned.purchase_usd,
        usd_per_hour,
        speedup=speedup,
        hours_per_day=owned.hours_per_day,
        power_w=owned.wall_power_w or 0.0,  # at the wall: rest of system and PSU counted
        usd_per_kwh=owned.usd_per_kwh,
    )


@dataclass(frozen=True)
class DaysRange:
    """Break-even days at the central speeds, and at the ends of their ranges: `low` the
    fewest (the owned machine at the top of its range, the rented one at the bottom), `high`
    the most (the other ends). None: owning never pays at those speeds."""

    days: float | None
    low: float | None
    high: float | None


def days_range(
    owned: cost.OwnedHardware, usd_per_hour: float, owned_speeds: Speeds, rented_speeds: Speeds
) -> DaysRange:
    """The break-even days of owning against renting for the same work, with their range."""
    mid, o_low, o_high = owned_speeds
    r_mid, r_low, r_high = rented_speeds

    def days(owned_tput: float | None, rented_tput: float | None) -> float | None:
        ratio = (owned_tput or mid) / (rented_tput or r_mid)
        return against(owned, usd_per_hour, ratio).days

    return DaysRange(days(mid, r_mid), days(o_high, r_low), days(o_low, r_high))


def _days(value: float | None) -> str:
    if value is None:
        return "never"
    return f"{value:,.1f}" if value < 10 else f"{value:,.0f}"


def days_text(r: DaysRange | None) -> str:
    """'250 (180–340)': the days and their range; 'never' where owning does not pay at any of
    the speeds; '' where there is no break-even (nothing owned, no speed there)."""
    if r is None:
        return ""
    if r.days is None and r.low is None and r.high is None:
        return "never"
    if r.low == r.days == r.high:
        return _days(r.days)
    return f"{_days(r.days)} ({_days(r.low)}–{_days(r.high)})"


# --- the rows of a comparison ---------------------------------------------------------------


def _rented_price(options: CompareOptions, usd_per_hour: float, spot: float | None) -> float:
    """The $/h a break-even rents at: the spot price when options.spot and there is one."""
    return spot if options.spot and spot is not None else usd_per_hour


def break_even_against(
    options: CompareOptions,
    local_samples_per_s: float,
    remote_samples_per_s: float | None,
    usd_per_hour: float,
    usd_per_hour_spot: float | None = None,
) -> cost.BreakEven | None:
    """Owning the measured machine (options.owned) against renting an instance for the same
    work (its spot price when options.spot and it has one); None without owned hardware or a
    throughput there. Its `days` is a row's break_even_days, its `series()` a chart's data."""
    owned = options.owned
    if owned is None or not remote_samples_per_s:
        return None
    price = _rented_price(options, usd_per_hour, usd_per_hour_spot)
    return against(owned, price, local_samples_per_s / remote_samples_per_s)


def local_speeds(result: dict[str, Any]) -> Speeds:
    """The measured throughput and its 95% interval."""
    throughput = result["throughput_samples_per_s"]
    low_f, high_f = measured_spread(result)
    return throughput, throughput * low_f, throughput * high_f


def row_fields(
    options: CompareOptions,
    local: Speeds,
    proj: Projection,
    price: float,
    spot: float | None,
) -> dict[str, Any]:
    """A row's break_even_days, its range and its text (none without owned hardware)."""
    owned = options.owned
    if owned is None or not proj.samples_per_s:
        return {"break_even_days": None}
    r = days_range(
        owned,
        _rented_price(options, price, spot),
        local,
        (proj.samples_per_s, proj.low, proj.high),
    )
    return {
        "break_even_days": r.days,
        "break_even_days_low": r.low,
        "break_even_days_high": r.high,
        "break_even_text": days_text(r),
    }
