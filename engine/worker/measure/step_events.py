"""Step events coalesced (engine/core/events.py, Step): the measuring loop's steps go out at
least every STEP_EVENT_EVERY_S and at the end of warm-up and of each window, each event with
the window's samples and wall time so far (engine/worker/measure/loop.py runs the steps)."""

from __future__ import annotations

import time

from engine.core.events import STEP_EVENT_EVERY_S, Step


class Clock:
    def __init__(self) -> None:
        self.t0 = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0


class Pending:
    """Step times not yet sent, coalesced into one `step` event (engine/core/events.py) at least
    every STEP_EVENT_EVERY_S and at the end of warm-up and of each window; writing an event per
    step would cost a tiny model a good part of its throughput."""

    def __init__(self, run_id: str, batch: int, clock: Clock) -> None:
        self.run_id, self.batch, self.clock = run_id, batch, clock
        self.times: list[float] = []
        self.index = 0  # the first pending step's index in its warm-up or window
        self.measured, self.repeat = False, 0
        self.window_t0 = 0.0
        self.sent = time.perf_counter()
        # The session's input waits (engine/worker/measure/session.py), None: synthetic.
        self.waits: list[float] | None = None
        self.waits_sent = 0

    def begin(self, measured: bool, repeat: int = 0, window_t0: float = 0.0) -> None:
        self.times, self.index = [], 0
        self.measured, self.repeat, self.window_t0 = measured, repeat, window_t0
        if self.waits is not None:  # each warm-up and window counts its own waits
            self.waits.clear()
            self.waits_sent = 0

    def _new_waits(self) -> list[float] | None:
        if self.waits is None:
            return None
        new = self.waits[self.waits_sent :]
        self.waits_sent = len(self.waits)
        return new

    def due(self, now: float) -> bool:
        return now - self.sent >= STEP_EVENT_EVERY_S

    def take(self, window: tuple[int, float] | None = None) -> Step:
        """The pending steps as one event; measured, with the window so far (samples, wall
        seconds), or with `window`: the window's own figures at its end."""
        now = time.perf_counter()
        times, self.times = self.times, []
        samples, seconds = (
            (0, 0.0)
            if not self.measured
            else ((self.index + len(times)) * self.batch, now - self.window_t0)
        )
        if window is not None:
            samples, seconds = window
        event = Step(
            run_id=self.run_id,
            index=self.index,
            step_times_s=times,
            samples=self.batch,
            measured=self.measured,
            repeat=self.repeat,
            elapsed_s=now - self.clock.t0,
            window_samples=samples,
            window_seconds=seconds,
            window_done=window is not None,
            input_wait_s=self._new_waits(),
        )
        self.index += len(times)
        self.sent = now
        return event

    def collect(self, done: list[float], window: list[float]) -> None:
        """Steps' times the timer has finished: into the warm-up's or the window's list
        (`window`) and the next event's."""
        window += done
        self.times += done
