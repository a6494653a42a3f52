"""Batch sizes to try: the max-fit search plan, sweep lists, the safety margin. Pure logic.

The search (MaxFitSearch) doubles from a start until a batch does not fit (or a limit is
reached), then bisects between the last fit and the first failure in multiples of `multiple`.
It only ever proposes sizes; whoever runs them tells it what fitted, so the same plan serves
real workers, tests and the benchmark's comparison with a plain doubling search.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.value_lists import parse_values
from engine.study.axes import BATCH_SIZES


@dataclass
class MaxFitSearch:
    """Largest batch that fits. `next_size()` proposes, `record(size, fits)` answers."""

    start: int = 16
    multiple: int = 8
    limit: int | None = None  # never propose more (user maximum, device memory)
    tried: dict[int, bool] = field(default_factory=dict)

    @property
    def largest_fit(self) -> int | None:
        fits = [b for b, ok in self.tried.items() if ok]
        return max(fits) if fits else None

    @property
    def smallest_failure(self) -> int | None:
        failures = [b for b, ok in self.tried.items() if not ok]
        return min(failures) if failures else None

    def record(self, size: int, fits: bool) -> None:
        self.tried[size] = fits

    def next_size(self) -> int | None:
        """The next batch size to try, or None when the search is done."""
        lo, hi = self.largest_fit, self.smallest_failure
        if not self.tried:
            return self._capped(self.start)
        if lo is None:  # nothing fits yet: halve towards 1
            assert hi is not None
            return hi // 2 if hi > 1 else None
        if hi is None:  # doubling until the first failure or the limit
            nxt = self._capped(lo * 2)
            return nxt if nxt > lo else None
        return _multiple_between(lo, hi, self.multiple)

    def _capped(self, size: int) -> int:
        return min(size, self.limit) if self.limit else size

    @property
    def reached_limit(self) -> bool:
        """True when the limit itself fitted: the real boundary lies higher."""
        return self.limit is not None and self.tried.get(self.limit) is True


def _multiple_between(lo: int, hi: int, multiple: int) -> int | None:
    """The middle multiple of `multiple` strictly between lo and hi, or None if none is."""
    first, last = lo // multiple + 1, (hi - 1) // multiple
    if first > last:
        return None
    return (first + last) // 2 * multiple


def recommended_size(max_fit: int, margin: float, multiple: int) -> int:
    """`margin` below the max fit, rounded down to a multiple (never 0, never above max_fit)."""
    target = max_fit * (1.0 - margin)
    rounded = int(target // multiple) * multiple
    if rounded >= 1:
        return rounded
    return max(1, int(target))


def powers_of_two(start: int, top: int) -> list[int]:
    """start, 2*start, 4*start, ... up to and including top."""
    sizes, size = [], start
    while size <= top:
        sizes.append(size)
        size *= 2
    return sizes


def parse_batch_sizes(text: str) -> tuple[int, ...]:
    """'16,32,64', '16:256' (doubling), '16:128:16' (steps of 16), or a mix: sorted, unique."""
    return parse_values(text, BATCH_SIZES)
