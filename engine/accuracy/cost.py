"""Cost to accuracy, here and projected to another machine. Money in USD, time in seconds.

Across machines, iterations to accuracy do not change (the same batch size, numerics and data
give the same curve); only the time per iteration does, so the time to accuracy scales with
the inverse of throughput, and the cost is that time at the other machine's price.
`across_instances` applies that to every row of a price comparison (engine.pricing.compare).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.accuracy.repeats import BatchSummary
from engine.core.stats import Spread
from engine.pricing import cost
from engine.pricing.compare_rows import Comparison


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


@dataclass(frozen=True)
class InstanceCostToAccuracy:
    """Cost to accuracy on one row of a price comparison (engine.pricing.compare). An estimate when
    the
    row's throughput is; usd_low/usd_high are the mean cost at the ends of its throughput range."""

    instance_type: str
    cloud: str
    gpu_model: str
    status: str  # measured | estimated (as the comparison row)
    local: bool
    throughput_ratio: float
    usd_per_hour: float
    seconds: Spread
    usd: Spread
    usd_low: float | None
    usd_high: float | None

    def to_row(self) -> dict[str, Any]:
        """A flat dict (one table row): spreads as _mean and _std columns."""
        row = {k: v for k, v in self.__dict__.items() if not isinstance(v, Spread)}
        for name in ("seconds", "usd"):
            spread_ = getattr(self, name)
            row[f"{name}_mean"], row[f"{name}_std"] = spread_.mean, spread_.std
        return row


def across_instances(summary: BatchSummary, comparison: Comparison) -> list[InstanceCostToAccuracy]:
    """`summary` (one batch size, measured here) on every priced row of `comparison`, cheapest
    first. The comparison must be of one of this batch size's results (compare(result, ...)):
    its local row's throughput is the one the ratios are taken against. Rows whose batch does
    not fit, or that have no throughput or price, are left out."""
    local = next((r for r in comparison.rows if r.local), None)
    base = None if local is None else local.throughput_samples_per_s
    if not base:
        return []
    out = []
    for row in comparison.rows:
        if row.throughput_samples_per_s is None or row.usd_per_hour is None or row.fits is False:
            continue
        there = project(summary, row.throughput_samples_per_s / base, row.usd_per_hour)
        out.append(
            InstanceCostToAccuracy(
                instance_type=row.instance_type,
                cloud=row.cloud,
                gpu_model=row.gpu_model,
                status=row.status,
                local=row.local,
                throughput_ratio=there.throughput_ratio,
                usd_per_hour=row.usd_per_hour,
                seconds=there.seconds,
                usd=there.usd,
                usd_low=_usd_at(summary, row.throughput_high, base, row.usd_per_hour),
                usd_high=_usd_at(summary, row.throughput_low, base, row.usd_per_hour),
            )
        )
    return sorted(out, key=lambda c: (c.usd.mean is None, c.usd.mean or 0.0))


def _usd_at(
    summary: BatchSummary, samples_per_s: float | None, base: float, usd_per_hour: float
) -> float | None:
    if samples_per_s is None or summary.seconds.mean is None:
        return None
    return usd_to_accuracy(
        project_seconds(summary.seconds.mean, samples_per_s / base), usd_per_hour
    )
