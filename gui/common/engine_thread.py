"""EngineThread: a QThread that runs one worker process and hands its events to the GUI thread.

The thread starts `python -m engine.worker` through engine.process.launcher.WorkerProcess, reads
its JSON-lines events and emits each one, as the frozen Event object, through its signal
`engine_event` (queued to the GUI thread, so no widget is touched from here). The stream always
ends with exactly one Finished or Failed: a worker that dies, or cannot start, becomes Failed. A
finished run's result is stored here, off the GUI thread, by the `keep` it is given (the store's
write took 28 ms of the GUI thread at a run's end: benchmarks/RESULTS.md, issue 42), and
`result_kept` says how, after the Finished event. Cancel is cooperative (a "cancel" line on the
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
from engine.core.events import Failed, Finished
from engine.measure.config import RunConfig
from engine.process.launcher import CANCEL_GRACE_S, WorkerProcess, WorkerSpec
from engine.results.saving import Kept

# Closing the window gives the worker this long to stop by itself before it is killed.
CLOSE_GRACE_S = 0.5


class EngineThread(QThread):
    # Not named `event`: that would hide QObject.event(), the handler of every Qt event.
    engine_event = Signal(object)  # engine.core.events.Event
    result_kept = Signal(object, object)  # a Finished run's result, what `keep` returned

    def __init__(
        self,
        config: RunConfig,
        spec: WorkerSpec | None = None,
        parent: QObject | None = None,
        keep: Callable[[dict[str, Any]], Any] | None = None,
    ) -> None:
        super().__init__(parent)
        self.config = config
        self._keep = keep
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
                if self._cancelled:
                    self._emit_cancelled()
                    return
                self.worker.start()
            for event in self.worker.events():
                ended = ended or isinstance(event, Finished | Failed)
                self.engine_event.emit(event)
                if isinstance(event, Finished) and self._keep is not None:
                    self.result_kept.emit(event.result, self._kept(event.result))
        except ConfigError as exc:  # the worker's Python (File > Settings) cannot start
            self.engine_event.emit(Failed(run_id=self.run_id, kind="config", message=exc.message))
        except Exception as exc:  # the worker could not start, or its pipe broke
            if not ended:
                self.engine_event.emit(
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

    def _kept(self, result: dict[str, Any]) -> Any:
        """What `keep` made of `result`; a fault it did not expect is said as a store's is (a
        Kept with the problem), never lost with the thread."""
        assert self._keep is not None
        try:
            return self._keep(result)
        except Exception as exc:
            kept = Kept(result.get("run_id", ""))
            kept.problems.append(
                f"the results store could not take it: {type(exc).__name__}: {exc}"
            )
            return kept

    def _emit_cancelled(self) -> None:
        self.engine_event.emit(
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
