"""A study over any axis: each value of the axis a run in a fresh worker, with the run's usual
windows, intervals and target precision, one at a time, stored as it ends under the study's
group id and tagged with its point; cancellable from any thread, the finished points kept.

    study = Study(config, AXES["precision"](), ("fp32", "bf16"), store=Store())
    for event in study.events():   # engine/study/events.py; a CLI loop or a GUI's thread
        ...                        # study.cancel() from any thread stops it between points
    summary = study.summary()      # engine/study/summary.py, also mid-study

The batch sweep's max-fit search keeps its own order of trials (engine/sweep/runner.py) and runs
each through the same point rules (engine/study/point.py); the loader-workers sweep and the
scaling study are this runner on their axes (engine/sweep/loaders.py, engine/sweep/scaling.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from functools import partial
from typing import Any

from engine.core.events import Failed, Finished
from engine.core.ids import new_group_id
from engine.measure.config import RunConfig
from engine.measure.power_limit import PowerLimitError
from engine.measure.result import failed_result
from engine.process.launcher import WorkerSpec
from engine.process.worker_turns import WorkerTurns
from engine.results import saving
from engine.results.store import Store
from engine.study.axis import Axis
from engine.study.events import (
    PointFinished,
    PointProgress,
    PointStarted,
    StudyEvent,
    StudyFinished,
    StudyStarted,
)
from engine.study.point import StudyPoint, ending, run_point, stores_failure
from engine.study.summary import StudySummary, summarize

PricePoint = Callable[[dict[str, Any]], float | None]  # a result -> its $/epoch at a price


class Study:
    """One study. Iterate `events()` once; `cancel()` is thread-safe."""

    def __init__(
        self,
        config: RunConfig,
        axis: Axis,
        values: tuple[Any, ...],
        *,
        store: Store | None = None,
        spec: WorkerSpec | None = None,
        group_id: str | None = None,
        on_stderr: Callable[[str], None] | None = None,
        price_point: PricePoint | None = None,
        price_basis: str = "",
    ) -> None:
        self.axis = axis
        self.values = tuple(values)
        self.config = axis.prepare(config.validated(), self.values)
        self.store = store
        self.spec = spec or WorkerSpec()
        self.group_id = group_id or new_group_id(axis.group_prefix)
        self.price_point = price_point
        self.price_basis = price_basis  # what price_point prices at: "the owned price ..."
        self._turns = WorkerTurns(self.spec, on_stderr)
        self.points: list[StudyPoint] = []
        self.unstored: list[str] = []  # results the store could not take, and where they are
        self.error: dict[str, str] | None = None  # a config mistake ends the study
        self.notes: list[str] = []
        self._t0 = time.monotonic()

    def cancel(self) -> None:
        """Stop after (or during) the running point; finished points stay measured and stored."""
        self._turns.cancel()

    @property
    def cancelled(self) -> bool:
        return self._turns.cancelled

    def events(self) -> Generator[StudyEvent, None, None]:
        self._t0 = time.monotonic()
        yield StudyStarted(
            self.group_id, axis=self.axis.name, values=self.values, config=self.config.to_dict()
        )
        for index, value in enumerate(self.values, start=1):
            if self.cancelled or self.error is not None:
                break
            point = yield from self._point(index, value)
            if point is None:
                break
            self.points.append(point)
            yield PointFinished(self.group_id, point=point)
        yield StudyFinished(self.group_id, summary=self.summary())

    def summary(self) -> StudySummary:
        """The verdicts over the points so far (also after a cancel), on the thread that
        follows events() or once it has ended: `points` grows there."""
        status = "cancelled" if self.cancelled else ("failed" if self.error else "completed")
        return summarize(
            group_id=self.group_id,
            axis=self.axis,
            config=self.config,
            status=status,
            points=self.points,
            seconds=time.monotonic() - self._t0,
            error=self.error,
            notes=[*self.notes, *self.unstored],
            price_basis=self.price_basis,
        )

    def _point(self, index: int, value: Any) -> Generator[StudyEvent, None, StudyPoint | None]:
        refusal = self.axis.refusal(self.config, value)
        if refusal is not None:
            return StudyPoint(index, value, "refused", message=refusal)
        config = self.axis.configure(self.config, value)
        t0 = time.monotonic()
        ended = None
        try:
            with self.axis.around(value):
                ended = yield from run_point(
                    self._turns,
                    config,
                    lambda run_id: PointStarted(self.group_id, index, value, run_id),
                    partial(PointProgress, self.group_id, index, value),
                )
        except PowerLimitError as error:  # the axis could not set, or restore, the machine
            self.error = {"kind": "machine", "message": str(error)}
            if isinstance(error.__context__, GeneratorExit | KeyboardInterrupt):
                raise error.__context__ from None  # closed or interrupted: it goes on out
            if ended is None:  # not set: nothing ran
                return StudyPoint(index, value, "failed", message=str(error))
            # Not restored after the point ran: the point keeps its measurement, the study ends.
        if ended is None:
            return None  # cancelled before it started
        end, env = ended
        return self._verdict(index, value, config, end, env, time.monotonic() - t0)

    def _verdict(
        self,
        index: int,
        value: Any,
        config: RunConfig,
        end: Finished | Failed | None,
        env: dict[str, Any],
        seconds: float,
    ) -> StudyPoint:
        status, message = ending(end)
        run_id = end.run_id if end is not None else ""
        result: dict[str, Any] | None = None
        if isinstance(end, Finished):
            result = self._store(end.result, index, value)
        elif status == "config" and message.startswith(f"{self.axis.field}:"):
            status = "refused"  # this value, refused by the worker itself: the next may run
        elif status == "config":  # the next values would fail the same way
            self.error = self.error or {"kind": "config", "message": message}
        elif isinstance(end, Failed) and stores_failure(status):
            result = self._store(failed_result(end, config, env), index, value)
        owned = None
        if result is not None and status == "ok" and self.price_point is not None:
            owned = self.price_point(result)
        return StudyPoint(index, value, status, run_id, seconds, message, result, owned)

    def _store(self, result: dict[str, Any], index: int, value: Any) -> dict[str, Any]:
        tag = {"group_id": self.group_id, "axis": self.axis.name, "value": value, "point": index}
        result = {**result, **self.axis.tags(self.group_id, value, index), "study": tag}
        if self.store is not None:
            kept = saving.keep(result, self.store, group_id=self.group_id)
            if not kept.stored:
                self.unstored.append(f"point {index}: {kept.message()}")
        return result


def run_study(
    config: RunConfig, axis: Axis, values: tuple[Any, ...], **kwargs: Any
) -> StudySummary:
    """Run a study to its end and return its summary (tests, scripts)."""
    study = Study(config, axis, values, **kwargs)
    for _ in study.events():
        pass
    return study.summary()
