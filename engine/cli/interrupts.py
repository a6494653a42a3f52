"""Signals that stop a command as Ctrl-C does: inside `as_interrupt()`, SIGINT, SIGTERM and SIGHUP
(Ctrl-C, a `kill`, the terminal closed) raise Stopped, a KeyboardInterrupt, in the main thread.

Used around work that leaves something behind when cut short (env create's installer and its
half-made folder, make-imagefolder's images): what it cleans up on Ctrl-C it cleans up on the
others too. After the first signal the others are ignored until the block ends, so that the
clean-up is not cut short in its turn. The exit code is the shell's, 128 + the signal.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


class Stopped(KeyboardInterrupt):
    """A signal that stopped the block: its number, name and the exit code it gives."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        """How a person would say what stopped it: Ctrl-C, SIGTERM, SIGHUP."""
        return "Ctrl-C" if self.signum == signal.SIGINT else signal.Signals(self.signum).name


def signum(exc: BaseException) -> int:
    """The signal behind an interrupt: Stopped's, else SIGINT (a plain KeyboardInterrupt)."""
    return exc.signum if isinstance(exc, Stopped) else int(signal.SIGINT)


def exit_code(exc: BaseException) -> int:
    """128 + the signal, as a shell reports a command a signal ended (130 for Ctrl-C)."""
    return 128 + signum(exc)


@contextlib.contextmanager
def as_interrupt() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP raise Stopped while the block runs (the main thread only: no
    other may set handlers; elsewhere the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = [signal.SIGINT, signal.SIGTERM]
    caught += [signal.SIGHUP] if hasattr(signal, "SIGHUP") else []

    def interrupt(number: int, _frame: object) -> None:
        for sig in caught:
            signal.signal(sig, signal.SIG_IGN)
        raise Stopped(number)

    before = {sig: signal.signal(sig, interrupt) for sig in caught}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
