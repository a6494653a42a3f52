"""Statistics over the repeats of a cost-to-accuracy study, per batch size.

Point figures (iteration, time, accuracy and cost at the stabilisation point or target) are
taken over the repeats that reached it; a repeat that never settled is counted, not averaged
in. Run figures (the whole run's time and cost) are over every repeat that finished. A std is
the sample standard deviation, null with fewer than two values.

The verdict (`cheapest`): the batch size cheapest to the point (fastest without a price), and
those whose mean's 95% interval overlaps its own, which the repeats cannot tell from it ("no
clear winner between A and B"), for the CLI and the app alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.accuracy.result import is_accuracy_result
from engine.core import verdict
from engine.core.stats import Spread, spread

SETTLE = (
    "more repeats would narrow them (time to accuracy varies from seed to seed), and a "
    "quieter machine (nothing else running) would too"
)


@dataclass(frozen=True)
class BatchSummary:
    """One batch size of a study. Seconds are time to accuracy (see the result's point)."""

    batch_size: int
    repeats: int  # runs of this batch size, whatever their end
    reached: int  # runs that met the target or settled
    failed: int  # runs that ended without a curve (oom, crash, cancelled)
    stabilization_iteration: Spread
    epochs: Spread
    seconds: Spread
    accuracy: Spread
    usd: Spread
    run_seconds: Spread  # whole runs: set-up, training past the point, evaluation
    run_usd: Spread
    throughput_samples_per_s: Spread
    run_ids: tuple[str, ...]
    failures: tuple[str, ...]  # messages of the failed runs

    @property
    def never_reached(self) -> int:
        return self.repeats - self.reached - self.failed

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"batch_size": self.batch_size, "repeats": self.repeats}
        out |= {"reached": self.reached, "never_reached": self.never_reached}
        out |= {"failed": self.failed}
        for name in (
            "stabilization_iteration",
            "epochs",
            "seconds",
            "accuracy",
            "usd",
            "run_seconds",
            "run_usd",
            "throughput_samples_per_s",
        ):
            out[name] = getattr(self, name).to_dict()
        return out | {"run_ids": list(self.run_ids), "failures": list(self.failures)}


def _point(result: dict[str, Any], key: str) -> float | None:
    section = result.get("accuracy") or {}
    point = section.get("point")
    return None if point is None else point.get(key)


def _run(result: dict[str, Any], key: str) -> float | None:
    section = result.get("accuracy") or {}
    return (section.get("run") or {}).get(key)


def summarise_batch(batch_size: int, results: Sequence[dict[str, Any]]) -> BatchSummary:
    ok = [r for r in results if r["status"] == "ok" and r.get("accuracy")]
    reached = [r for r in ok if r["accuracy"]["reached"]]
    failed = [r for r in results if r not in ok]
    return BatchSummary(
        batch_size=batch_size,
        repeats=len(results),
        reached=len(reached),
        failed=len(failed),
        stabilization_iteration=spread([_point(r, "iteration") for r in reached]),
        epochs=spread([_point(r, "epochs") for r in reached]),
        seconds=spread([_point(r, "seconds") for r in reached]),
        accuracy=spread([_point(r, "accuracy") for r in reached]),
        usd=spread([_point(r, "usd") for r in reached]),
        run_seconds=spread([_run(r, "seconds") for r in ok]),
        run_usd=spread([_run(r, "usd") for r in ok]),
        throughput_samples_per_s=spread([r.get("throughput_samples_per_s") for r in ok]),
        run_ids=tuple(r["run_id"] for r in results),
        failures=tuple((r.get("error") or {}).get("message", r["status"]) for r in failed),
    )


def summarise(results: Iterable[dict[str, Any]]) -> list[BatchSummary]:
    """One summary per batch size, smallest first, from accuracy results (others are skipped)."""
    by_batch: dict[int, list[dict[str, Any]]] = {}
    for result in results:
        if is_accuracy_result(result):
            by_batch.setdefault(int(result["config"]["batch_size"]), []).append(result)
    return [summarise_batch(b, by_batch[b]) for b in sorted(by_batch)]


def study_total(results: Iterable[dict[str, Any]]) -> dict[str, float | None]:
    """What the whole study took and cost: the sum over its finished runs (set-up, training
    and evaluation), so the price of finding the answer is known as well as the answer."""
    runs = [r["accuracy"]["run"] for r in results if r["status"] == "ok" and r.get("accuracy")]
    usd = [run["usd"] for run in runs]
    return {
        "seconds": sum(run["seconds"] for run in runs),
        "usd": None if not runs or any(u is None for u in usd) else sum(usd),
    }


@dataclass(frozen=True)
class Cheapest:
    """The study's verdict: the batch cheapest to the point (`basis` "usd"), or fastest to it
    without a price ("seconds"), and the batch sizes the repeats cannot tell from it."""

    best: BatchSummary
    basis: str
    rivals: tuple[int, ...]

    def tie(self) -> str | None:
        """'no clear winner between batch 64 and batch 128: ...', or None when it is clear."""
        if not self.rivals:
            return None
        return verdict.no_clear_winner(self.best.batch_size, self.rivals, SETTLE)


def cheapest(summaries: Sequence[BatchSummary], priced: bool) -> Cheapest | None:
    """The verdict over the batch sizes that reached the point (None: none did)."""
    reached = [s for s in summaries if s.reached]
    if not reached:
        return None
    basis = "usd" if priced else "seconds"
    best = min(reached, key=lambda s: (getattr(s, basis).mean or 0.0, s.batch_size))
    others = [(s.batch_size, verdict.mean_interval(getattr(s, basis))) for s in reached]
    mine = verdict.mean_interval(getattr(best, basis))
    close = verdict.rivals(mine, [(b, i) for b, i in others if b != best.batch_size])
    return Cheapest(best, basis, close)
