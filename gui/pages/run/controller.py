"""RunController: owns the EngineThread of the run in progress and stores what a run ends with.

Widgets ask (start, cancel); the controller starts one EngineThread at a time, forwards every
engine event through its own `event` signal, stores results the way the CLI does (finished runs
and failures alike, except a config the worker refused), and says when the run is over, after
the worker process has been reaped.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot

from engine.core.errors import ConfigError
from engine.core.events import Event, Failed, Finished
from engine.measure.config import RunConfig
from engine.measure.result import failed_result
from engine.process.launcher import WorkerSpec
from engine.results import saving
from gui.common.background import dispose
from gui.common.engine_thread import EngineThread
from gui.common.lazy_store import open_store

if TYPE_CHECKING:
    from engine.results.store import Store


class RunController(QObject):
    engine_event = Signal(object)  # every engine Event of the current run, on the GUI thread
    running_changed = Signal(bool)  # False only once the worker process is gone
    result_stored = Signal(dict)  # the stored result (ok or failed)
    run_failed = Signal(object, str)  # the Failed event and what to tell the user
    store_failed = Signal(str, str)  # message, details: a result could not be stored

    def __init__(
        self,
        store: Callable[[], Store] = open_store,
        spec: WorkerSpec | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._spec = spec
        # Per framework, the Python that runs its workers (File > Settings); else the spec's.
        self.interpreters: dict[str, str] = {}
        self._thread: EngineThread | None = None
        self.config: RunConfig | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None

    @property
    def worker_pid(self) -> int | None:
        return self._thread.worker_pid if self._thread else None

    def start(self, config: RunConfig) -> bool:
        """Start a run; False (and nothing happens) while another one is going."""
        if self._thread is not None:
            return False
        self.config = config.validated()
        thread = EngineThread(self.config, self.spec_for(self.config.framework), keep=self._keep)
        thread.engine_event.connect(self._on_event)
        thread.result_kept.connect(self._on_kept)
        # Bound methods of this GUI-thread object, so both arrive queued on the GUI thread.
        thread.finished.connect(self._on_finished_signal)
        self._thread = thread
        thread.start()
        self.running_changed.emit(True)
        return True

    def spec_for(self, framework: str) -> WorkerSpec:
        """How a run of this framework starts its worker: the chosen interpreter, if any
        (tabs with runs of their own start their workers the same way)."""
        spec = self._spec or WorkerSpec()
        python = self.interpreters.get(framework)
        return dataclasses.replace(spec, python=python) if python else spec

    def cancel(self) -> None:
        if self._thread is not None:
            self._thread.cancel()

    def shutdown(self, timeout_s: float = 5.0) -> None:
        """Stop the run and reap its worker before the window goes (no orphan, no abort)."""
        thread = self._thread
        if thread is None:
            return
        if not thread.stop(timeout_s):
            thread.worker.kill()
            thread.wait()
        self._on_thread_finished(thread)

    @Slot(object)
    def _on_event(self, event: Event) -> None:
        if self._thread is None or event.run_id != self._thread.run_id:
            return  # a late event of a run already reaped
        self.engine_event.emit(event)
        if isinstance(event, Failed):
            assert self.config is not None
            self.run_failed.emit(event, describe_failure(event, self.config, self._store))

    def _keep(
        self, ending: Finished | Failed, environment: dict[str, Any]
    ) -> tuple[dict[str, Any], saving.Kept] | None:
        """Store how a run ended, on the run's thread (EngineThread's `keep`): its result, or
        the failure's; a config the worker refused ran nothing, so nothing is kept."""
        if isinstance(ending, Finished):
            result = ending.result
        elif ending.kind == "config":
            return None
        else:
            assert self.config is not None
            result = failed_result(ending, self.config, environment)
        return result, saving.keep(result, self._store)

    @Slot(object, object)
    def _on_kept(self, result: dict[str, Any], kept: saving.Kept) -> None:
        """A run's result, stored on the run's thread, said after its ending event."""
        if self._thread is None or result.get("run_id") != self._thread.run_id:
            return
        if not kept.stored:
            self.store_failed.emit(
                "The result could not be added to the results database.",
                f"{kept.message()} (File > Open result adds it to the table later.)",
            )
            return
        self.result_stored.emit(result)

    @Slot()
    def _on_finished_signal(self) -> None:
        thread = self.sender()
        if isinstance(thread, EngineThread):
            self._on_thread_finished(thread)

    def _on_thread_finished(self, thread: EngineThread) -> None:
        if thread is not self._thread:
            return  # already handled by shutdown()
        self._thread = None
        dispose(thread)  # `finished` comes from the thread just before it returns
        self.running_changed.emit(False)


def describe_failure(failure: Failed, config: RunConfig, store: Callable[[], Store]) -> str:
    """One paragraph for the window: what happened and, where we can tell, what to try."""
    what = {
        "oom": "Out of memory",
        "cancelled": "Cancelled",
        "crashed": "The worker crashed",
        "config": "The settings were refused",
        "framework": "The framework failed",
    }.get(failure.kind, "The run failed")
    text = f"{what}: {failure.message.rstrip('.')}."
    if failure.kind == "oom":
        fitted = largest_batch_that_fitted(config, store)
        if fitted is not None:
            text += f" The largest batch that fitted before was {fitted}; try that or less."
        else:
            text += f" Try a smaller batch size, such as {max(1, config.batch_size // 2)}."
    return text


def largest_batch_that_fitted(config: RunConfig, store: Callable[[], Store]) -> int | None:
    """The largest batch under this one that ran ok with this model, framework, precision
    and device setting, from the store; None when no such run is known."""
    try:
        frame = store().list()
    except (sqlite3.Error, OSError, ConfigError):
        return None
    rows = frame[
        (frame.status == "ok")
        & (frame.model == config.model)
        & (frame.framework == config.framework)
        & (frame.precision == config.precision)
        & (frame.batch_size < config.batch_size)
    ].sort_values("batch_size", ascending=False)
    for run_id, batch in zip(rows.run_id, rows.batch_size, strict=True):
        try:
            if store().get(run_id)["config"].get("device") == config.device:
                return int(batch)
        except (sqlite3.Error, OSError, ConfigError):
            continue
    return None
