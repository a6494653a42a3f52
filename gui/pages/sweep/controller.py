"""SweepController: runs one batch-size sweep at a time and keeps what it found.

The Sweep tab asks (start a Sweep, cancel, shut down); the controller runs
engine.sweep.runner.Sweep on a BackgroundJob, keeps the trials as they end and the verdicts
over them (engine.sweep.summary, the engine's own rules), and says when the sweep is over,
after its thread and its worker have ended. It shows nothing: the page (gui/pages/sweep/page.py)
draws what it hears. As the Run tab's RunController does for a single run.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot

from engine.core.events import Phase, Step
from engine.measure.config import RunConfig
from engine.sweep.events import (
    SearchFinished,
    SweepEvent,
    SweepFinished,
    Trial,
    TrialFinished,
    TrialProgress,
)
from engine.sweep.summary import SearchOutcome, SweepSummary, summarize
from gui.common.background import BackgroundJob, Emit, dispose

if TYPE_CHECKING:
    from engine.sweep.runner import Sweep

STEP_EVERY_S = 0.25  # the running trial's step count reaches the GUI at most this often
SHUTDOWN_WAIT_S = 5.0


def follow(sweep: Sweep, emit: Emit) -> SweepSummary:
    """Run the sweep (on the job's thread), emitting its events but only some of the running
    trial's steps; return its summary."""
    last_step = 0.0
    for event in sweep.events():
        if isinstance(event, TrialProgress):
            if isinstance(event.event, Step):
                now = time.monotonic()
                if now - last_step < STEP_EVERY_S:
                    continue
                last_step = now
            elif not isinstance(event.event, Phase):
                continue
        emit(event)
        if isinstance(event, SweepFinished):
            return event.summary
    return sweep.summary()


class SweepController(QObject):
    """One sweep at a time: its job, its trials so far, the search's outcome, its summary."""

    sweep_event = Signal(object)  # each SweepEvent of the sweep running now, after it is kept here
    ended = Signal(object)  # the job's outcome (SweepSummary, JobError), once its thread ended

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job: BackgroundJob | None = None
        self.config: RunConfig | None = None
        self.trials: list[Trial] = []
        self.summary: SweepSummary | None = None  # the finished sweep's
        self.group_id = ""
        self.started_s = 0.0  # time.monotonic() at the start
        self._search: SearchOutcome | None = None
        self._plan: dict[str, Any] = {}
        self._outcome: Any = None

    @property
    def running(self) -> bool:
        return self.job is not None

    @property
    def elapsed_s(self) -> float:
        """Seconds since the sweep started."""
        return time.monotonic() - self.started_s

    def start(self, sweep: Sweep) -> bool:
        """Run `sweep`; False while another is running."""
        if self.job is not None:
            return False
        self.config = sweep.config
        self.trials, self.summary, self._search, self._outcome = [], None, None, None
        self.group_id, self._plan = sweep.group_id, sweep.plan.to_dict()
        self.started_s = time.monotonic()
        job = BackgroundJob(lambda emit: follow(sweep, emit), cancel=sweep.cancel)
        job.item.connect(self._on_event)
        job.done.connect(self._on_done)
        job.finished.connect(self._on_job_finished)
        self.job = job
        job.start()
        return True

    def cancel(self) -> bool:
        """Stop the sweep; the finished points stay. False when there is nothing to cancel."""
        if self.job is None or self.job.cancelled:
            return False
        self.job.cancel()
        return True

    def shutdown(self) -> None:
        """Stop the sweep and wait for its thread and worker (the window is closing)."""
        job = self.job
        if job is None:
            return
        if not job.stop(SHUTDOWN_WAIT_S):
            job.wait()  # the sweep kills its worker after a grace period; never terminate
        self._on_job_finished(job)

    def summary_so_far(self) -> SweepSummary:
        """The verdicts over the trials so far, by the engine's own rules."""
        assert self.config is not None
        return summarize(
            group_id=self.group_id,
            model=self.config.model,
            mode=self._plan.get("mode", "sizes"),
            status="running",
            trials=self.trials,
            search=self._search,
            knee_tolerance=self._plan.get("knee_tolerance", 0.05),
            seconds=self.elapsed_s,
            plan=self._plan,
        )

    def _on_event(self, event: SweepEvent) -> None:
        if event.group_id != self.group_id:
            return  # a late event of an earlier sweep
        if isinstance(event, TrialFinished) and event.trial is not None:
            self.trials.append(event.trial)
        elif isinstance(event, SearchFinished):
            self._search = SearchOutcome(
                max_fit_batch=event.max_fit_batch, recommended_batch=event.recommended_batch
            )
        elif isinstance(event, SweepFinished):
            self.summary = event.summary
        self.sweep_event.emit(event)

    def _on_done(self, outcome: Any) -> None:
        self._outcome = outcome

    @Slot()  # QThread.finished comes from the job's thread: a real slot receives it safely
    def _on_job_finished(self, job: BackgroundJob | None = None) -> None:
        sender = job if isinstance(job, BackgroundJob) else self.sender()
        if sender is not self.job or not isinstance(sender, BackgroundJob):
            return  # already handled by shutdown()
        self.job = None
        dispose(sender)  # `finished` comes from the thread just before it returns
        self.ended.emit(self._outcome)
