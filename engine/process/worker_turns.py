"""One worker at a time, for every study of many runs (a batch-size sweep, a scaling study, a
cost-to-accuracy study).

`start` begins a run in a fresh worker unless the study was cancelled; `follow` yields its
events (wrapped as the study reports them) and returns how it ended and the environment it
reported. `cancel()` from another thread stops the running worker and every later start: the
lock makes a cancel either see the worker or stop it starting. A caller that holds a flag of
its own (the Accuracy tab's threading.Event) passes it as `cancel`: setting it cancels as
cancel() does, the running worker within the launcher's READ_EVERY_S.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from typing import Any, TypeVar

from engine.core.events import Event, Failed, Finished, Started
from engine.measure.config import TrainingConfig
from engine.process import forked
from engine.process.launcher import WorkerProcess, WorkerSpec

T = TypeVar("T")
Ending = tuple[Finished | Failed | None, dict[str, Any]]  # the last event, the environment


class WorkerTurns:
    def __init__(
        self,
        spec: WorkerSpec,
        on_stderr: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self.spec = spec
        self._on_stderr = on_stderr
        self._cancel = cancel or threading.Event()
        self._lock = threading.Lock()
        self._worker: WorkerProcess | None = None

    def cancel(self) -> None:
        with self._lock:
            self._cancel.set()
            if self._worker is not None:
                self._worker.cancel()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def start(self, config: TrainingConfig, run_id: str | None = None) -> WorkerProcess | None:
        """A started worker for `config`; None when the study is cancelled."""
        if not getattr(config, "distributed", False):  # torchrun's processes are never forked
            # Each run forked from a warm process: the import of its framework once for the
            # study (engine/process/forked.py), its first run's included; the server imports
            # it as the run would (a capped TensorFlow run's: oneDNN off).
            forked.wait_ready(self.spec, config.framework, import_env=config.import_environment())
        worker = WorkerProcess(config, self.spec, run_id, self._on_stderr, self._cancel)
        with self._lock:
            if self._cancel.is_set():
                return None
            self._worker = worker.start()
        return worker

    def follow(
        self, worker: WorkerProcess, wrap: Callable[[Event], T]
    ) -> Generator[T, None, Ending]:
        """Each event of `worker`, wrapped; then (its Finished or Failed, its environment)."""
        env: dict[str, Any] = {}
        end: Finished | Failed | None = None
        try:
            for event in worker.events():
                if isinstance(event, Started):
                    env = dict(event.environment)
                elif isinstance(event, Finished | Failed):
                    end = event
                yield wrap(event)
        finally:
            with self._lock:
                self._worker = None
            worker.close()
        return end, env
