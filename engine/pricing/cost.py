"""Cost arithmetic. Money in USD, time in seconds (prices per hour), energy in kWh."""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

from engine.core.checks import iso_date, number_range
from engine.core.errors import ConfigError

SECONDS_PER_HOUR = 3600.0
MAX_USD_PER_HOUR = 100_000.0


@dataclass(frozen=True)
class Price:
    """What an hour of the hardware costs, where that figure comes from, and when it was quoted.
    A config and a result store it flat (Price.FIELDS); a result's `price` is to_dict()."""

    FIELDS: ClassVar[tuple[str, str, str]] = ("usd_per_hour", "price_source", "price_as_of")

    usd_per_hour: float
    source: str = "user"
    as_of: str | None = None  # ISO date

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def validated(self) -> Price:
        number_range("usd_per_hour", self.usd_per_hour, 0.0, MAX_USD_PER_HOUR)
        if not isinstance(self.source, str):
            raise ConfigError("price_source", "must be text (where the price comes from)")
        if self.as_of is not None:
            iso_date("price_as_of", self.as_of)
        return self

    def fields(self) -> dict[str, Any]:
        """The flat fields a config stores."""
        return {
            "usd_per_hour": self.usd_per_hour,
            "price_source": self.source,
            "price_as_of": self.as_of,
        }

    @classmethod
    def of(cls, values: dict[str, Any]) -> Price | None:
        """From flat fields (a config, a form's values); None when no $/h is given."""
        if values.get("usd_per_hour") is None:
            return None
        return cls(
            values["usd_per_hour"], values.get("price_source") or "user", values.get("price_as_of")
        )

    def dated(self) -> Price:
        """With a date: today's when none was given (a result records when it was priced)."""
        return self if self.as_of else replace(self, as_of=_dt.date.today().isoformat())

    def describe(self) -> str:
        """'$0.90/h (aws p3.2xlarge, 2025-06-01)': as quoted, to the cent at least."""
        quoted = f", {self.as_of}" if self.as_of else ""
        v = self.usd_per_hour
        if 0 < v < 0.1:  # four significant figures: $0.06372/h
            amount = f"{v:.4g}"
        else:
            amount = f"{v:,.4f}".rstrip("0")
            amount += "0" * max(0, 2 - len(amount.split(".")[1]))
        return f"${amount}/h ({self.source}{quoted})"


def epoch_seconds(epoch_samples: int, throughput_samples_per_s: float) -> float:
    """Seconds for one pass over `epoch_samples` at a measured throughput."""
    if throughput_samples_per_s <= 0:
        raise ValueError("throughput must be positive")
    return epoch_samples / throughput_samples_per_s


def usd_for_seconds(seconds: float, usd_per_hour: float) -> float:
    """What `seconds` of a machine billed at `usd_per_hour` costs."""
    if seconds < 0 or usd_per_hour < 0:
        raise ValueError("time and price must not be negative")
    return seconds / SECONDS_PER_HOUR * usd_per_hour


def usd_per_epoch(epoch_seconds_: float, usd_per_hour: float) -> float:
    return usd_for_seconds(epoch_seconds_, usd_per_hour)


def usd_per_run(epoch_seconds_: float, usd_per_hour: float, epochs: float) -> float:
    """Cost of `epochs` passes over the data set."""
    if epochs < 0:
        raise ValueError("epochs must not be negative")
    return usd_for_seconds(epoch_seconds_ * epochs, usd_per_hour)


def throughput_to_match(epoch_samples: int, usd_per_epoch: float, usd_per_hour: float) -> float:
    """Samples/s a machine billed at `usd_per_hour` needs for its epoch to cost `usd_per_epoch`."""
    if usd_per_epoch <= 0:
        raise ValueError("cost per epoch must be positive")
    return epoch_samples * usd_per_hour / (usd_per_epoch * SECONDS_PER_HOUR)


def usd_to_target(seconds_to_target: float, usd_per_hour: float) -> float:
    """Cost of training until a target (an accuracy, a stabilisation point): time to it x price."""
    return usd_for_seconds(seconds_to_target, usd_per_hour)


