"""Step timers shared by the backends."""

from __future__ import annotations

import time
from collections import deque
from typing import Any


class WallTimer:
    """The clock on the host (PyTorch and TensorFlow on the CPU, where a step returns only when
    its work is done), in a chain as DeviceEventTimer's: a step's time runs from the end of the
    step before it (the first after start(): from start()) to its own end, so the loop's own
    time between two steps counts, as it does in the run's time. One clock read a step."""

    def __init__(self) -> None:
        self._last: float | None = None  # the previous step's end; None: no chain
        self._done: list[float] = []

    def start(self) -> None:
        if self._last is None:
            self._last = time.perf_counter()

    def stop(self) -> None:
        now = time.perf_counter()
        self._done.append(now - self._last)  # type: ignore[operator]
        self._last = now

    def completed(self) -> list[float]:
        done, self._done = self._done, []
        return done

    def flush(self) -> list[float]:
        """Every step's time; the next step starts a new chain."""
        self._last = None
        return self.completed()


class DeviceEventTimer:
    """Device events (CUDA or MPS events with timing) read back when the device has passed
    them, so no step waits for the device.

    One event is recorded after each step; a step's time is the device time from the event
    before it (the first step after a flush: from an event recorded as it starts) to its own.
    That counts any gap in which the device waited for the host to queue the step, which is
    the time the step costs a run. Events are reused once read: creating and destroying two
    events a step, with a second record, cost a millisecond step on an H200 about 10% against
    a hand-written loop (benchmarks/harness_overhead.py --device cuda:0, 2026-11-26)."""

    def __init__(self, event_factory: Any, stream: Any = None) -> None:
        self._make = event_factory
        # CUDA: the stream to record on, looked up once (record() with none asks PyTorch for
        # the current stream every time); None: the event's own default (MPS takes none).
        self._stream = stream
        self._free: list[Any] = []
        self._pending: deque[Any] = deque()
        self._last: Any = None  # the event the next step's time starts from; None after flush

    def _event(self) -> Any:
        event = self._free.pop() if self._free else self._make()
        if self._stream is None:
            event.record()
        else:
            event.record(self._stream)
        return event

    def start(self) -> None:
        if self._last is None:
            self._last = self._event()

    def stop(self) -> None:
        self._pending.append(self._event())

    def _read(self, end: Any) -> float:
        seconds = self._last.elapsed_time(end) / 1000.0  # elapsed_time is in ms
        self._free.append(self._last)
        self._last = end
        return seconds

    def completed(self) -> list[float]:
        out = []
        while self._pending and self._pending[0].query():
            out.append(self._read(self._pending.popleft()))
        return out

    def flush(self) -> list[float]:
        """Every step's time, waiting for the device; the next step starts a new chain."""
        out = []
        while self._pending:
            end = self._pending.popleft()
            end.synchronize()
            out.append(self._read(end))
        if self._last is not None:
            self._free.append(self._last)
            self._last = None
        return out
