"""SweepController: runs one batch-size sweep at a time and keeps what it found; JobOwner, the
job's life (start, cancel, shutdown, ended) that it shares with the StudyController.

The Sweep tab asks (start a Sweep, cancel, shut down); the controller runs
engine.sweep.runner.Sweep on a BackgroundJob, keeps the trials as they end and the verdicts
over them (engine.sweep.summary, the engine's own rules), and says when the sweep is over,
after its thread and its worker have ended. It shows nothing: the page (gui/pages/sweep/page.py)
draws what it hears. As the Run tab's RunController does for a single run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
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


def relay(events: Iterable[Any], emit: Emit, progress: type, last: type) -> Any | None:
    """Emit a study's events (on the job's thread) but only some of the running point's
    steps: a `progress` event passes with a Phase, or a Step at most every STEP_EVERY_S. The
    `last` event's summary, None when the events ended without one."""
    last_step = 0.0
    for event in events:
        if isinstance(event, progress):
            inner = getattr(event, "event", None)
            if isinstance(inner, Step):
                now = time.monotonic()
                if now - last_step < STEP_EVERY_S:
                    continue
                last_step = now
            elif not isinstance(inner, Phase):
                continue
        emit(event)
        if isinstance(event, last):
            return getattr(event, "summary", None)
    return None


def follow(sweep: Sweep, emit: Emit) -> SweepSummary:
    """Run the sweep (on the job's thread), emitting its events but only some of the running
    trial's steps; return its summary."""
    summary = relay(sweep.events(), emit, TrialProgress, SweepFinished)
    return summary if summary is not None else sweep.summary()


class JobOwner(QObject):
    """One study's job at a time (a sweep's, or a study's over another axis): started, cancelled,
    waited for at shutdown, and `ended` once its thread has ended."""

    ended = Signal(object)  # the job's outcome (a summary, JobError), once its thread ended

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job: BackgroundJob | None = None
        self.started_s = 0.0  # time.monotonic() at the start
        self._outcome: Any = None

    @property
    def running(self) -> bool:
        return self.job is not None

    @property
    def elapsed_s(self) -> float:
        """Seconds since the study started."""
        return time.monotonic() - self.started_s

    def _run(self, work: Callable[[Emit], Any], cancel: Callable[[], None]) -> None:
        self.started_s = time.monotonic()
        self._outcome = None
        job = BackgroundJob(work, cancel=cancel)
        job.item.connect(self._on_event)
        job.done.connect(self._on_done)
        job.finished.connect(self._on_job_finished)
        self.job = job
        job.start()

    def _on_event(self, event: Any) -> None:
        raise NotImplementedError

    def cancel(self) -> bool:
        """Stop the study; the finished points stay. False when there is nothing to cancel."""
        if self.job is None or self.job.cancelled:
            return False
        self.job.cancel()
        return True

    def shutdown(self) -> None:
        """Stop the study and wait for its thread and worker (the window is closing)."""
        job = self.job
        if job is None:
            return
        if not job.stop(SHUTDOWN_WAIT_S):
            job.wait()  # the study kills its worker after a grace period; never terminate
        self._on_job_finished(job)

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


class SweepController(JobOwner):
    """One sweep at a time: its job, its trials so far, the search's outcome, its summary."""

    sweep_event = Signal(object)  # each SweepEvent of the sweep running now, after it is kept here

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.config: RunConfig | None = None
        self.trials: list[Trial] = []
        self.summary: SweepSummary | None = None  # the finished sweep's
        self.group_id = ""
        self._search: SearchOutcome | None = None
        self._plan: dict[str, Any] = {}

    def start(self, sweep: Sweep) -> bool:
        """Run `sweep`; False while another is running."""
        if self.job is not None:
            return False
        self.config = sweep.config
        self.trials, self.summary, self._search = [], None, None
        self.group_id, self._plan = sweep.group_id, sweep.plan.to_dict()
        self._run(lambda emit: follow(sweep, emit), sweep.cancel)
        return True

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
