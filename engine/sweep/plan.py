"""SweepPlan: which batch sizes a sweep measures, validated into ConfigError like RunConfig."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from engine.core.errors import ConfigError
from engine.measure.config import MAX_BATCH_SIZE
from engine.study.axes import MAX_SWEEP_SIZES

# Short runs that decide "fits" in the max-fit search: a few full optimizer steps each.
PROBE_WARMUP_STEPS = 2
PROBE_STEPS = 3


@dataclass(frozen=True)
class SweepPlan:
    """What to measure. Modes:

    - "sizes": each of `batch_sizes`, as a normal run;
    - "max-fit": the largest batch that fits, and a recommended one `margin` below it;
    - "full": the max-fit search, then powers of two from `start` up to the max fit.
    """

    batch_sizes: tuple[int, ...] = ()
    max_fit: bool = False
    start: int = 16
    multiple: int = 8
    margin: float = 0.10  # recommended = max fit minus this fraction, rounded down
    max_batch: int | None = None
    knee_tolerance: float = 0.05  # knee = smallest batch within this of the best throughput
    skip_after_oom: bool = True  # in "sizes": a batch above one that did not fit is skipped

    @property
    def mode(self) -> str:
        if self.batch_sizes:
            return "sizes"
        return "max-fit" if self.max_fit else "full"

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, **asdict(self)}

    def validated(self) -> SweepPlan:
        """Return self if every field is valid, else raise ConfigError naming the field."""
        if self.batch_sizes and self.max_fit:
            raise ConfigError("batch_sizes", "give batch sizes or --max-fit, not both")
        if len(self.batch_sizes) > MAX_SWEEP_SIZES:
            raise ConfigError("batch_sizes", f"more than {MAX_SWEEP_SIZES} batch sizes")
        for size in self.batch_sizes:
            _whole("batch_sizes", size, 1, MAX_BATCH_SIZE)
        _whole("start", self.start, 1, MAX_BATCH_SIZE)
        _whole("multiple", self.multiple, 1, MAX_BATCH_SIZE)
        _fraction("margin", self.margin, 0.0, 0.9)
        _fraction("knee_tolerance", self.knee_tolerance, 0.0, 0.9)
        if self.max_batch is not None:
            _whole("max_batch", self.max_batch, 1, MAX_BATCH_SIZE)
            if self.max_batch < self.start:
                raise ConfigError(
                    "max_batch", f"{self.max_batch} is below the start ({self.start})"
                )
        return self


def _whole(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(name, f"{value!r} is not a whole number (allowed {low} to {high})")
    if not low <= value <= high:
        raise ConfigError(name, f"{value} is out of range (allowed {low} to {high})")


def _fraction(name: str, value: Any, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ConfigError(name, f"{value!r} is not a number (allowed {low:g} to {high:g})")
    if not low <= value <= high:
        raise ConfigError(name, f"{value:g} is out of range (allowed {low:g} to {high:g})")
