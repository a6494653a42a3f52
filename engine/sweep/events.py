"""What a sweep reports as it goes: frozen events a CLI or a GUI thread consumes in order.

A sweep is a sequence of trials, each a fresh worker process. Its events: `sweep_started`,
then per trial `trial_started`, the worker's own events wrapped in `trial_progress`, and
`trial_finished` with the Trial; `search_finished` after a max-fit search; `sweep_finished` with
the summary, always last (also after a cancel or a failure).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.core.events import Event

# Trial roles: a short run of the max-fit search, the run that confirms the recommended batch,
# a point of the sweep (a normal run).
ROLES = ("probe", "confirm", "point")
# Trial statuses. "crashed": the worker died without a verdict (a host OOM kill is SIGKILL);
# the search counts it as not fitting and says so. "failed": a framework error.
# "skipped": not run, because a smaller batch did not fit.
TRIAL_STATUSES = ("ok", "oom", "crashed", "failed", "cancelled", "skipped")


@dataclass(frozen=True)
class Trial:
    """One batch size tried. Times in seconds; `result` is the stored result (None if none)."""

    index: int
    batch_size: int
    role: str
    status: str
    run_id: str | None = None
    seconds: float = 0.0
    message: str = ""
    result: dict[str, Any] | None = None

    @property
    def fits(self) -> bool:
        return self.status == "ok"

    @property
    def counts_as_not_fitting(self) -> bool:
        return self.status in ("oom", "crashed")

    def value(self, key: str) -> Any:
        return (self.result or {}).get(key)

    def interval(self, key: str) -> tuple[float | None, float | None]:
        """(low, high) of the 95% interval stored as `key` (e.g. throughput_ci95), or Nones."""
        pair = self.value(key)
        return (pair[0], pair[1]) if isinstance(pair, list) and len(pair) == 2 else (None, None)

    def to_row(self) -> dict[str, Any]:
        """A flat dict: one point of a sweep (JSON, tables, CSV), with its 95% intervals."""
        tput_low, tput_high = self.interval("throughput_ci95")
        usd_low, usd_high = self.interval("usd_per_epoch_ci95")
        return {
            "batch_size": self.batch_size,
            "status": self.status,
            "role": self.role,
            "throughput_samples_per_s": self.value("throughput_samples_per_s"),
            "throughput_low": tput_low,
            "throughput_high": tput_high,
            "memory_fill": self.value("memory_fill"),
            "peak_memory_bytes": self.value("peak_memory_bytes"),
            "epoch_seconds": self.value("epoch_seconds"),
            "usd_per_epoch": self.value("usd_per_epoch"),
            "usd_per_epoch_low": usd_low,
            "usd_per_epoch_high": usd_high,
            "run_id": self.run_id,
            "trial": self.index,
            "seconds": self.seconds,
            "message": self.message,
        }


@dataclass(frozen=True)
class SweepEvent:
    type: ClassVar[str] = "sweep_event"
    group_id: str


@dataclass(frozen=True)
class SweepStarted(SweepEvent):
    type: ClassVar[str] = "sweep_started"
    plan: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TrialStarted(SweepEvent):
    type: ClassVar[str] = "trial_started"
    index: int = 0
    batch_size: int = 0
    role: str = "point"
    run_id: str = ""


@dataclass(frozen=True)
class TrialProgress(SweepEvent):
    """A worker event (phase, step, sample, ...) of the running trial."""

    type: ClassVar[str] = "trial_progress"
    index: int = 0
    batch_size: int = 0
    event: Event | None = None


@dataclass(frozen=True)
class TrialFinished(SweepEvent):
    type: ClassVar[str] = "trial_finished"
    trial: Trial | None = None


@dataclass(frozen=True)
class SearchFinished(SweepEvent):
    """The max-fit search is over (a sweep's points may follow)."""

    type: ClassVar[str] = "search_finished"
    max_fit_batch: int | None = None
    recommended_batch: int | None = None
    trials: int = 0


@dataclass(frozen=True)
class SweepFinished(SweepEvent):
    type: ClassVar[str] = "sweep_finished"
    summary: Any = None  # engine.sweep.summary.SweepSummary
