"""Verdicts that respect the noise: which options the measurements cannot tell from the best.

A sweep and an accuracy study each name a cheapest batch size. Where the best one's 95%
interval overlaps another's, the data do not say which is cheaper, and the verdict says "no
clear winner between A and B" and what would settle it, here, so that the command line and the
app say the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.core.interval import interval_text, t975
from engine.core.stats import Spread

Interval = tuple[float, float]  # (low, high)


def mean_interval(s: Spread) -> Interval | None:
    """The 95% interval of a mean over repeats (Student's t); None below two values."""
    if s.mean is None or s.std is None or s.n < 2:
        return None
    half = t975(s.n - 1) * s.std / math.sqrt(s.n)
    return s.mean - half, s.mean + half


def overlaps(a: Interval, b: Interval) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def rivals(best: Interval | None, others: Sequence[tuple[int, Interval | None]]) -> tuple[int, ...]:
    """The options (by their batch size) the data cannot tell from the best: those whose 95%
    interval overlaps its own. Without intervals (a single repeat, a result stored before
    epochcost kept one) there is nothing to judge by, and none is named."""
    if best is None:
        return ()
    return tuple(b for b, i in others if i is not None and overlaps(best, i))


def no_clear_winner(best: int, close: Sequence[int], settle: str, widths: str = "") -> str:
    """'no clear winner between batch 64 and batch 128: their 95% intervals overlap (±32%,
    ±73%); `settle`' (what would tell them apart)."""
    names = [f"batch {b}" for b in (best, *close)]
    between = ", ".join(names[:-1]) + f" and {names[-1]}"
    widths = f" ({widths})" if widths else ""
    return f"no clear winner between {between}: their 95% intervals overlap{widths}; {settle}"


def spread_text(interval: Interval | None, center: float | None) -> str:
    """'±32%' (or '-40% / +73%') of an interval around its centre, as interval_text writes
    every interval; 'no interval' without one."""
    if interval is None or not center:
        return "no interval"
    return interval_text(interval, abs(center))
