"""StudyController: runs one accuracy study at a time and keeps what it found.

The Accuracy tab asks (start a StudyPlan, cancel, shut down); the controller runs the study
(gui/pages/accuracy/study.py: every batch size and repeat in its own worker, each result stored
under the study id as it ends) on a BackgroundJob, keeps the stored results, how many runs have
started and the cloud projections at the end, and says when the study is over, after its thread
has ended. It shows nothing: the page (gui/pages/accuracy/page.py) draws what it hears. As the
Run tab's RunController does for a single run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from engine.accuracy.study import StudyPlan
from engine.core.events import Started
from engine.process.launcher import WorkerSpec
from gui.common.background import BackgroundJob, dispose
from gui.pages.accuracy import study as accuracy_study

if TYPE_CHECKING:
    from engine.results.store import Store

STOP_TIMEOUT_S = 10.0  # a worker that ignores cancel is killed after 1.5 s (launcher)


class StudyController(QObject):
    """One study at a time: its job, its plan, its stored results, its cloud projections."""

    study_event = Signal(object)  # Started, Phase, Eval, Finished, Failed of the study's runs
    stored = Signal(dict)  # a run's result, now in the store and in `results`
    ended = Signal(object)  # StudyDone, StudyRefused or JobError, once the thread has ended

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job: BackgroundJob | None = None
        self.plan: StudyPlan | None = None
        self.results: list[dict[str, Any]] = []
        self.runs_started = 0
        # Each batch size's cost on the catalog's cloud instances, and why none is shown.
        self.projections: tuple[dict[int, Any], str] = ({}, "")

    @property
    def running(self) -> bool:
        return self.job is not None

    def start(self, plan: StudyPlan, store: Callable[[], Store], spec: WorkerSpec | None) -> bool:
        """Run every run of `plan`, each worker started by `spec`; False while one runs."""
        if self.job is not None:
            return False
        self.plan = plan
        self.results = []
        self.runs_started = 0
        self.projections = ({}, "")
        cancel = threading.Event()  # checked by the study between runs, passed to workers
        job = BackgroundJob(
            lambda emit: accuracy_study.run(plan, store, spec, cancel, emit), cancel=cancel.set
        )
        job.item.connect(self._on_item)
        job.done.connect(self._on_done)
        self.job = job
        job.start()
        return True

    def cancel(self) -> bool:
        """Stop the run in progress; finished runs stay. False when nothing runs."""
        if self.job is None:
            return False
        self.job.cancel()
        return True

    def shutdown(self) -> None:
        """Stop the study and wait for it (window close)."""
        if self.job is not None and not self.job.stop(STOP_TIMEOUT_S):
            self.job.wait()  # the launcher kills a worker that ignores cancel; it ends

    def _on_item(self, item: Any) -> None:
        if isinstance(item, accuracy_study.Stored):
            self.results.append(item.result)
            self.stored.emit(item.result)
            return
        if isinstance(item, Started):
            self.runs_started += 1
        self.study_event.emit(item)

    def _on_done(self, outcome: Any) -> None:
        job, self.job = self.job, None
        dispose(job)  # `done` is its last act; it returns right after
        if isinstance(outcome, accuracy_study.StudyDone):
            self.projections = (outcome.projections, outcome.projection_note)
        self.ended.emit(outcome)
