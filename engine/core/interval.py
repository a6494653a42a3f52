"""The 95% interval of a measured throughput, and of the cost that follows from it.

A run measures several windows (repeats); each window's throughput is samples over the wall
time between two device syncs, and the headline figure is their median. The interval around it
is the wider of:

- windows: Student's t over the window throughputs, t(0.975, n-1) * s / sqrt(n), which holds
  what changes between windows (a busy machine, clocks, caches);
- steps: 1.96 standard errors of the mean step time, relative, which holds the noise inside
  the windows (and is all there is with one window).

Neither sees what changes between runs (pyperf: the spread between processes, not within one,
is what moves a result). Two things do, and both are measured:

- contention: on a CPU, the share `f` of the machine other processes took while the windows ran
  (time stolen by a hypervisor included; engine/measure/busy.py) is time this run lost, and
  another run may lose none of it or more. A step of `threads` threads runs at full speed only
  while all of them hold a core, (1 - f) ** threads of the time, so the loss is
  L = 1 - (1 - f) ** threads (at most MAX_CONTENTION); the interval reaches at least
  center x (1 - L) below and center / (1 - L) above;
- windows that disagree more than their steps explain (the t over the windows more than
  DISAGREE times the steps' interval: a 1% chance for steady windows of independent steps) mean
  the machine's speed changed during the run; the interval keeps their spread, and the run says
  it may not repeat (repeat_warning).

The interval is centred on the headline figure where nothing widens one side; where something
does (the busy share), it is not. `interval_text` is the one way it is written, everywhere:
"±2.1%" where it is symmetric, else its two sides, "-88% / +760%", never a "±" that would put
the figure below zero. Cost per epoch is inversely proportional to throughput: its interval is
the same one, turned over.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
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


# Windows whose t interval is this many times the steps' disagree more than steps explain: with
# 3 windows t(0.975, 2) / 1.96 = 2.2, times 2.15 (the 99th percentile of a spread of 3 from
# chi-square with 2 degrees of freedom) is 4.7; rounded up for steps that are not independent.
DISAGREE = 5.0
# The most of a run's speed the interval takes as lost to others: past it (a tenth of the
# speed) the bound says nothing more, and the busy warning says measure again.
MAX_CONTENTION = 0.9
# What `interval_method` says of an interval widened for the busy share (engine/core/precision.py
# reads it to name the cause).
WIDENED_FOR_OTHERS = "widened for other processes'"


@dataclass(frozen=True)
class Interval:
    """A 95% interval [low, high] around `center`, and how it was found. `disagree`: how many
    times the steps' interval the windows' spread is (None with fewer than 3 windows)."""

    center: float
    low: float
    high: float
    method: str
    disagree: float | None = None

    @property
    def relative(self) -> float:
        """Half the width over the centre (not how it is written: interval_text)."""
        return (self.high - self.low) / 2 / self.center if self.center else math.inf

    def to_list(self) -> list[float]:
        return [self.low, self.high]


@dataclass(frozen=True)
class Steps:
    """What the steps' half of the interval reads of the step times: how many, their mean and
    their standard deviation (n - 1), so that a caller that keeps running sums (the stopping
    rule, engine/core/precision_target.py) need not keep every time."""

    count: int
    mean: float
    sd: float

    @classmethod
    def of(cls, step_times_s: Sequence[float]) -> Steps:
        k = len(step_times_s)
        mean = statistics.fmean(step_times_s) if k else 0.0
        return cls(k, mean, statistics.stdev(step_times_s) if k >= 2 else 0.0)


def halves(center: float, window_rates: Sequence[float], steps: Steps) -> tuple[float, float]:
    """The two relative half widths the interval is the wider of: Student's t over the windows
    (0 below two windows) and 1.96 standard errors of the mean step time (0 below two steps)."""
    n = len(window_rates)
    by_windows = (
        t975(n - 1) * statistics.stdev(window_rates) / math.sqrt(n) / center if n >= 2 else 0.0
    )
    by_steps = (
        1.96 * steps.sd / math.sqrt(steps.count) / steps.mean
        if steps.count >= 2 and steps.mean > 0
        else 0.0
    )
    return by_windows, by_steps


def lost_share(contention: float | None, threads: int) -> float:
    """The share of a run's speed the interval takes as lost to others: a step runs at full
    speed only while all its `threads` hold a core, (1 - f) ** threads of the time (a thread
    preempted stalls the others at their next barrier); at most MAX_CONTENTION."""
    share = min(max(contention or 0.0, 0.0), 1.0)
    return min(1 - (1 - share) ** max(threads, 1), MAX_CONTENTION)


def throughput_interval(
    center: float,
    window_rates: Sequence[float],
    step_times_s: Sequence[float],
    contention: float | None = None,
    threads: int = 1,
) -> Interval:
    """The 95% interval of a throughput measured as the median of `window_rates` (samples/s),
    from those windows and the step times inside them (seconds), widened for `contention`: the
    share of the CPU (0..1) that other processes took while the windows ran (CPU runs only), on
    a step that needs all its `threads` on a core at once."""
    return interval_of(center, window_rates, Steps.of(step_times_s), contention, threads)


def interval_of(
    center: float,
    window_rates: Sequence[float],
    steps: Steps,
    contention: float | None = None,
    threads: int = 1,
) -> Interval:
    """throughput_interval from the step times' moments (Steps) instead of the times."""
    n, k = len(window_rates), steps.count
    by_windows, by_steps = halves(center, window_rates, steps)
    if n >= 2 and by_windows >= by_steps:
        method = f"Student t over {n} windows"
    elif n >= 2:
        method = f"step times ({k} steps, 1.96 SE; wider than the t over {n} windows)"
    else:
        method = f"step times ({k} steps, 1.96 SE; one window)"
    half = max(by_windows, by_steps) * center
    low, high = max(center - half, 0.0), center + half
    share = min(max(contention or 0.0, 0.0), 1.0)
    f = lost_share(contention, threads)
    if f > 0 and (center * (1 - f) < low or center / (1 - f) > high):
        low, high = min(low, center * (1 - f)), max(high, center / (1 - f))
        plural = "s" if threads > 1 else ""
        method += f"; {WIDENED_FOR_OTHERS} {share:.0%} of the CPU ({threads} thread{plural})"
    disagree = by_windows / by_steps if n >= 3 and by_steps > 0 else None
    return Interval(center, low, high, method, disagree)


