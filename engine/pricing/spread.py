"""A projection's range widened by the measurement's own 95% interval.

An estimate scales a measured figure that is itself only known to within its interval
(engine/core/interval.py): the two errors are independent, so they add in quadrature on a log
scale, each side apart, once the interval's half-width is taken to the range's level.
"""

from __future__ import annotations

import math
import statistics
from typing import Any


def measured_spread(result: dict[str, Any]) -> tuple[float, float]:
    """(low, high) of the result's 95% throughput interval as factors of its figure; (1, 1)
    for a result stored without one. The interval holds the figure: every reader checks it
    (engine/results/schema.py)."""
    ci, center = result.get("throughput_ci95"), result.get("throughput_samples_per_s")
    if not ci or not center or ci[0] is None or ci[1] is None:
        return 1.0, 1.0
    return ci[0] / center, ci[1] / center


def widened(
    figure: float, low: float, high: float, level: float, spread: tuple[float, float]
) -> tuple[float, float]:
    """(low, high) of a `level` range around `figure` combined with a measured 95% `spread`
    (factors, as measured_spread gives them): each side's log distance and the spread's, the
    latter taken to the range's level (x z(0.90) / z(0.975) for an 80% range, as for a normal
    error), add in quadrature."""
    z = _z(level) / _z(0.95)

    def side(edge: float, factor: float) -> float:
        if edge <= 0 or factor <= 0:
            return 0.0  # the interval reaches down to zero: so does the range
        a, m = math.log(edge / figure), math.log(factor) * z
        return figure * math.exp(math.copysign(math.hypot(a, m), a or m))

    return side(low, spread[0]), side(high, spread[1])


def _z(level: float) -> float:
    """The standard normal quantile for a two-sided `level` (0.8: 1.2816; 0.95: 1.9600)."""
    return statistics.NormalDist().inv_cdf(0.5 + level / 2)
