"""What a sweep found: its points, the max fit, and the verdicts (cheapest batch, knee).

Cheapest: the lowest cost of an epoch. Every point of a sweep runs on the same machine at the
same price, so it is also the fastest epoch; without a price it is exactly that, and says so.
Knee: the smallest batch within a tolerance (5%) of the best throughput, since a larger batch
changes convergence and the user should see what it buys.
Where the cheapest's 95% throughput interval overlaps another batch's, the measurements cannot
tell them apart: the summary names those (`cheapest_rivals`) and its first note says "no clear
winner" and what would settle it (engine/core/verdict.py), for the CLI and the app alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.core import verdict
from engine.core.events import json_safe
from engine.core.placeholders import ask
from engine.core.precision import MARK, PRICE_TOLERANCE, imprecise
from engine.sweep.events import Trial

SCHEMA = "epochcost.sweep/1"
FULL_RUN_ROLES = ("point", "confirm")


@dataclass(frozen=True)
class SearchOutcome:
    """The max-fit search's answer. Batch sizes are ones that were run, never guesses."""

    max_fit_batch: int | None = None
    first_failure_batch: int | None = None
    recommended_batch: int | None = None
    limit: int | None = None
    limit_reason: str | None = None
    reached_limit: bool = False
    notes: tuple[str, ...] = ()


def points(trials: tuple[Trial, ...] | list[Trial]) -> list[Trial]:
    """One trial per batch size, ascending: a full run over a probe, a later over an earlier."""
    best: dict[int, Trial] = {}
    for trial in trials:
        if trial.status == "cancelled":
            continue
        held = best.get(trial.batch_size)
        if held is None or _rank(trial) >= _rank(held):
            best[trial.batch_size] = trial
    return [best[b] for b in sorted(best)]


def _rank(trial: Trial) -> int:
    return 1 if trial.role in FULL_RUN_ROLES else 0


def verdict_points(all_points: list[Trial], ceiling: int | None = None) -> list[Trial]:
    """Points the verdicts compare: full runs that trained (probes only when there are none),
    at or below `ceiling` (the recommended batch: above it the margin is gone)."""
    ok = [p for p in all_points if p.fits and p.value("throughput_samples_per_s")]
    if ceiling is not None:
        ok = [p for p in ok if p.batch_size <= ceiling]
    full = [p for p in ok if p.role in FULL_RUN_ROLES]
    return full or ok


def cheapest(candidates: list[Trial]) -> tuple[int | None, str | None]:
    """(batch size, basis): the lowest usd_per_epoch, or the shortest epoch without a price."""
    if not candidates:
        return None, None
    priced = [p for p in candidates if p.value("usd_per_epoch") is not None]
    if len(priced) == len(candidates):
        best = min(priced, key=lambda p: (p.value("usd_per_epoch"), p.batch_size))
        return best.batch_size, "usd_per_epoch"
    best = max(candidates, key=lambda p: (p.value("throughput_samples_per_s"), -p.batch_size))
    return best.batch_size, "epoch_seconds"


SETTLE = (
    "more measuring windows (repeats) or longer ones would narrow them, and a quieter machine "
    "(nothing else running) would too"
)


def cheapest_rivals(candidates: list[Trial], best_batch: int | None) -> tuple[int, ...]:
    """Batch sizes whose 95% throughput interval overlaps the cheapest's (on one machine at one
    price, cost follows throughput)."""
    best = next((p for p in candidates if p.batch_size == best_batch), None)
    if best is None:
        return ()
    others = [(p.batch_size, _interval(p)) for p in candidates if p is not best]
    return verdict.rivals(_interval(best), others)


def _interval(p: Trial) -> verdict.Interval | None:
    low, high = p.interval("throughput_ci95")
    return None if low is None or high is None else (low, high)


def no_clear_winner_note(candidates: list[Trial], best: int, close: tuple[int, ...]) -> str:
    widths = [
        verdict.spread_text(_interval(p), p.value("throughput_samples_per_s"))
        for b in (best, *close)
        for p in candidates
        if p.batch_size == b
    ]
    return verdict.no_clear_winner(best, close, SETTLE, ", ".join(widths))


def imprecise_note(candidates: list[Trial]) -> str | None:
    """The batches whose runs are not precise enough to price (engine/core/precision.py): the
    cheapest verdict rests on them, and says so."""
    rough = [p.batch_size for p in candidates if p.result and imprecise(p.result) is not None]
    if not rough:
        return None
    names = ", ".join(f"batch {b}" for b in rough)
    return (
        f"{names}: {MARK} (95% interval wider than ±{PRICE_TOLERANCE:.0%}), so the cheapest "
        f"batch may be another; {SETTLE}"
    )


