"""BackgroundJob: run one blocking engine call on a QThread and hand what it yields to the GUI.

The engine's long calls (a sweep's events(), an accuracy study, a model-file check) block and
are cancelled from another thread. A tab wraps one in a BackgroundJob:

    job = BackgroundJob(lambda emit: [emit(e) for e in sweep.events()], cancel=sweep.cancel)
    job.item.connect(self.on_event)      # each emitted object, emitted on the GUI thread
    job.done.connect(self.on_done)       # once, after the work returned or raised
    job.start()

`item` and `done` are emitted on the GUI thread, not the job's: the work's thread emits private
signals that one @Slot of the job (which lives on the GUI thread) re-emits there. So any
receiver (a lambda, a plain method, pytest-qt's waitSignal) is called on the GUI thread with no
cross-thread dispatch of its own: PySide6 6.8+ can crash when a signal carrying a Python
object crosses threads into a callable that is not a Slot and that disconnects itself
(PYSIDE-3124; a stress test here crashed within a minute, and never with the relay).

`done` carries the work's return value, or an `JobError` when it raised (the message for the
user and the traceback for the details), so an engine bug ends in a message, never a crash.
The thread is never terminated: cancel() asks the work to stop, stop() also waits for it.
When its `done` has come, the owner lets go of the job with dispose(job), which every thread
of the GUI's (a BackgroundJob, the Run tab's EngineThread) ends with.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

Emit = Callable[[Any], None]


@dataclass(frozen=True)
class JobError:
    """What a job that raised ends with: a one-line message and the traceback."""

    message: str
    details: str


def dispose(thread: QThread | None) -> None:
    """Let go of a thread whose last signal (`done`, `finished`) has come: wait for it to
    return (the signal is emitted just before it does, so this is short) and delete it once
    control is back in the event loop. None is nothing to let go of."""
    if thread is None:
        return
    thread.wait()  # a QThread deleted while it still runs aborts the app
    thread.deleteLater()


class BackgroundJob(QThread):
    item = Signal(object)  # whatever the work emits, in order, on the GUI thread
    done = Signal(object)  # the work's return value, or a JobError, on the GUI thread
    _item_from_work = Signal(object)  # emitted on the job's thread, relayed as `item`
    _done_from_work = Signal(object)  # likewise, relayed as `done`

    def __init__(
        self,
        work: Callable[[Emit], Any],
        cancel: Callable[[], None] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._work = work
        self._cancel = cancel
        self.cancelled = False
        # The job object lives on the GUI thread, so these are queued when run() emits.
        self._item_from_work.connect(self._relay_item)
        self._done_from_work.connect(self._relay_done)

    def run(self) -> None:
        try:
            outcome = self._work(self._item_from_work.emit)
        except Exception as exc:  # an engine error ends the job with a message, not a crash
            outcome = JobError(f"{type(exc).__name__}: {exc}", traceback.format_exc())
        self._done_from_work.emit(outcome)

    @Slot(object)
    def _relay_item(self, item: object) -> None:
        self.item.emit(item)

    @Slot(object)
    def _relay_done(self, outcome: object) -> None:
        self.done.emit(outcome)

    def cancel(self) -> None:
        """Ask the work to stop (its own cancel); what it finished stays."""
        self.cancelled = True
        if self._cancel is not None:
            self._cancel()

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Cancel and wait for the thread (window close). True if it ended."""
        self.cancel()
        return self.wait(int(timeout_s * 1000))