def repeat_warning(interval: Interval) -> str | None:
    """Said with the result when its windows disagree more than their steps explain."""
    if interval.disagree is None or interval.disagree <= DISAGREE:
        return None
    return (
        f"may not repeat: the windows disagree {interval.disagree:.0f} times more than their "
        "steps explain, so the machine's speed changed during the run (other processes, CPU "
        "time stolen by a hypervisor, clock changes); the interval holds the windows' spread, "
        "but another run may land outside it: measure again, on a quiet machine"
    )


def cost_interval(usd: float, throughput: Interval) -> list[float | None]:
    """[low, high] of a cost that is `usd` at the centre throughput: cost goes as 1/throughput.
    High is None when the throughput interval reaches down to zero."""
    low = usd * throughput.center / throughput.high if throughput.high > 0 else 0.0
    high = usd * throughput.center / throughput.low if throughput.low > 0 else None
    return [low, high]


def interval_text(
    interval: Sequence[float | None] | None,
    center: float | None,
    ends: Callable[[float], str] | None = None,
) -> str:
    """The one way a stored 95% interval [low, high] around `center` is written (the app, the
    command line, the report, exports): how far each end lies from the figure, "±2.1%" where
    both read the same, else "-88% / +760%"; with `ends` (how a value is written) named and
    with its two ends, "95% interval 1.5 to 109.0 (-88% / +760%)". A cost's interval has no
    upper end where the throughput's reaches zero (high None): "no upper bound". "no interval"
    where none was recorded (results stored before intervals)."""
    if not interval or center is None or not center > 0 or interval[0] is None:
        return "no interval"
    low, high = interval[0], interval[1]
    down = _percent((center - low) / center)
    if high is None:
        if ends is None:
            return f"-{down} / no upper bound"
        return f"95% interval {ends(low)} to no upper bound (-{down})"
    up = _percent((high - center) / center)
    # "±" only where both sides read the same and the low side stays above zero: "±100%" would
    # read as a figure that could be nothing.
    sides = f"±{down}" if up == down and (center - low) / center < 0.995 else f"-{down} / +{up}"
    return f"95% interval {ends(low)} to {ends(high)} ({sides})" if ends else sides


def _percent(share: float) -> str:
    """A side of an interval as a percentage: a decimal below 10% ("2.1%"), none above ("760%")."""
    share = max(share, 0.0)
    return f"{share:.1%}" if share < 0.1 else f"{share:.0%}"
