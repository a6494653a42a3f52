"""A timer that kills a process when a stage runs past its time limit (a model file's build,
a data-parallel run's rendezvous), and remembers why."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable


class Watchdog:
    """Kills a process when a stage runs past its time limit, and remembers why."""

    def __init__(self, proc: subprocess.Popen[str], kill: Callable[[], None] | None = None) -> None:
        self._proc = proc
        self._kill = kill or proc.kill
        self._timer: threading.Timer | None = None
        self.fired: str | None = None  # the reason given to arm(), once it has fired
        self.kind = "config"  # the failure's kind, given to arm()

    @property
    def armed(self) -> bool:
        return self._timer is not None

    def arm(self, seconds: float, reason: str, kind: str = "config") -> None:
        self.disarm()
        self.kind = kind
        self._timer = threading.Timer(seconds, self._fire, args=(reason,))
        self._timer.daemon = True
        self._timer.start()

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self, reason: str) -> None:
        if self._proc.poll() is None:
            self.fired = reason
            self._kill()