def knee(candidates: list[Trial], tolerance: float) -> tuple[int | None, float | None]:
    """(smallest batch within `tolerance` of the best throughput, that best throughput)."""
    if not candidates:
        return None, None
    best = max(p.value("throughput_samples_per_s") for p in candidates)
    near = [
        p.batch_size
        for p in candidates
        if p.value("throughput_samples_per_s") >= (1 - tolerance) * best
    ]
    return min(near), best


@dataclass(frozen=True)
class SweepSummary:
    group_id: str
    model: str
    mode: str
    status: str  # completed | cancelled | failed
    trials: tuple[Trial, ...]
    search: SearchOutcome | None
    cheapest_batch: int | None
    cheapest_basis: str | None  # usd_per_epoch | epoch_seconds
    knee_batch: int | None
    best_throughput_samples_per_s: float | None
    knee_tolerance: float
    seconds: float
    error: dict[str, Any] | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    plan: dict[str, Any] = field(default_factory=dict)
    cheapest_rivals: tuple[int, ...] = ()  # batches the data cannot tell from the cheapest

    @property
    def points(self) -> list[Trial]:
        return points(self.trials)

    @property
    def any_fit(self) -> bool:
        return any(t.fits for t in self.trials)

    def to_dict(self) -> dict[str, Any]:
        s = self.search or SearchOutcome()
        return json_safe(
            {
                "schema": SCHEMA,
                "group_id": self.group_id,
                "model": self.model,
                "mode": self.mode,
                "plan": self.plan,
                "status": self.status,
                "error": self.error,
                "points": [p.to_row() for p in self.points],
                "max_fit_batch": s.max_fit_batch,
                "first_failure_batch": s.first_failure_batch,
                "recommended_batch": s.recommended_batch,
                "search_limit": s.limit,
                "search_limit_reason": s.limit_reason,
                "cheapest_batch": self.cheapest_batch,
                "cheapest_basis": self.cheapest_basis,
                "cheapest_rivals": list(self.cheapest_rivals),
                "knee_batch": self.knee_batch,
                "knee_tolerance": self.knee_tolerance,
                "best_throughput_samples_per_s": self.best_throughput_samples_per_s,
                "trials": len([t for t in self.trials if t.status != "skipped"]),
                "trial_log": [t.to_row() for t in self.trials],
                "seconds": self.seconds,
                "notes": list(self.notes) + list(s.notes),
            }
        )


def summarize(
    *,
    group_id: str,
    model: str,
    mode: str,
    status: str,
    trials: list[Trial],
    search: SearchOutcome | None,
    knee_tolerance: float,
    seconds: float,
    error: dict[str, Any] | None = None,
    notes: list[str] | None = None,
    plan: dict[str, Any] | None = None,
) -> SweepSummary:
    """The verdicts over the trials run so far (a cancelled sweep keeps what it measured)."""
    ceiling = search.recommended_batch if search else None
    candidates = verdict_points(points(trials), ceiling)
    cheapest_batch, basis = cheapest(candidates)
    knee_batch, best = knee(candidates, knee_tolerance)
    notes = list(notes or [])
    close = cheapest_rivals(candidates, cheapest_batch)
    rough = imprecise_note(candidates)
    if rough:
        notes.insert(0, rough)
    if cheapest_batch is not None and close:
        notes.insert(0, no_clear_winner_note(candidates, cheapest_batch, close))
    if basis == "epoch_seconds":
        price = ask("usd_per_hour")
        notes.append(f"no price given: cheapest = the fastest epoch ({price} prices it)")
    if candidates and all(p.role == "probe" for p in candidates):
        notes.append("verdicts come from the search's short probe runs")
    if mode == "max-fit" and len(candidates) == 1:
        notes.append("one full run: sweep the batch sizes to compare them")
    return SweepSummary(
        group_id=group_id,
        model=model,
        mode=mode,
        status=status,
        trials=tuple(trials),
        search=search,
        cheapest_batch=cheapest_batch,
        cheapest_basis=basis,
        knee_batch=knee_batch,
        best_throughput_samples_per_s=best,
        knee_tolerance=knee_tolerance,
        seconds=seconds,
        error=error,
        notes=tuple(notes),
        plan=dict(plan or {}),
        cheapest_rivals=close,
    )
