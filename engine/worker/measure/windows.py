"""How many windows a timed run measures (engine/worker/measure/loop.py runs each one): its
`repeats`, each of up to max_seconds; or, with a target precision (RunConfig
.target_precision_pct), windows until the run's 95% interval is within it
(engine/core/precision_target.py), max_seconds then being the budget of all of them together.

With a target, the first window may take the whole budget; a later one starts only while a
window of this run's mean length fits in what is left, and its own time limit is what is left.
After each window the interval so far goes out in a `precision` event (the app draws it
narrowing). Other processes' share of the CPU is read at most every CONTENTION_EVERY_S
(reading it walks the process table: milliseconds, a good part of a tiny model's window). The
ranks of a data-parallel run stop together: when any of them says so.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from engine.core.events import Precision
from engine.core.precision_target import MAX_WINDOWS, Tracker
from engine.measure.config import RunConfig
from engine.worker.measure.session import ProcessGroup

CONTENTION_EVERY_S = 0.5


class Windows:
    """The windows of one run: which config the next one runs under, and when to stop."""

    def __init__(
        self,
        config: RunConfig,
        contention: Callable[[], float | None],
        threads: int = 1,
        group: ProcessGroup | None = None,
    ) -> None:
        self.config = config
        self.contention = contention  # other processes' CPU share so far (None: not a CPU)
        self.group = group
        self.count = 0
        self.t0: float | None = None  # the first window's start (the budget's)
        self.stop = False
        self._share: tuple[float, float | None] | None = None  # (read at, share)
        pct = config.target_precision_pct
        self.tracker = None if pct is None else Tracker(pct / 100, max(config.repeats, 1), threads)

    @property
    def seconds(self) -> float:
        """Measuring time so far, from the first window's start."""
        return 0.0 if self.t0 is None else time.perf_counter() - self.t0

    def next(self) -> RunConfig | None:
        """The config the next window runs under (its own time limit), or None: no more."""
        if self.tracker is None:
            return self.config if self.count < self.config.repeats else None
        if self.t0 is None:
            self.t0 = time.perf_counter()
            return self.config
        if self.stop:
            return None
        left = self.config.max_seconds - self.seconds
        return dataclasses.replace(self.config, max_seconds=left)

    def _contention(self, fresh: bool = False) -> float | None:
        """Other processes' share so far: read afresh when asked, when none was read (or it was
        too soon to tell), or CONTENTION_EVERY_S after the last reading."""
        now = time.perf_counter()
        last = self._share
        if fresh or last is None or last[1] is None or now - last[0] >= CONTENTION_EVERY_S:
            self._share = last = (now, self.contention())
        return last[1]

    def detail(self) -> str:
        """The window's phase detail: 'repeat 2 of 3', or 'repeat 2, until ±3% or 60 s'."""
        n = self.count + 1
        if self.tracker is None:
            return f"repeat {n} of {self.config.repeats}"
        return (
            f"repeat {n}, until ±{self.config.target_precision_pct:g}% or "
            f"{self.config.max_seconds:g} s"
        )

    def ended(
        self, rate: float, step_times_s: list[float], run_id: str, elapsed_s: float
    ) -> Precision | None:
        """A window ended with throughput `rate`: with a target, the interval so far as an
        event, and whether to go on decided (the ranks agreeing)."""
        self.count += 1
        if self.tracker is None:
            return None
        self.tracker.add(rate, step_times_s)
        seconds = self.seconds
        before = self._share
        contention = self._contention()
        verdict = self.tracker.verdict(seconds, contention)
        if verdict.reached and self._share is before:  # judged by an earlier reading:
            contention = self._contention(fresh=True)  # precise by the share as it is now?
            verdict = self.tracker.verdict(seconds, contention)
        fits = seconds + seconds / self.count <= self.config.max_seconds
        stop = verdict.reached or not fits or self.count >= MAX_WINDOWS
        if self.group is not None:
            stop = bool(self.group.agree([int(stop)])[0])
        self.stop = stop
        interval = self.tracker.interval(contention)
        return Precision(
            run_id=run_id,
            elapsed_s=elapsed_s,
            windows=self.count,
            figure=interval.center,
            low=interval.low,
            high=interval.high,
            achieved=verdict.achieved,
            target=verdict.target,
            reached=verdict.reached,
            seconds=seconds,
            budget_s=self.config.max_seconds,
        )
