"""The 95% interval of a measured throughput, and of the cost that follows from it.

A run measures several windows (repeats); each window's throughput is samples over the wall
time between two device syncs, and the headline figure is their median. The interval around it
is the wider of:

- windows: Student's t over the window throughputs, t(0.975, n-1) * s / sqrt(n), which holds
  what changes between windows (a busy machine, clocks, caches);
- steps: 1.96 standard errors of the mean step time, relative, which holds the noise inside
  the windows (and is all there is with one window).

The interval is centred on the headline figure, so that "76.7 samples/s ± 2.1%" reads true. Cost
per epoch is inversely proportional to throughput: its interval is the same one, turned over.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

# t(0.975, df) for df = 1..30; past 30 it comes close to the normal 1.96.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t975(df: int) -> float:
    """The two-sided 95% quantile of Student's t with `df` degrees of freedom."""
    if df < 1:
        raise ValueError("t needs at least one degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    return 2.000 if df <= 60 else 1.980 if df <= 120 else 1.960


@dataclass(frozen=True)
class Interval:
    """A 95% interval [low, high] around `center`, and how it was found."""

    center: float
    low: float
    high: float
    method: str

    @property
    def relative(self) -> float:
        """Half the width over the centre: the "± 2.1%"."""
        return (self.high - self.low) / 2 / self.center if self.center else math.inf

    def to_list(self) -> list[float]:
        return [self.low, self.high]


def throughput_interval(
    center: float, window_rates: Sequence[float], step_times_s: Sequence[float]
) -> Interval:
    """The 95% interval of a throughput measured as the median of `window_rates` (samples/s),
    from those windows and the step times inside them (seconds)."""
    n, k = len(window_rates), len(step_times_s)
    by_windows = (
        t975(n - 1) * statistics.stdev(window_rates) / math.sqrt(n) / center if n >= 2 else 0.0
    )
    mean_step = statistics.fmean(step_times_s) if k else 0.0
    by_steps = (
        1.96 * statistics.stdev(step_times_s) / math.sqrt(k) / mean_step
        if k >= 2 and mean_step > 0
        else 0.0
    )
    if n >= 2 and by_windows >= by_steps:
        method = f"Student t over {n} windows"
    elif n >= 2:
        method = f"step times ({k} steps, 1.96 SE; wider than the t over {n} windows)"
    else:
        method = f"step times ({k} steps, 1.96 SE; one window)"
    half = max(by_windows, by_steps) * center
    return Interval(center, max(center - half, 0.0), center + half, method)


def cost_interval(usd: float, throughput: Interval) -> list[float | None]:
    """[low, high] of a cost that is `usd` at the centre throughput: cost goes as 1/throughput.
    High is None when the throughput interval reaches down to zero."""
    low = usd * throughput.center / throughput.high if throughput.high > 0 else 0.0
    high = usd * throughput.center / throughput.low if throughput.low > 0 else None
    return [low, high]


def plus_minus(interval: list[float | None] | None, center: float | None) -> str:
    """'± 2.1%' for a stored [low, high] around `center`; 'no interval' where there is none."""
    if not interval or center is None or center <= 0:
        return "no interval"
    low, high = interval
    if low is None or high is None:
        return "± more than 100%"
    return f"± {(high - low) / 2 / center:.1%}"
