"""Step timers shared by the backends."""

from __future__ import annotations

import time
from collections import deque
from typing import Any


class WallTimer:
    """perf_counter around each step: right where a step returns only when its work is done
    (PyTorch and TensorFlow on the CPU)."""

    def __init__(self) -> None:
        self._t0 = 0.0
        self._done: list[float] = []

    def start(self) -> None:
        self._t0 = time.perf_counter()

    def stop(self) -> None:
        self._done.append(time.perf_counter() - self._t0)

    def completed(self) -> list[float]:
        done, self._done = self._done, []
        return done

    def flush(self) -> list[float]:
        return self.completed()


class DeviceEventTimer:
    """Device events recorded around each step (CUDA or MPS events with timing), read back
    when the device has passed them, so no step waits for the device."""

    def __init__(self, event_factory: Any) -> None:
        self._make = event_factory
        self._pending: deque[tuple[Any, Any]] = deque()
        self._start: Any = None

    def start(self) -> None:
        self._start = self._make()
        self._start.record()

    def stop(self) -> None:
        end = self._make()
        end.record()
        self._pending.append((self._start, end))

    def completed(self) -> list[float]:
        out = []
        while self._pending and self._pending[0][1].query():
            start, end = self._pending.popleft()
            out.append(start.elapsed_time(end) / 1000.0)  # elapsed_time is in ms
        return out

    def flush(self) -> list[float]:
        out = []
        while self._pending:
            start, end = self._pending.popleft()
            end.synchronize()
            out.append(start.elapsed_time(end) / 1000.0)
        return out
