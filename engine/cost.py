"""Cost arithmetic. Money in USD, time in seconds (prices per hour), energy in kWh."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True)
class Price:
    """An hourly price with where it came from and when it was quoted."""

    usd_per_hour: float
    source: str = "user"
    as_of: str | None = None  # ISO date

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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
