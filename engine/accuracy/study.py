"""A cost-to-accuracy study, parent side: every batch size x repeat in its own worker process,
one at a time (engine/process/worker_turns.py, as a sweep's trials), each result stored under the
study's group id, then summarised per batch size.

The CLI and the app's Accuracy tab (gui/pages/accuracy/study.py, on a background thread) both
call run_study; plan.configs() gives the order, each run goes through every study's point loop
(engine/study/point.py), repeats.summarise() gives the table.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.accuracy.repeats import BatchSummary, study_total, summarise
from engine.accuracy.result import failed_result, is_accuracy_result
from engine.core.checks import int_range
from engine.core.errors import ConfigError
from engine.core.events import Event, Failed, Finished
from engine.core.ids import new_group_id
from engine.measure.accuracy_config import AccuracyConfig
from engine.measure.config import MAX_BATCH_SIZE
from engine.process.launcher import WorkerSpec
from engine.process.worker_turns import WorkerTurns
from engine.results import saving
from engine.study.point import run_point_through

if TYPE_CHECKING:  # the store imports pandas; the GUI builds plans before it needs one
    from engine.results.store import Store

MAX_REPEATS = 100


def new_study_id() -> str:
    """accuracy-20261122T031500-1a2b3c4d: the group id of a study's runs."""
    return new_group_id("accuracy")


@dataclass(frozen=True)
class StudyPlan:
    """`base` with each batch size and repeat. Repeat r uses seed base.seed + r, so repeats
    differ in initial weights and shuffling, and the same plan gives the same runs again."""

    base: AccuracyConfig
    batch_sizes: tuple[int, ...]
    repeats: int = 3
    study_id: str = field(default_factory=new_study_id)

    def validated(self) -> StudyPlan:
        if not self.batch_sizes:
            raise ConfigError("batch_sizes", "give at least one batch size, e.g. 64,128")
        for b in self.batch_sizes:  # the run's own rule, as a sweep's batch sizes
            int_range("batch_sizes", b, 1, MAX_BATCH_SIZE)
        if len(set(self.batch_sizes)) != len(self.batch_sizes):
            raise ConfigError("batch_sizes", "a batch size is given twice")
        int_range("repeats", self.repeats, 1, MAX_REPEATS)
        for config in self.configs():
            config.validated()
        return self

    def configs(self) -> list[AccuracyConfig]:
        """Repeat by repeat, each over every batch size: a drift in the machine's speed then
        touches every batch size alike."""
        return [
            self.base.with_changes(batch_size=b, repeat=r, seed=self.base.seed + r)
            for r in range(self.repeats)
            for b in self.batch_sizes
        ]


@dataclass
class StudyOutcome:
    study_id: str
    results: list[dict[str, Any]] = field(default_factory=list)
    cancelled: bool = False
    # Results the store could not take, each with where it is kept instead (saving.Kept).
    unstored: list[str] = field(default_factory=list)

    @property
    def summaries(self) -> list[BatchSummary]:
        return summarise(self.results)

    @property
    def total(self) -> dict[str, float | None]:
        return study_total(self.results)

    @property
    def failed(self) -> bool:
        return any(r["status"] != "ok" for r in self.results)


def run_study(
    plan: StudyPlan,
    *,
    store: Store | None = None,
    on_event: Callable[[Event], None] | None = None,
    spec: WorkerSpec | None = None,
    cancel: threading.Event | None = None,
) -> StudyOutcome:
    """Run every config of `plan` in turn, each in a fresh worker; store each result as it
    ends. A config failure (e.g. no such device) stops the study with a ConfigError; any other
    failure is a result and the study goes on. Setting `cancel` (from any thread; the CLI sets
    it on Ctrl-C) stops the running worker and ends the study, keeping what finished and the
    cancelled run."""
    turns = WorkerTurns(spec or WorkerSpec(), cancel=cancel)
    out = StudyOutcome(plan.study_id)
    for config in plan.configs():
        ended = _one(turns, config, on_event)
        if ended is None:  # cancelled before it started
            out.cancelled = True
            break
        result, failure = ended
        if failure is not None and failure.kind == "config":
            raise ConfigError("config", failure.message)
        if store is not None:
            kept = saving.keep(result, store, group_id=plan.study_id)
            if not kept.stored:
                out.unstored.append(kept.message())
        out.results.append(result)
        if failure is not None and failure.kind == "cancelled":
            out.cancelled = True
            break
    return out


def _one(
    turns: WorkerTurns, config: AccuracyConfig, on_event: Callable[[Event], None] | None
) -> tuple[dict[str, Any], Failed | None] | None:
    """One run's result and failure; None when the study was cancelled before it started. The
    run goes through every study's point loop (engine/study/point.py)."""
    ended = run_point_through(turns, config, on_event)
    if ended is None:
        return None
    end, env = ended
    if isinstance(end, Finished):
        return end.result, None
    if isinstance(end, Failed):
        return failed_result(end, config, env), end
    raise RuntimeError("the event stream ended without finished or failed")


def study_results(store: Store, study_id: str) -> list[dict[str, Any]]:
    """The stored accuracy results of one study, oldest first."""
    listing = store.list(group_id=study_id)
    results = [store.get(run_id) for run_id in reversed(listing["run_id"].tolist())]
    return [r for r in results if is_accuracy_result(r)]
