"""A scaling study: the same run at several process counts, each a data-parallel run of its own
(a count of 1 is a plain run), stored as one group, with the efficiency against perfect
scaling at each count (engine/results/scaling.py; docs/scaling.md).

    study = ScalingStudy(config, (1, 2, 4), store=Store())
    for event in study.study.events():  # engine/study/events.py, as every study's
        ...                             # study.cancel() from any thread stops it
    summary = study.summary()           # the points with their efficiency
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core.ids import new_run_id
from engine.measure.config import RunConfig
from engine.process.launcher import WorkerSpec
from engine.results.scaling import SCALING_PREFIX, Point, with_efficiency
from engine.results.store import Store
from engine.study.axes import ProcessesAxis
from engine.study.point import StudyPoint
from engine.study.study import Study


def parse_counts(text: str) -> tuple[int, ...]:
    """'1,2,4,8' -> (1, 2, 4, 8): distinct whole numbers, in order; ConfigError otherwise."""
    return ProcessesAxis().parse(text)


class ScalingStudy:
    """One scaling study: a study on the processes axis (engine/study). Follow `study.events()`
    once (engine/cli/study_progress.py does); `cancel()` is thread-safe."""

    def __init__(
        self,
        config: RunConfig,
        counts: tuple[int, ...],
        *,
        store: Store | None = None,
        spec: WorkerSpec | None = None,
        group_id: str | None = None,
        on_stderr: Callable[[str], None] | None = None,
    ) -> None:
        self.study = Study(
            config,
            ProcessesAxis(),
            counts,
            store=store,
            spec=spec,
            group_id=group_id or SCALING_PREFIX + new_run_id(),
            on_stderr=on_stderr,
        )
        self.config, self.counts, self.group_id = self.study.config, counts, self.study.group_id

    @property
    def points(self) -> list[Point]:
        """The counts that ended (a cancelled or misconfigured one is not a point)."""
        return [p for p in map(_point, self.study.points) if p is not None]

    @property
    def unstored(self) -> list[str]:
        """Results the store could not take, and where they are."""
        return [n.split(": ", 1)[1] for n in self.study.unstored]

    @property
    def error(self) -> dict[str, str] | None:
        """A config failure ends the study."""
        return self.study.error

    def cancel(self) -> None:
        self.study.cancel()

    @property
    def cancelled(self) -> bool:
        return self.study.cancelled

    def summary(self) -> dict[str, Any]:
        """The study so far: its points with efficiency (also after a cancel)."""
        study = self.study.summary()
        status = study.status
        if status == "completed" and any(p.status != "ok" for p in self.points):
            status = "failed"
        c = self.config
        return {
            "group_id": self.group_id,
            "model": c.model,
            "framework": c.framework,
            "device": c.device,
            "batch_size_per_process": c.batch_size,
            "precision": c.precision,
            "status": status,
            "error": self.error,
            "seconds": study.seconds,
            "points": [p.to_dict() for p in with_efficiency(self.points)],
        }


def _point(point: StudyPoint) -> Point | None:
    """A study's point as a scaling point (None: cancelled, or a config mistake)."""
    if point.ok:
        return Point(point.value, point.figure("throughput_samples_per_s"), run_id=point.run_id)
    if point.status in ("cancelled", "config"):
        return None
    status = "oom" if point.status == "oom" else "failed"
    return Point(point.value, None, None, point.run_id, status, point.message)
