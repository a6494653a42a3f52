"""Cost to accuracy, here and projected to another machine. Money in USD, time in seconds.

Across machines, iterations to accuracy do not change (the same batch size, numerics and data
give the same curve); only the time per iteration does, so the time to accuracy scales with
the inverse of throughput, and the cost is that time at the other machine's price.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import cost
from engine.accuracy.repeats import BatchSummary, Spread


def usd_to_accuracy(seconds: float, usd_per_hour: float) -> float:
    """What `seconds` to accuracy cost at `usd_per_hour`."""
    return cost.usd_for_seconds(seconds, usd_per_hour)


def project_seconds(seconds: float, throughput_ratio: float) -> float:
    """Time to accuracy on a machine whose throughput is `throughput_ratio` times this one's
    (samples/s there over samples/s here, for the same batch size and precision)."""
    if not throughput_ratio > 0:
        raise ValueError("throughput ratio must be positive")
    return seconds / throughput_ratio


@dataclass(frozen=True)
class ProjectedCost:
    """A batch size's cost to accuracy on another machine (an estimate when the ratio is)."""

    throughput_ratio: float
    usd_per_hour: float | None
    stabilization_iteration: Spread  # unchanged: iterations do not depend on the machine
    seconds: Spread
    usd: Spread

    def to_dict(self) -> dict[str, Any]:
        return {
            "throughput_ratio": self.throughput_ratio,
            "usd_per_hour": self.usd_per_hour,
            "stabilization_iteration": self.stabilization_iteration.to_dict(),
            "seconds": self.seconds.to_dict(),
            "usd": self.usd.to_dict(),
        }


def _scaled(s: Spread, factor: float) -> Spread:
    return Spread(
        None if s.mean is None else s.mean * factor,
        None if s.std is None else s.std * factor,
        s.n,
    )


def project(
    summary: BatchSummary, throughput_ratio: float, usd_per_hour: float | None
) -> ProjectedCost:
    """`summary` measured here, moved to a machine `throughput_ratio` times as fast and
    billed at `usd_per_hour`. Mean and std scale alike: each repeat's time does."""
    seconds = _scaled(summary.seconds, project_seconds(1.0, throughput_ratio))
    usd_factor = None if usd_per_hour is None else usd_to_accuracy(1.0, usd_per_hour)
    usd = Spread(None, None, 0) if usd_factor is None else _scaled(seconds, usd_factor)
    return ProjectedCost(
        throughput_ratio, usd_per_hour, summary.stabilization_iteration, seconds, usd
    )
