"""What a study reports as it goes, for any axis: frozen events a CLI or a GUI thread consumes
in order. `study_started`; per point `point_started`, the worker's own events wrapped in
`point_progress`, `point_finished` (with the point: engine/study/point.py); `study_finished`
(with the summary: engine/study/summary.py). A point the device cannot run has only
`point_finished`; after a cancel the values not reached have no event (the summary lists the
points that ended).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.core.events import Event
from engine.study.point import StudyPoint


@dataclass(frozen=True)
class StudyEvent:
    type: ClassVar[str] = "study_event"
    group_id: str


@dataclass(frozen=True)
class StudyStarted(StudyEvent):
    type: ClassVar[str] = "study_started"
    axis: str = ""
    values: tuple[Any, ...] = ()
    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PointStarted(StudyEvent):
    type: ClassVar[str] = "point_started"
    index: int = 0
    value: Any = None
    run_id: str = ""


@dataclass(frozen=True)
class PointProgress(StudyEvent):
    """A worker event (phase, step, sample, ...) of the running point."""

    type: ClassVar[str] = "point_progress"
    index: int = 0
    value: Any = None
    event: Event | None = None


@dataclass(frozen=True)
class PointFinished(StudyEvent):
    type: ClassVar[str] = "point_finished"
    point: StudyPoint | None = None


@dataclass(frozen=True)
class StudyFinished(StudyEvent):
    type: ClassVar[str] = "study_finished"
    summary: Any = None  # engine.study.summary.StudySummary
