"""What a command writes: exactly one JSON document on stdout (`print_json`), live progress on
stderr (`Progress`: a bar on a terminal, phase lines otherwise)."""

from __future__ import annotations

import json
import math
import sys
import time
from typing import Any, TextIO

from engine.core.events import Event, Phase, Step


def print_json(data: Any) -> None:
    """Exactly one JSON document on stdout; a number that is not finite (NaN, infinity) is
    written as null, never as JSON no other reader takes."""
    sys.stdout.write(json.dumps(finite(data), indent=2, allow_nan=False) + "\n")


def finite(data: Any) -> Any:
    """`data` with every NaN or infinite float replaced by None."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [finite(v) for v in data]
    return data


class Progress:
    """Live progress on stderr: a bar on a terminal, phase lines otherwise."""

    def __init__(self, stream: TextIO = sys.stderr, label: str = "") -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.label = label
        self.t0 = time.monotonic()
        self.expected = 0
        self.measured = 0
        self.phase = ""
        self.rate = 0.0
        self._last_draw = 0.0

    def __call__(self, event: Event) -> None:
        if isinstance(event, Phase):
            self.phase = event.phase
            self.expected = event.expected_steps or 0
            self.measured, self.rate = 0, 0.0
            detail = f" ({event.detail})" if event.detail else ""
            if ", until " not in detail or "(repeat 1," in detail:  # a target's windows: once
                self._line(f"{self.phase}{detail}")
        elif isinstance(event, Step):
            self.measured += event.steps  # an event carries the steps since the last one
            if event.measured:
                self.rate = event.window_throughput or self.rate
            elif event.steps:
                self.rate = self.per_step_rate(event)
            if self.tty and time.monotonic() - self._last_draw > 0.1:
                self._bar()

    @staticmethod
    def per_step_rate(step: Step) -> float:
        """Samples / step time over an event's steps (warm-up has no window)."""
        seconds = sum(t for t in step.step_times_s if t is not None)
        return step.samples * step.steps / seconds if seconds > 0 else 0.0

    def _line(self, text: str) -> None:
        elapsed = time.monotonic() - self.t0
        prefix = f"{self.label} " if self.label else ""
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(f"[{elapsed:6.1f}s] {prefix}{text}\n")
        self.stream.flush()

    def _bar(self) -> None:
        """Measuring, the window's samples / wall time so far: the statistic the result keeps
        (its figure is the median of the windows'); in warm-up, samples / step time."""
        self._last_draw = time.monotonic()
        width = 30
        total = max(self.expected, self.measured)
        filled = int(width * self.measured / total) if total else 0
        what = "this window" if self.phase == "measuring" else "per step"
        self.stream.write(
            f"\r\033[K{self.phase:9s} [{'#' * filled}{'.' * (width - filled)}] "
            f"{self.measured}/{total} steps  {self.rate:,.1f} samples/s {what}"
        )
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()
