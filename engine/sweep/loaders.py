"""A sweep over loader workers: one batch size, the same data source, each worker count a run
in a fresh worker; throughput, input wait and $/epoch per count, and the cheapest.

    summary = LoaderSweep(config, (0, 1, 2, 4), store=Store()).run()

A study on the loader-workers axis (engine/study): results are stored as they finish, grouped
by the sweep's group_id (role "loader-workers"); the summary keeps the sweep's own shape.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.core.checks import int_range
from engine.core.errors import ConfigError
from engine.measure.config import MAX_LOADER_WORKERS, RunConfig
from engine.process.launcher import WorkerSpec
from engine.results.store import Store
from engine.study.axes import LoaderWorkersAxis
from engine.study.point import StudyPoint
from engine.study.study import Study
from engine.study.summary import StudySummary

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
    LoaderWorkersAxis().prepare(config, counts)
    if not 1 <= len(counts) <= MAX_COUNTS:
        raise ConfigError("loader_workers", f"give 1 to {MAX_COUNTS} counts, as 0,1,2,4")
    for count in counts:
        int_range("loader_workers", count, 0, MAX_LOADER_WORKERS)  # the run's own rule
    return counts


class LoaderSweep:
    """Each worker count in turn, a study on the loader-workers axis (engine/study);
    `cancel()` (any thread) stops it, finished points kept."""

    def __init__(
        self,
        config: RunConfig,
        counts: tuple[int, ...],
        *,
        store: Store | None = None,
        spec: WorkerSpec | None = None,
        on_stderr: Callable[[str], None] | None = None,
    ) -> None:
        self.counts = check_counts(counts, config.validated())
        self.study = Study(
            config, LoaderWorkersAxis(), self.counts, store=store, spec=spec, on_stderr=on_stderr
        )
        self.config = self.study.config
        self.group_id = self.study.group_id

    @property
    def unstored(self) -> list[str]:
        return self.study.unstored

    def cancel(self) -> None:
        self.study.cancel()

    def run(self) -> LoaderSummary:
        """Measure every count (the command line follows `study` itself, with its progress)."""
        for _ in self.study.events():
            pass
        return loader_summary(self.study.summary(), self.config)


def loader_summary(study: StudySummary, config: RunConfig) -> LoaderSummary:
    """A loader-workers study in the sweep's own shape (its JSON and table are unchanged)."""
    summary = LoaderSummary(study.group_id, config.model, config.batch_size, config.data)
    for p in study.points:
        status = "ok" if p.ok else (p.status if p.status != "failed" else _kind(p))
        summary.points.append(
            LoaderPoint(
                p.value,
                status,
                p.run_id,
                p.figure("throughput_samples_per_s"),
                p.figure("input_wait_fraction"),
                p.figure("usd_per_epoch"),
                p.figure("epoch_seconds"),
                p.message,
            )
        )
    summary.status = study.status
    summary.notes += [n for n in study.notes if n.startswith("point ")]
    return summary


def _kind(point: StudyPoint) -> str:
    """A failed point's failure kind as the worker said it (framework, ...)."""
    error = (point.result or {}).get("error") or {}
    return str(error.get("kind") or point.status)


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
