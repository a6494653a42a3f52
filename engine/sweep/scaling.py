"""A scaling study: the same run at several process counts, each a data-parallel run of its own
(a count of 1 is a plain run), stored as one group, with the efficiency against perfect
scaling at each count (engine/results/scaling.py; docs/scaling.md).

    study = ScalingStudy(config, (1, 2, 4), store=Store())
    for event in study.events():   # ScalingProgress while a count runs, PointDone after it
        ...                        # study.cancel() from any thread stops it, keeping the points
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from engine.core.errors import ConfigError
from engine.core.events import Event, Failed, Finished
from engine.core.ids import new_run_id
from engine.measure.config import MAX_PROCESSES, RunConfig
from engine.measure.result import failed_result
from engine.process.launcher import WorkerSpec
from engine.process.turns import WorkerTurns
from engine.results import saving
from engine.results.scaling import SCALING_PREFIX, Point, with_efficiency
from engine.results.store import Store

MAX_COUNTS = 16


def parse_counts(text: str) -> tuple[int, ...]:
    """'1,2,4,8' -> (1, 2, 4, 8): distinct whole numbers, in order; ConfigError otherwise."""
    counts: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or not 1 <= int(part) <= MAX_PROCESSES:
            raise ConfigError(
                "nproc", f"{part!r} is not a process count: give 1 to {MAX_PROCESSES}, as 1,2,4,8"
            )
        if int(part) not in counts:
            counts.append(int(part))
    if len(counts) < 2 or len(counts) > MAX_COUNTS:
        raise ConfigError("nproc", f"give 2 to {MAX_COUNTS} process counts, as 1,2,4,8")
    return tuple(sorted(counts))


@dataclass(frozen=True)
class ScalingProgress:
    """An event of the count now running."""

    nproc: int
    event: Event


@dataclass(frozen=True)
class PointDone:
    """A count has ended: its point (efficiency filled in by the summary)."""

    point: Point


class ScalingStudy:
    """One scaling study. Iterate `events()` once; `cancel()` is thread-safe."""

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
        # One CPU thread a process unless --threads says otherwise, at every count: what
        # torchrun gives each of its processes (OMP_NUM_THREADS=1), so that the counts compare.
        self.config = config.with_changes(
            nproc=1, nnodes=1, node_rank=0, rdzv_endpoint=None, threads=config.threads or 1
        )
        self.counts = counts
        self.config.with_changes(nproc=max(counts))  # what the largest count cannot do, now
        self.store = store
        self.spec = spec or WorkerSpec()
        self.group_id = group_id or SCALING_PREFIX + new_run_id()
        self._turns = WorkerTurns(self.spec, on_stderr)
        self.points: list[Point] = []
        self.unstored: list[str] = []  # results the store could not take, and where they are
        self.error: dict[str, str] | None = None  # a config failure ends the study
        self._t0 = time.monotonic()

    def cancel(self) -> None:
        self._turns.cancel()

    @property
    def cancelled(self) -> bool:
        return self._turns.cancelled

    def events(self) -> Iterator[ScalingProgress | PointDone]:
        self._t0 = time.monotonic()
        for nproc in self.counts:
            if self.cancelled or self.error is not None:
                return
            config = self.config.with_changes(nproc=nproc)
            worker = self._turns.start(config)
            if worker is None:
                return
            end, env = yield from self._turns.follow(worker, partial(ScalingProgress, nproc))
            point = self._point(nproc, config, end, env)
            if point is not None:
                self.points.append(point)
                yield PointDone(point)

    def _point(
        self, nproc: int, config: RunConfig, end: Finished | Failed | None, env: dict[str, Any]
    ) -> Point | None:
        if isinstance(end, Finished):
            self._store(end.result, nproc)
            return Point(nproc, end.result["throughput_samples_per_s"], run_id=end.run_id)
        assert isinstance(end, Failed)  # WorkerProcess.events() always ends with one or other
        if end.kind == "cancelled":
            return None
        if end.kind == "config":  # the next counts would fail the same way
            self.error = {"kind": "config", "message": end.message}
            return None
        self._store(failed_result(end, config, env), nproc)
        status = "oom" if end.kind == "oom" else "failed"
        return Point(nproc, None, None, end.run_id, status, end.message)

    def _store(self, result: dict[str, Any], nproc: int) -> None:
        result = {**result, "scaling": {"group_id": self.group_id, "nproc": nproc}}
        if self.store is not None:
            kept = saving.keep(result, self.store, group_id=self.group_id)
            if not kept.stored:
                self.unstored.append(kept.message())

    def summary(self) -> dict[str, Any]:
        """The study so far: its points with efficiency (also after a cancel)."""
        status = "cancelled" if self.cancelled else ("failed" if self.error else "completed")
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
            "seconds": time.monotonic() - self._t0,
            "points": [p.to_dict() for p in with_efficiency(self.points)],
        }
