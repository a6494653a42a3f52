"""What a study found, for any axis: its points (throughput, memory, $/epoch with their 95%
intervals, energy where measured) and the verdict: the cheapest point, and the points the data
cannot tell from it (engine/core/verdict.py, the batch sweep's rule).

Cheapest: the lowest $/epoch, at the owned price where the study was given one (each point's
electricity from its own measured power: what a power-limit or precision trade is about), else
at the run's price; without a price, the shortest epoch, and it says so. Points not precise
enough to price (engine/core/precision.py) are named, as the batch sweep names them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.core import verdict
from engine.core.events import json_safe
from engine.core.placeholders import ask
from engine.core.precision import MARK, PRICE_TOLERANCE, imprecise
from engine.measure.config import RunConfig
from engine.study.axis import Axis
from engine.study.point import StudyPoint

SCHEMA = "epochcost.study/1"
SETTLE = "more measuring windows or longer ones would narrow them, and a quieter machine would too"


@dataclass(frozen=True)
class StudySummary:
    group_id: str
    axis: str
    label: str
    unit: str
    model: str
    status: str  # completed | cancelled | failed
    points: tuple[StudyPoint, ...]
    cheapest_value: Any
    cheapest_basis: str | None  # owned_usd_per_epoch | usd_per_epoch | epoch_seconds
    rivals: tuple[Any, ...]
    seconds: float
    error: dict[str, Any] | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    shown: dict[str, str] = field(default_factory=dict)  # value (as text) -> "180 W"
    positions: dict[str, float] = field(default_factory=dict)  # value -> its chart x

    @property
    def measured(self) -> list[StudyPoint]:
        return [p for p in self.points if p.ok]

    def show(self, value: Any) -> str:
        return self.shown.get(str(value), str(value))

    def to_dict(self) -> dict[str, Any]:
        return json_safe(
            {
                "schema": SCHEMA,
                "group_id": self.group_id,
                "axis": self.axis,
                "label": self.label,
                "unit": self.unit,
                "model": self.model,
                "status": self.status,
                "error": self.error,
                "points": [p.row() for p in self.points],
                "cheapest": self.cheapest_value,
                "cheapest_basis": self.cheapest_basis,
                "rivals": list(self.rivals),
                "seconds": self.seconds,
                "notes": list(self.notes),
            }
        )


def cheapest(points: list[StudyPoint]) -> tuple[StudyPoint | None, str | None]:
    """The point with the lowest $/epoch (owned price first), else the shortest epoch."""
    done = [p for p in points if p.ok and p.figure("epoch_seconds")]
    if not done:
        return None, None
    if all(p.owned_usd_per_epoch is not None for p in done):
        return min(done, key=lambda p: p.owned_usd_per_epoch or 0.0), "owned_usd_per_epoch"
    if all(p.figure("usd_per_epoch") is not None for p in done):
        return min(done, key=lambda p: p.figure("usd_per_epoch")), "usd_per_epoch"
    return min(done, key=lambda p: p.figure("epoch_seconds")), "epoch_seconds"


def cost_interval(point: StudyPoint) -> verdict.Interval | None:
    """The 95% interval of a point's $/epoch (or epoch time): its cost scaled by its throughput
    interval, since at one price a cost is inversely its throughput."""
    rate = point.figure("throughput_samples_per_s")
    low, high = point.interval("throughput_ci95")
    cost = point.usd_per_epoch or point.figure("epoch_seconds")
    if not rate or not low or not high or cost is None:
        return None
    return cost * rate / high, cost * rate / low


def summarize(
    *,
    group_id: str,
    axis: Axis,
    config: RunConfig,
    status: str,
    points: list[StudyPoint],
    seconds: float,
    error: dict[str, Any] | None = None,
    notes: list[str] | None = None,
    price_basis: str = "",
) -> StudySummary:
    """The verdicts over the points so far (a cancelled study keeps what it measured)."""
    best, basis = cheapest(points)
    notes = list(notes or [])
    rivals: tuple[Any, ...] = ()
    if best is not None:
        others = [(i, cost_interval(p)) for i, p in enumerate(points) if p.ok and p is not best]
        close = verdict.rivals(cost_interval(best), others)
        rivals = tuple(points[i].value for i in close)
        if rivals:
            names = ", ".join(axis.show(v) for v in (best.value, *rivals))
            overlap = "their 95% intervals overlap"
            notes.insert(0, f"no clear winner between {names}: {overlap}; {SETTLE}")
    rough = [axis.show(p.value) for p in points if p.ok and p.result and imprecise(p.result)]
    if rough:
        notes.append(
            f"{', '.join(rough)}: {MARK} (95% interval wider than ±{PRICE_TOLERANCE:.0%}), so the "
            f"cheapest may be another; {SETTLE}"
        )
    if basis == "owned_usd_per_epoch" and price_basis:
        notes.append(f"$/epoch at {price_basis}")
    if basis == "epoch_seconds":
        price = ask("usd_per_hour")
        notes.append(f"no price given: cheapest = the fastest epoch ({price} prices it)")
    refused = [p for p in points if p.status == "refused"]
    notes += [f"{axis.show(p.value)} not run: {p.message}" for p in refused]
    return StudySummary(
        group_id=group_id,
        axis=axis.name,
        label=axis.label,
        unit=axis.unit,
        model=config.model,
        status=status,
        points=tuple(points),
        cheapest_value=best.value if best else None,
        cheapest_basis=basis,
        rivals=rivals,
        seconds=seconds,
        error=error,
        notes=tuple(notes),
        shown={str(p.value): axis.show(p.value) for p in points},
        positions={str(p.value): axis.position(p.value, p.index) for p in points},
    )