# --- rented: on-demand or spot, with start-up time billed per run ------------------------------


def rented_usd_per_epoch(
    epoch_seconds_: float, usd_per_hour: float, rerun_fraction: float = 0.0
) -> float:
    """One epoch on a rented machine. `rerun_fraction` is the share of work done again after
    spot interruptions (0.1: a tenth of the epochs run twice), so it scales time and cost."""
    _check("rerun_fraction", rerun_fraction, 0.0, 10.0)
    return usd_for_seconds(epoch_seconds_ * (1 + rerun_fraction), usd_per_hour)


def rented_usd_per_run(
    epoch_seconds_: float,
    usd_per_hour: float,
    epochs: float,
    startup_minutes: float = 0.0,
    rerun_fraction: float = 0.0,
) -> float:
    """A whole run on a rented machine: epochs (plus re-runs) plus the start-up minutes billed
    before training begins (image boot, data copy)."""
    _check("epochs", epochs, 0.0, math.inf)
    _check("startup_minutes", startup_minutes, 0.0, 7 * 24 * 60)
    per_epoch = rented_usd_per_epoch(epoch_seconds_, usd_per_hour, rerun_fraction)
    return per_epoch * epochs + usd_for_seconds(startup_minutes * 60, usd_per_hour)


# --- owned: amortisation plus electricity ------------------------------------------------------


@dataclass(frozen=True)
class OwnedHardware:
    """A machine bought outright. Money in USD, power in watts (device draw, before the PSU).

    `power_w` is the device's draw while training (measured, or its TDP); None when unknown,
    and then electricity is not counted. The wall draw is (power_w + rest_of_system_w) /
    psu_efficiency. The purchase is spread over the hours it will be used:
    lifetime_years x 365 x hours_per_day.
    """

    purchase_usd: float
    usd_per_kwh: float
    power_w: float | None
    rest_of_system_w: float = 0.0
    lifetime_years: float = 3.0
    hours_per_day: float = 24.0
    psu_efficiency: float = 0.9

    def validated(self) -> OwnedHardware:
        _check("purchase_usd", self.purchase_usd, 0.0, 1e9)
        _check("usd_per_kwh", self.usd_per_kwh, 0.0, 100.0)
        if self.power_w is not None:
            _check("power_w", self.power_w, 0.0, 1e6)
        _check("rest_of_system_w", self.rest_of_system_w, 0.0, 1e6)
        _check("lifetime_years", self.lifetime_years, 1e-3, 100.0)
        _check("hours_per_day", self.hours_per_day, 1e-3, 24.0)
        _check("psu_efficiency", self.psu_efficiency, 1e-3, 1.0)
        return self

    @property
    def hours_of_use(self) -> float:
        return self.lifetime_years * 365.0 * self.hours_per_day

    @property
    def amortisation_usd_per_hour(self) -> float:
        return self.purchase_usd / self.hours_of_use

    @property
    def wall_power_w(self) -> float | None:
        if self.power_w is None:
            return None
        return (self.power_w + self.rest_of_system_w) / self.psu_efficiency

    @property
    def electricity_usd_per_hour(self) -> float | None:
        wall = self.wall_power_w
        return None if wall is None else wall / 1000.0 * self.usd_per_kwh

    @property
    def usd_per_hour(self) -> float:
        """Amortisation plus electricity (electricity 0 when the power is unknown)."""
        return self.amortisation_usd_per_hour + (self.electricity_usd_per_hour or 0.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "amortisation_usd_per_hour": self.amortisation_usd_per_hour,
            "electricity_usd_per_hour": self.electricity_usd_per_hour,
            "usd_per_hour": self.usd_per_hour,
        }


# --- energy and CO2 ----------------------------------------------------------------------------


