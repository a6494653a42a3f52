"""Stop when precise enough: after each measured window, is the run's 95% interval within its
target precision, and, when the time budget runs out first, how precise it got and about how
long it would have needed (docs/measuring.md, "Stop when precise enough").

A run with a target (RunConfig.target_precision_pct) measures windows until the interval
(engine/core/interval.py, the one the result stores: the windows' t, the steps' noise and the
busy share) has its farthest end within the target of the figure, the half width where the
interval is symmetric. It is never precise

- with fewer than MIN_WINDOWS windows (or `repeats`, if more): below three the windows cannot
  be told to disagree;
- while its windows disagree more than their steps explain (interval.disagree > DISAGREE): the
  machine's speed changed during the run, and more windows would not make them agree.

The worker's loop asks `Tracker` after each window (running sums: no step time is read twice);
the result asks `judge` once over all its windows, so what it records is what its interval says.
When the target is not reached, the time it would have needed is extrapolated from how the
interval shrinks: the windows' t as t(0.975, m - 1) s / sqrt(m) over m windows at this run's
pace, the steps' half as 1 / sqrt(steps). A busy share that alone keeps the interval wider than
the target, or windows that disagree, get no estimate: time does not mend them.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.interval import (
    DISAGREE,
    Interval,
    Steps,
    halves,
    interval_of,
    lost_share,
    t975,
)
from engine.core.text import duration

MIN_WINDOWS = 3  # the fewest whose spread can be told from their steps' (interval.disagree)
MAX_WINDOWS = 200  # a run of tiny windows stops here, as at its budget (the result says so)


def achieved(interval: Interval) -> float:
    """How precise an interval is: its farthest end from the figure, relative (inf: no
    figure)."""
    if not interval.center > 0:
        return math.inf
    return max(interval.center - interval.low, interval.high - interval.center) / interval.center


@dataclass(frozen=True)
class Verdict:
    """Where a run with a target stands: `target` and `achieved` relative (0.03 for ±3%),
    `seconds` the measuring time so far, and, not reached, why not and about how many seconds
    of measuring the target would need (None where time would not reach it)."""

    target: float
    achieved: float
    windows: int
    seconds: float
    reached: bool
    why_not: str | None = None
    seconds_needed: float | None = None

    def record(self, budget_s: float) -> dict[str, Any]:
        """The result's `target_precision` section."""
        return {
            "target": self.target,
            "achieved": self.achieved if math.isfinite(self.achieved) else None,
            "reached": self.reached,
            "windows": self.windows,
            "seconds": self.seconds,
            "budget_s": budget_s,
            "why_not": self.why_not,
            "seconds_needed": self.seconds_needed,
        }


def judge(
    target: float,
    interval: Interval,
    window_rates: Sequence[float],
    steps: Steps,
    seconds: float,
    *,
    contention: float | None = None,
    threads: int = 1,
    min_windows: int = MIN_WINDOWS,
) -> Verdict:
    """The verdict on a run's `interval` (from these windows and steps, widened for
    `contention` on `threads`), measured for `seconds`, against `target` (relative)."""
    n = len(window_rates)
    least = max(min_windows, MIN_WINDOWS)
    got = achieved(interval)
    disagree = interval.disagree is not None and interval.disagree > DISAGREE
    if n >= least and not disagree and got <= target:
        return Verdict(target, got, n, seconds, True)
    lost = lost_share(contention, threads)
    floor = 1 / (1 - lost) - 1  # the busy share's side above the figure, however long
    if floor > target:
        share = min(max(contention or 0.0, 0.0), 1.0)
        why = (
            f"other processes used {share:.0%} of the CPU: that alone keeps the interval wider "
            f"than ±{percent(target)} however long it runs; measure again on a quiet machine"
        )
        return Verdict(target, got, n, seconds, False, why)
    if disagree:
        why = (
            f"its windows disagree {interval.disagree:.0f} times more than their steps explain "
            "(the machine's speed changed during the run), and more windows do not make them "
            "agree; measure again on a quiet machine"
        )
        return Verdict(target, got, n, seconds, False, why)
    needed = _seconds_needed(target, interval.center, window_rates, steps, seconds, least)
    if n < least:
        why = f"the time held {n} window{'s' if n != 1 else ''}; it takes {least} to tell"
    elif n >= MAX_WINDOWS:
        why = f"it stopped at {MAX_WINDOWS} windows"
    else:
        why = "the time ran out first"
    return Verdict(target, got, n, seconds, False, why, needed)


