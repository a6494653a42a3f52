"""One point of a study: a value of its axis run in a fresh worker, how it ended, its figures.

Every study's points end the same way (`ending`): "ok" with a result; "oom", "crashed",
"failed", "config" (the run's settings are wrong: the next values would fail the same way),
"cancelled"; or, never run, "refused" (the device cannot run this value: why).
A point that did not end ok keeps its failed result, stored so the failure is on record
(engine/measure/result.failed_result), except a cancel or a config mistake.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

from engine.core.events import Event, Failed, Finished
from engine.core.ids import new_run_id
from engine.measure.config import TrainingConfig
from engine.process.worker_turns import Ending, WorkerTurns

POINT_STATUSES = ("ok", "oom", "crashed", "failed", "config", "cancelled", "refused")
_STATUS_OF_KIND = {"oom": "oom", "crashed": "crashed", "cancelled": "cancelled", "config": "config"}
NO_RESULT = "the worker ended without a result"
T = TypeVar("T")


def run_point(
    turns: WorkerTurns,
    config: TrainingConfig,
    started: Callable[[str], T],
    wrap: Callable[[Event], T],
) -> Generator[T, None, Ending | None]:
    """One point in a fresh worker, for every study (the batch sweep's trials too): `started`
    (given its run id) once the worker is up, then each of its events through `wrap`; returns
    how it ended and the environment it reported, or None when the study was cancelled before
    it started. Closed at any yield, the worker is ended (WorkerTurns.follow, or here before
    it is followed)."""
    worker = turns.start(config, new_run_id())
    if worker is None:
        return None
    try:
        yield started(worker.run_id)
    except GeneratorExit:
        worker.close()
        raise
    return (yield from turns.follow(worker, wrap))


def run_point_through(
    turns: WorkerTurns, config: TrainingConfig, on_event: Callable[[Event], None] | None = None
) -> Ending | None:
    """run_point to its end for a caller that takes events by callback (the accuracy study)."""
    points = run_point(turns, config, lambda run_id: None, lambda event: event)
    while True:
        try:
            event = next(points)
        except StopIteration as done:
            ended: Ending | None = done.value
            return ended
        if event is not None and on_event is not None:
            on_event(event)


def ending(end: Finished | Failed | None) -> tuple[str, str]:
    """(status, message) of a worker's last event."""
    if isinstance(end, Finished):
        return "ok", ""
    if isinstance(end, Failed):
        return _STATUS_OF_KIND.get(end.kind, "failed"), end.message
    return "crashed", NO_RESULT


def stores_failure(status: str) -> bool:
    """Whether a point that ended so keeps a failed result on record."""
    return status not in ("ok", "cancelled", "config", "refused")


@dataclass(frozen=True)
class StudyPoint:
    """One value of the axis. `result` is the stored result (None: none)."""

    index: int
    value: Any
    status: str
    run_id: str = ""
    seconds: float = 0.0
    message: str = ""
    result: dict[str, Any] | None = None
    owned_usd_per_epoch: float | None = None  # at the owned price, from this point's own power

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def figure(self, key: str) -> Any:
        return (self.result or {}).get(key)

    def interval(self, key: str) -> tuple[float | None, float | None]:
        pair = self.figure(key)
        return (
            (pair[0], pair[1])
            if isinstance(pair, list | tuple) and len(pair) == 2
            else (None, None)
        )

    @property
    def kwh_per_epoch(self) -> float | None:
        return ((self.result or {}).get("energy") or {}).get("kwh_per_epoch")

    @property
    def usd_per_epoch(self) -> float | None:
        """The point's $/epoch: at the owned price where one was given, else the run's."""
        if self.owned_usd_per_epoch is not None:
            return self.owned_usd_per_epoch
        value = self.figure("usd_per_epoch")
        return float(value) if value is not None else None

    def row(self) -> dict[str, Any]:
        """A flat dict (JSON, tables): the value, its figures with their 95% intervals."""
        tput_low, tput_high = self.interval("throughput_ci95")
        usd_low, usd_high = self.interval("usd_per_epoch_ci95")
        return {
            "value": self.value,
            "status": self.status,
            "throughput_samples_per_s": self.figure("throughput_samples_per_s"),
            "throughput_low": tput_low,
            "throughput_high": tput_high,
            "peak_memory_bytes": self.figure("peak_memory_bytes"),
            "memory_fill": self.figure("memory_fill"),
            "epoch_seconds": self.figure("epoch_seconds"),
            "usd_per_epoch": self.figure("usd_per_epoch"),
            "usd_per_epoch_low": usd_low,
            "usd_per_epoch_high": usd_high,
            "owned_usd_per_epoch": self.owned_usd_per_epoch,
            "kwh_per_epoch": self.kwh_per_epoch,
            "input_wait_fraction": self.figure("input_wait_fraction"),
            "run_id": self.run_id,
            "point": self.index,
            "seconds": self.seconds,
            "message": self.message,
        }