def kwh_for_seconds(power_w: float, seconds: float) -> float:
    """Energy of drawing `power_w` for `seconds`, in kWh (1 kWh = 3.6e6 J)."""
    _check("power_w", power_w, 0.0, math.inf)
    _check("seconds", seconds, 0.0, math.inf)
    return power_w * seconds / 3.6e6


def co2_kg(kwh: float, g_co2e_per_kwh: float) -> float:
    """Emissions of `kwh` on a grid of `g_co2e_per_kwh`, in kg CO2e."""
    _check("kwh", kwh, 0.0, math.inf)
    _check("g_co2e_per_kwh", g_co2e_per_kwh, 0.0, math.inf)
    return kwh * g_co2e_per_kwh / 1000.0


# --- buy or rent -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BreakEven:
    """Owning against renting for the same work, per day of use. Money in USD.

    Each day the owned machine trains `hours_per_day`; renting the same work takes
    hours_per_day x speedup cloud hours (speedup = owned throughput / cloud throughput).
    """

    purchase_usd: float
    owned_usd_per_day: float  # electricity
    rented_usd_per_day: float
    hours_per_day: float

    @property
    def days(self) -> float | None:
        """Days of use after which owning is cheaper; None when it never is."""
        saving = self.rented_usd_per_day - self.owned_usd_per_day
        if saving > 0:
            return self.purchase_usd / saving
        # Nothing saved a day: a machine had for nothing is as cheap from the start when its
        # electricity costs what renting does, and never when it costs more.
        return 0.0 if self.purchase_usd == 0 and saving == 0 else None

    def cumulative(self, day: float) -> tuple[float, float]:
        """(owned, rented) money spent after `day` days of use."""
        return (
            self.purchase_usd + self.owned_usd_per_day * day,
            self.rented_usd_per_day * day,
        )

    def series(self, horizon_days: float | None = None, points: int = 61) -> list[dict[str, float]]:
        """Cumulative cost of owning and of renting over days, for a chart. The horizon is twice
        the break-even (or a year when there is none) unless given."""
        days = self.days
        horizon = horizon_days or (max(2 * days, 1.0) if days else 365.0)
        step = horizon / (points - 1)
        return [
            dict(zip(("day", "owned_usd", "rented_usd"), (d, *self.cumulative(d)), strict=True))
            for d in (i * step for i in range(points))
        ]

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "days": self.days}


def break_even(
    purchase_usd: float,
    cloud_usd_per_hour: float,
    speedup: float,
    hours_per_day: float = 24.0,
    power_w: float = 0.0,
    usd_per_kwh: float = 0.0,
    psu_efficiency: float = 1.0,
) -> BreakEven:
    """Buy or rent: `power_w` is the owned machine's draw while training (at the wall when
    psu_efficiency is 1), `speedup` its throughput over the cloud machine's."""
    _check("purchase_usd", purchase_usd, 0.0, 1e9)
    _check("cloud_usd_per_hour", cloud_usd_per_hour, 0.0, 1e5)
    _check("speedup", speedup, 1e-9, 1e6)
    _check("hours_per_day", hours_per_day, 1e-3, 24.0)
    # A wall draw: an owned machine's device and rest-of-system watts over its PSU efficiency
    # (OwnedHardware.wall_power_w) may pass the 1e6 W each of those is allowed.
    _check("power_w", power_w, 0.0, 1e10)
    _check("usd_per_kwh", usd_per_kwh, 0.0, 100.0)
    _check("psu_efficiency", psu_efficiency, 1e-3, 1.0)
    electricity_per_hour = power_w / psu_efficiency / 1000.0 * usd_per_kwh
    return BreakEven(
        purchase_usd=purchase_usd,
        owned_usd_per_day=hours_per_day * electricity_per_hour,
        rented_usd_per_day=hours_per_day * speedup * cloud_usd_per_hour,
        hours_per_day=hours_per_day,
    )


def _check(name: str, value: float, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(name, f"{value!r} is not a number")
    if not low <= value <= high:
        top = f" and at most {high:g}" if math.isfinite(high) else ""
        raise ConfigError(name, f"{value:g} must be at least {low:g}{top}")
