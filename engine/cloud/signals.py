"""Signals during a cloud run: SIGTERM and SIGHUP stop it as Ctrl-C does, so that the
cluster is torn down whatever ends epochcost (a closed terminal, a service manager, `kill`);
while the teardown runs, they are held off, so a second one cannot stop it half way.

`stopping()` turns SIGTERM and SIGHUP into KeyboardInterrupt in the main thread for its
duration (a no-op off the main thread: the app's background job is cancelled by the app).
`held()` keeps SIGINT, SIGTERM and SIGHUP from stopping its block (a teardown: the stop they
ask for is what it is doing already).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

STOPPING = (signal.SIGTERM, signal.SIGHUP)
HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def _ignore(signum: int, frame: FrameType | None) -> None:
    """A handler that does nothing (a teardown goes on)."""


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def stopping() -> Iterator[None]:
    """SIGTERM and SIGHUP raise KeyboardInterrupt here, as SIGINT does."""
    if not _main_thread():
        yield
        return
    before = {s: signal.signal(s, _interrupt) for s in STOPPING}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP do not stop the block."""
    if not _main_thread():
        yield
        return
    before = {s: signal.signal(s, _ignore) for s in HELD}  # not SIG_IGN: children inherit it
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
