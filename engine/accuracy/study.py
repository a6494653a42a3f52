"""A cost-to-accuracy study, parent side: every batch size x repeat in its own worker process,
each result stored under the study's group id, then summarised per batch size.

The GUI runs the same plan with its own EngineThread per config: plan.configs() gives the
order, result_of() turns a run's events into the result to store, repeats.summarise() the table.
"""

from __future__ import annotations

import datetime as _dt
import threading
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.accuracy.repeats import BatchSummary, study_total, summarise
from engine.accuracy.result import failed_result, is_accuracy_result
from engine.core.errors import ConfigError
from engine.core.events import Event, Failed, Finished, Started
from engine.measure.accuracy_config import AccuracyConfig
from engine.measure.config import MAX_BATCH_SIZE
from engine.process.launcher import WorkerProcess, WorkerSpec
from engine.results import saving

if TYPE_CHECKING:  # the store imports pandas; the GUI builds plans before it needs one
    from engine.results.store import Store

MAX_REPEATS = 100


def new_study_id() -> str:
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"accuracy-{stamp}-{uuid.uuid4().hex[:6]}"


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
        for b in self.batch_sizes:
            if isinstance(b, bool) or not isinstance(b, int) or not 1 <= b <= MAX_BATCH_SIZE:
                raise ConfigError(
                    "batch_sizes", f"{b!r} is not a batch size (1 to {MAX_BATCH_SIZE})"
                )
        if len(set(self.batch_sizes)) != len(self.batch_sizes):
            raise ConfigError("batch_sizes", "a batch size is given twice")
        if isinstance(self.repeats, bool) or not 1 <= self.repeats <= MAX_REPEATS:
            raise ConfigError("repeats", f"{self.repeats!r} is out of range (1 to {MAX_REPEATS})")
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


def result_of(
    config: AccuracyConfig, events: Iterable[Event]
) -> tuple[dict[str, Any], Failed | None]:
    """The result to store from one run's events (a failure becomes a failed result), and the
    failure if there was one."""
    env: dict[str, Any] = {}
    for event in events:
        if isinstance(event, Started):
            env = dict(event.environment)
        elif isinstance(event, Finished):
            return event.result, None
        elif isinstance(event, Failed):
            return failed_result(event, config, env), event
    raise RuntimeError("the event stream ended without finished or failed")


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
    failure is a result and the study goes on. Ctrl-C (or `cancel`) ends it after the current
    run stops, keeping what finished."""
    out = StudyOutcome(plan.study_id)
    for config in plan.configs():
        if cancel is not None and cancel.is_set():
            out.cancelled = True
            break
        result, failure = _one(config, spec, on_event, cancel)
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
    config: AccuracyConfig,
    spec: WorkerSpec | None,
    on_event: Callable[[Event], None] | None,
    cancel: threading.Event | None,
) -> tuple[dict[str, Any], Failed | None]:
    worker = WorkerProcess(config, spec).start()
    watcher = None
    if cancel is not None:  # pass a cancel from another thread (the GUI) on to the worker
        watcher = threading.Thread(target=_forward_cancel, args=(cancel, worker), daemon=True)
        watcher.start()
    seen: list[Event] = []

    def stream() -> Iterable[Event]:
        for event in worker.events():
            seen.append(event)
            if on_event:
                on_event(event)
            yield event

    try:
        return result_of(config, stream())
    except KeyboardInterrupt:
        worker.cancel()
        return result_of(config, [*seen, *stream()])
    finally:
        worker.close()
        if watcher is not None:
            watcher.join(timeout=1.0)  # it ends once the worker process has


def _forward_cancel(cancel: threading.Event, worker: WorkerProcess) -> None:
    while worker.proc is not None and worker.proc.poll() is None:
        if cancel.wait(0.2):
            worker.cancel()
            return


def study_results(store: Store, study_id: str) -> list[dict[str, Any]]:
    """The stored accuracy results of one study, oldest first."""
    listing = store.list(group_id=study_id)
    results = [store.get(run_id) for run_id in reversed(listing["run_id"].tolist())]
    return [r for r in results if is_accuracy_result(r)]
