"""StudyController: runs one study over an axis other than batch size (loader workers,
processes, precision, power limit: engine.study.study.Study) at a time and keeps what it found.

As the SweepController does for a batch sweep, and with the same job's life (JobOwner,
controller.py): the Study runs on a BackgroundJob, the points are kept as they end, the
verdicts over them come from the engine's own rules (engine.study.summary), and `ended` comes
once the job's thread and worker have ended. It shows nothing: gui/pages/sweep/study_pane.py
draws what it hears.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from engine.study.events import PointFinished, PointProgress, StudyEvent, StudyFinished
from engine.study.point import StudyPoint
from engine.study.summary import StudySummary, summarize
from gui.common.background import Emit
from gui.pages.sweep.controller import JobOwner, relay

if TYPE_CHECKING:
    from engine.study.study import Study


def follow(study: Study, emit: Emit) -> StudySummary:
    """Run the study (on the job's thread), emitting its events but only some of the running
    point's steps; return its summary."""
    summary = relay(study.events(), emit, PointProgress, StudyFinished)
    return summary if isinstance(summary, StudySummary) else study.summary()


class StudyController(JobOwner):
    """One study at a time: its job, its points so far, its summary."""

    study_event = Signal(object)  # each StudyEvent of the study running now, once kept here

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.study: Study | None = None
        self.points: list[StudyPoint] = []
        self.summary: StudySummary | None = None  # the finished study's
        self.group_id = ""

    def start(self, study: Study) -> bool:
        """Run `study`; False while another is running."""
        if self.job is not None:
            return False
        self.study, self.points, self.summary = study, [], None
        self.group_id = study.group_id
        self._run(lambda emit: follow(study, emit), study.cancel)
        return True

    def summary_so_far(self) -> StudySummary:
        """The verdicts over the points so far, by the engine's own rules (the GUI's copy of
        the points: the study's own list grows on the job's thread)."""
        study = self.study
        assert study is not None
        return summarize(
            group_id=self.group_id,
            axis=study.axis,
            config=study.config,
            status="running",
            points=list(self.points),
            seconds=self.elapsed_s,
            notes=list(study.notes),
            price_basis=study.price_basis,
        )

    def _on_event(self, event: Any) -> None:
        if not isinstance(event, StudyEvent) or event.group_id != self.group_id:
            return  # a late event of an earlier study
        if isinstance(event, PointFinished) and event.point is not None:
            self.points.append(event.point)
        elif isinstance(event, StudyFinished):
            self.summary = event.summary
        self.study_event.emit(event)