def _seconds_needed(
    target: float,
    center: float,
    window_rates: Sequence[float],
    steps: Steps,
    seconds: float,
    least: int,
) -> float | None:
    """Measuring seconds at which the interval's halves would be within `target`, at this
    run's pace (seconds per window), from how they shrink with more windows and steps."""
    n = len(window_rates)
    if n == 0 or seconds <= 0 or not center > 0:
        return None
    by_windows, by_steps = halves(center, window_rates, steps)
    windows = least
    if by_steps > target:  # the steps' half goes as 1/sqrt(steps): windows of this length
        windows = max(windows, math.ceil(n * (by_steps / target) ** 2))
    if n >= 2:
        spread = statistics.stdev(window_rates) / center
        windows = max(windows, _windows_for(spread, target))
    return windows * seconds / n


def _windows_for(spread: float, target: float) -> int:
    """The fewest windows m whose t(0.975, m - 1) x spread / sqrt(m) is within `target`."""
    for m in range(2, 121):
        if t975(m - 1) * spread / math.sqrt(m) <= target:
            return m
    return max(121, math.ceil((1.96 * spread / target) ** 2))


class Tracker:
    """A run's windows so far, as the worker's loop adds them, and its verdict after each."""

    def __init__(self, target: float, min_windows: int = MIN_WINDOWS, threads: int = 1) -> None:
        self.target = target
        self.min_windows = min_windows
        self.threads = threads
        self.rates: list[float] = []
        self._count, self._mean, self._m2 = 0, 0.0, 0.0  # Welford's running moments

    def add(self, rate: float, step_times_s: Sequence[float]) -> None:
        """One finished window: its throughput and its step times."""
        self.rates.append(rate)
        for x in step_times_s:
            self._count += 1
            delta = x - self._mean
            self._mean += delta / self._count
            self._m2 += delta * (x - self._mean)

    @property
    def steps(self) -> Steps:
        sd = math.sqrt(self._m2 / (self._count - 1)) if self._count >= 2 else 0.0
        return Steps(self._count, self._mean, sd)

    def interval(self, contention: float | None = None) -> Interval:
        """The interval the result would store now (its figure the median of the windows)."""
        center = statistics.median(self.rates)
        return interval_of(center, self.rates, self.steps, contention, self.threads)

    def verdict(self, seconds: float, contention: float | None = None) -> Verdict:
        return judge(
            self.target,
            self.interval(contention),
            self.rates,
            self.steps,
            seconds,
            contention=contention,
            threads=self.threads,
            min_windows=self.min_windows,
        )


def percent(share: float) -> str:
    """A precision as people write it: 3%, 4.1%, 0.01%, 229%."""
    value = share * 100
    return f"{value:.0f}%" if value >= 10 else f"{value:.2g}%"


def achieved_text(achieved: float | None) -> str:
    """How far the interval's farther end lies from the figure, as a target is written: "±2.4%"
    (both ends within 2.4%); from 100% on, "far end 758% off", since "±758%" would read as a
    throughput that could be negative (the interval itself is written by interval_text)."""
    if not isinstance(achieved, int | float):
        return "no interval"
    shown = percent(achieved)
    return f"far end {shown} off" if float(shown.rstrip("%")) >= 100 else f"±{shown}"


def target_text(section: dict[str, Any]) -> str:
    """One line for a result's `target_precision` section: 'target ±3% reached (±2.4%, 7
    windows in 41.2 s)', or 'target ±3% not reached in 60 s: ±4.1% after 9 windows; the time
    ran out first; about 2 min 10 s of measuring would reach it (--max-seconds 130)'."""
    target, got = section.get("target"), section.get("achieved")
    shown = achieved_text(got)
    windows, seconds = section.get("windows") or 0, section.get("seconds") or 0.0
    counted = f"{windows} window{'s' if windows != 1 else ''} in {duration(seconds)}"
    if section.get("reached"):
        return f"target ±{percent(target or 0)} reached ({shown}, {counted})"
    text = f"target ±{percent(target or 0)} not reached: {shown} after {counted}"
    if section.get("why_not"):
        text += f"; {section['why_not']}"
    needed = section.get("seconds_needed")
    if isinstance(needed, int | float):
        limit = max(1, math.ceil(needed * 1.2))  # rounded up: an estimate
        text += (
            f"; about {duration(needed)} of measuring would reach it "
            f"(--max-seconds {limit}, or Max. time (s) in the app)"
        )
    return text
