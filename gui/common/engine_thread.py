"""EngineThread: a QThread that runs one worker process and hands its events to the GUI thread.

The thread starts `python -m engine.worker` through engine.process.launcher.WorkerProcess, reads
its JSON-lines events and emits each one, as the frozen Event object, through its signal
`engine_event` (queued to the GUI thread, so no widget is touched from here). The stream always
ends with exactly one Finished or Failed: a worker that dies, or cannot start, becomes Failed. The
run's result, finished or failed, is stored here, off the GUI thread, by the `keep` it is given
(the store's write took 28 ms of the GUI thread at a run's end, a cancelled run's 18-89 ms:
benchmarks/RESULTS.md, issue 42), and `result_kept` says how, after that ending event. Cancel is
cooperative (a "cancel" line on the
worker's stdin, checked between steps); a worker still alive after the grace period is killed.
The thread itself is never terminated.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

from engine.core.errors import ConfigError
from engine.core.events import Event, Failed, Finished, Started
from engine.measure.config import RunConfig
from engine.process.launcher import CANCEL_GRACE_S, WorkerProcess, WorkerSpec
from engine.results.saving import Kept

# Stores a run's ending (its Finished or Failed, and the Started event's environment): the
# result stored and what the store made of it, or None when there is nothing to store.
Keep = Callable[[Finished | Failed, dict[str, Any]], tuple[dict[str, Any], Kept] | None]

# Closing the window gives the worker this long to stop by itself before it is killed.
CLOSE_GRACE_S = 0.5


class EngineThread(QThread):
    # Not named `event`: that would hide QObject.event(), the handler of every Qt event.
    engine_event = Signal(object)  # engine.core.events.Event
    result_kept = Signal(object, object)  # the run's result, what `keep` made of it

    def __init__(
        self,
        config: RunConfig,
        spec: WorkerSpec | None = None,
        parent: QObject | None = None,
        keep: Keep | None = None,
    ) -> None:
        super().__init__(parent)
        self.config = config
        self._keep = keep
        self._environment: dict[str, Any] = {}  # the Started event's, for a failed result
        self.worker = WorkerProcess(config, spec)
        # Orders cancel() against the worker's start, so a cancel never slips in between.
        self._lock = threading.Lock()
        self._cancelled = False

    @property
    def run_id(self) -> str:
        return self.worker.run_id

    @property
    def worker_pid(self) -> int | None:
        return self.worker.pid

    def run(self) -> None:
        ended = False
        try:
            with self._lock:
                cancelled = self._cancelled
                if not cancelled:
                    self.worker.start()
            if cancelled:  # said (and stored) outside the lock: cancel() takes it on the GUI thread
                self._emit_cancelled()
                return
            for event in self.worker.events():
                ended = ended or isinstance(event, Finished | Failed)
                if isinstance(event, Started):
                    self._environment = dict(event.environment)
                self._emit(event)
        except ConfigError as exc:  # the worker's Python (File > Settings) cannot start
            self._emit(Failed(run_id=self.run_id, kind="config", message=exc.message))
        except Exception as exc:  # the worker could not start, or its pipe broke
            if not ended:
                self._emit(
                    Failed(
                        run_id=self.run_id,
                        kind="crashed",
                        message=f"the worker could not run: {type(exc).__name__}: {exc}",
                        traceback=traceback.format_exc(),
                        batch_size=self.config.batch_size,
                    )
                )
        finally:
            self.worker.close()

    def _emit(self, event: Event) -> None:
        """Hand `event` to the GUI thread; after the run's ending, store its result here."""
        self.engine_event.emit(event)
        if isinstance(event, Finished | Failed) and self._keep is not None:
            self._kept(event)

    def _kept(self, ending: Finished | Failed) -> None:
        """Store the ending's result through `keep` and say how; a fault it did not expect is
        said as a store's is (a Kept with the problem), never lost with the thread."""
        assert self._keep is not None
        result: dict[str, Any] | None = None
        try:
            made = self._keep(ending, self._environment)
            if made is None:
                return  # nothing to store (a config the worker refused ran nothing)
            result, kept = made
        except Exception as exc:
            if result is None and isinstance(ending, Finished):
                result = ending.result
            if result is None:
                return  # the failed result could not even be made: the Failed event says it
            kept = Kept(result.get("run_id", ""))
            kept.problems.append(
                f"the results store could not take it: {type(exc).__name__}: {exc}"
            )
        self.result_kept.emit(result, kept)

    def _emit_cancelled(self) -> None:
        self._emit(
            Failed(
                run_id=self.run_id,
                kind="cancelled",
                message="cancelled by the user",
                batch_size=self.config.batch_size,
            )
        )

    def cancel(self, grace_s: float = CANCEL_GRACE_S) -> None:
        """Ask the worker to stop between steps; it is killed if still alive after grace_s."""
        with self._lock:
            self._cancelled = True
            self.worker.cancel(grace_s)

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Cancel with a short grace and wait for the thread (window close). True if it ended."""
        self.cancel(CLOSE_GRACE_S)
        return self.wait(int(timeout_s * 1000))
