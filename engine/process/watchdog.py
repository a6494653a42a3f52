"""A timer that kills a process when a stage runs past its time limit (a model file's build,
a data-parallel run's rendezvous), and remembers why.

A model file's `building` phase runs the user's code, which the worker cannot stop (an
input(), a download, a loop at import): `time_building` keeps the timer armed from that
phase's start to its end, for a measurement's worker (launcher.py) and a model-file check
(model_check.py) alike."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol


class Process(Protocol):
    """What the watchdog uses of a process: a subprocess.Popen, a forked worker."""

    def poll(self) -> int | None: ...

    def kill(self) -> None: ...


class Watchdog:
    """Kills a process when a stage runs past its time limit, and remembers why."""

    def __init__(self, proc: Process, kill: Callable[[], None] | None = None) -> None:
        self._proc = proc
        self._kill = kill or proc.kill
        self._timer: threading.Timer | None = None
        self.fired: str | None = None  # the reason given to arm(), once it has fired
        self.kind = "config"  # the failure's kind, given to arm()
        self._reason = ""  # what the armed timer is for

    @property
    def armed(self) -> bool:
        return self._timer is not None

    def arm(self, seconds: float, reason: str, kind: str = "config") -> None:
        self.disarm()
        self.kind = kind
        self._reason = reason
        self._timer = threading.Timer(seconds, self._fire, args=(reason,))
        self._timer.daemon = True
        self._timer.start()

    def time_building(self, phase: str, seconds: float, reason: str, ended: bool = False) -> None:
        """Follow the worker's phase: armed for `seconds` when `building` starts, disarmed when
        another phase starts or the worker has `ended` (its verdict is in)."""
        if phase == "building" and not ended:
            if not (self.armed and self._reason == reason):  # replaces a start-up timer
                self.arm(seconds, reason)
        else:
            self.disarm()

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self, reason: str) -> None:
        if self._proc.poll() is None:
            self.fired = reason
            self._kill()
