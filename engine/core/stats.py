"""Small statistics: percentiles and the IQR stop rule on step times, mean and spread over
repeats."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), linear interpolation between order statistics."""
    if not values:
        raise ValueError("percentile of no values")
    return _at(sorted(values), q)


def _at(ordered: Sequence[float], q: float) -> float:
    pos = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def relative_iqr(values: Sequence[float]) -> float:
    """Interquartile range over median: the spread the stop rule watches."""
    return relative_iqr_of_sorted(sorted(values))


def relative_iqr_of_sorted(ordered: Sequence[float]) -> float:
    """relative_iqr of values already in order: O(1), for the stop rule after every step."""
    if not ordered:
        raise ValueError("relative IQR of no values")
    median = _at(ordered, 50)
    if median <= 0:
        return math.inf
    return (_at(ordered, 75) - _at(ordered, 25)) / median


def summary(values: Sequence[float]) -> dict[str, float | int | None]:
    """median, p10, p90, mean, min, max and count of a list of times (seconds)."""
    if not values:
        return {"median": None, "p10": None, "p90": None, "mean": None, "count": 0}
    return {
        "median": statistics.median(values),
        "p10": percentile(values, 10),
        "p90": percentile(values, 90),
        "mean": statistics.fmean(values),
        "min": min(values),
        "max": max(values),
        "count": len(values),
    }


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value)."""
    mean = statistics.fmean(values)
    return mean, statistics.stdev(values) if len(values) > 1 else 0.0


@dataclass(frozen=True)
class Spread:
    mean: float | None
    std: float | None
    n: int

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "std": self.std, "n": self.n}


def spread(values: Sequence[float | None]) -> Spread:
    """Mean and sample standard deviation of the values that are not None."""
    known = [v for v in values if v is not None]
    if not known:
        return Spread(None, None, 0)
    std = statistics.stdev(known) if len(known) > 1 else None
    return Spread(statistics.fmean(known), std, len(known))
