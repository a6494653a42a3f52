"""A sweep over loader workers: one batch size, the same data source, each worker count a run
in a fresh worker; throughput, input wait and $/epoch per count, and the cheapest.

    summary = LoaderSweep(config, (0, 1, 2, 4), store=Store()).run(on_event)

Results are stored as they finish, grouped by the sweep's group_id (role "loader-workers").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.core.asks import ask
from engine.core.checks import int_range
from engine.core.errors import ConfigError
from engine.core.events import Event, Failed, Finished
from engine.core.ids import new_group_id, new_run_id
from engine.measure.config import MAX_LOADER_WORKERS, RunConfig
from engine.measure.result import failed_result
from engine.process.launcher import WorkerSpec
from engine.process.turns import WorkerTurns
from engine.results import saving
from engine.results.store import Store

MAX_COUNTS = 16


@dataclass(frozen=True)
class LoaderPoint:
    """One worker count's run; figures None when it did not finish."""

    loader_workers: int
    status: str
    run_id: str = ""
    throughput_samples_per_s: float | None = None
    input_wait_fraction: float | None = None
    usd_per_epoch: float | None = None
    epoch_seconds: float | None = None
    message: str = ""


@dataclass
class LoaderSummary:
    group_id: str
    model: str
    batch_size: int
    data: str
    points: list[LoaderPoint] = field(default_factory=list)
    status: str = "completed"
    notes: list[str] = field(default_factory=list)

    @property
    def cheapest(self) -> LoaderPoint | None:
        """The count with the lowest $/epoch; without a price, the shortest epoch."""
        done = [p for p in self.points if p.status == "ok" and p.epoch_seconds]
        if not done:
            return None
        if all(p.usd_per_epoch is not None for p in done):
            return min(done, key=lambda p: p.usd_per_epoch or 0.0)
        return min(done, key=lambda p: p.epoch_seconds or 0.0)

    def to_dict(self) -> dict[str, Any]:
        best = self.cheapest
        return {
            "group_id": self.group_id,
            "model": self.model,
            "batch_size": self.batch_size,
            "data": self.data,
            "status": self.status,
            "points": [asdict(p) for p in self.points],
            "cheapest_loader_workers": best.loader_workers if best else None,
            "notes": self.notes,
        }


def check_counts(counts: tuple[int, ...], config: RunConfig) -> tuple[int, ...]:
    """The worker counts to measure; ConfigError naming the field otherwise."""
    if not config.data_spec.reads_files and config.data_spec.kind != "auto":
        raise ConfigError(
            "loader_workers",
            f"a loader-workers sweep needs data to load: give {ask('data')} imagefolder:PATH "
            "or cifar10[:PATH] (or a model file with make_dataset)",
        )
    if not 1 <= len(counts) <= MAX_COUNTS:
        raise ConfigError("loader_workers", f"give 1 to {MAX_COUNTS} counts, as 0,1,2,4")
    for count in counts:
        int_range("loader_workers", count, 0, MAX_LOADER_WORKERS)  # the run's own rule
    return counts


class LoaderSweep:
    """Each worker count in turn; `cancel()` (any thread) stops it, finished points kept."""

    def __init__(
        self,
        config: RunConfig,
        counts: tuple[int, ...],
        *,
        store: Store | None = None,
        spec: WorkerSpec | None = None,
        on_stderr: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config.validated()
        self.counts = check_counts(counts, self.config)
        self.store = store
        self.group_id = new_group_id("sweep")
        self._turns = WorkerTurns(spec or WorkerSpec(), on_stderr)
        self.unstored: list[str] = []

    def cancel(self) -> None:
        self._turns.cancel()

    def run(self, on_event: Callable[[int, Event], None] | None = None) -> LoaderSummary:
        """Measure every count; `on_event(count, event)` sees each worker event."""
        c = self.config
        summary = LoaderSummary(self.group_id, c.model, c.batch_size, c.data)
        for index, count in enumerate(self.counts, start=1):
            config = c.with_changes(loader_workers=count)
            worker = self._turns.start(config, new_run_id())
            if worker is None:
                break
            end, env = yield_all(self._turns, worker, count, on_event)
            point = self._point(index, count, config, end, env)
            summary.points.append(point)
            if point.status == "config":  # the same mistake in every count: stop here
                summary.status = "failed"
                break
        if self._turns.cancelled:
            summary.status = "cancelled"
        summary.notes += self.unstored
        return summary

    def _point(
        self,
        index: int,
        count: int,
        config: RunConfig,
        end: Finished | Failed | None,
        env: dict[str, Any],
    ) -> LoaderPoint:
        if isinstance(end, Finished):
            r = self._store(end.result, index)
            return LoaderPoint(
                count,
                "ok",
                end.run_id,
                r.get("throughput_samples_per_s"),
                r.get("input_wait_fraction"),
                r.get("usd_per_epoch"),
                r.get("epoch_seconds"),
            )
        kind = end.kind if isinstance(end, Failed) else "crashed"
        message = end.message if isinstance(end, Failed) else "the worker ended without a result"
        if isinstance(end, Failed) and kind not in ("config", "cancelled"):
            self._store(failed_result(end, config, env), index)
        return LoaderPoint(count, kind, getattr(end, "run_id", ""), message=message)

    def _store(self, result: dict[str, Any], index: int) -> dict[str, Any]:
        result = {
            **result,
            "sweep": {"group_id": self.group_id, "role": "loader-workers", "trial": index},
        }
        if self.store is not None:
            kept = saving.keep(result, self.store, group_id=self.group_id)
            if not kept.stored:
                self.unstored.append(f"trial {index}: {kept.message()}")
        return result


def yield_all(
    turns: WorkerTurns,
    worker: Any,
    count: int,
    on_event: Callable[[int, Event], None] | None,
) -> tuple[Finished | Failed | None, dict[str, Any]]:
    """Follow one worker to its end, handing each event to `on_event`."""
    follow = turns.follow(worker, lambda event: event)
    while True:
        try:
            event = next(follow)
        except StopIteration as done:
            end: tuple[Finished | Failed | None, dict[str, Any]] = done.value
            return end
        if on_event is not None:
            on_event(count, event)


def text(summary: LoaderSummary) -> str:
    """The sweep as a table for the terminal."""
    lines = [
        f"{summary.model} batch {summary.batch_size}, data {summary.data}: loader workers",
        f"{'workers':>7s}  {'samples/s':>10s}  {'input wait':>10s}  {'$/epoch':>10s}  status",
    ]
    for p in summary.points:
        rate = f"{p.throughput_samples_per_s:,.1f}" if p.throughput_samples_per_s else "-"
        wait = f"{p.input_wait_fraction:.0%}" if p.input_wait_fraction is not None else "-"
        usd = f"{p.usd_per_epoch:.4g}" if p.usd_per_epoch is not None else "-"
        status = p.status if p.status == "ok" else f"{p.status}: {p.message}"
        lines.append(f"{p.loader_workers:>7d}  {rate:>10s}  {wait:>10s}  {usd:>10s}  {status}")
    best = summary.cheapest
    if best is not None:
        basis = "$/epoch" if best.usd_per_epoch is not None else "epoch time (no price given)"
        lines.append(f"cheapest: {best.loader_workers} loader workers (by {basis})")
    lines += [f"note: {n}" for n in summary.notes]
    return "\n".join(lines)
