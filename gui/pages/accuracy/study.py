"""What the Accuracy page runs on its BackgroundJob: the engine's study, then the projection of
each batch size's cost to accuracy onto the catalog's cloud instances. No Qt here: the work
hands what the page shows to `emit` (events and stored results) and returns a StudyDone.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.accuracy.repeats import cheapest
from engine.accuracy.study import StudyOutcome, StudyPlan, run_study
from engine.core.errors import ConfigError
from engine.core.events import Eval, Event, Failed, Finished, Phase, Started
from engine.pricing import catalog
from engine.process.launcher import WorkerSpec
from engine.results import report

if (
    TYPE_CHECKING
):  # both import pandas: not before the window has painted (gui/common/lazy_store.py)
    from engine.accuracy.cost import InstanceCostToAccuracy
    from engine.results.store import Added, Store

Emit = Callable[[Any], None]
SHOWN_EVENTS = (Started, Phase, Eval, Finished, Failed)  # monitor samples stay in the worker


@dataclass(frozen=True)
class Stored:
    """A run's result, now in the store (the page's table and charts take it from here)."""

    result: dict[str, Any]


@dataclass(frozen=True)
class StudyDone:
    outcome: StudyOutcome
    projections: dict[int, list[InstanceCostToAccuracy]] = field(default_factory=dict)
    projection_note: str = ""  # why no cloud instance is shown, when none is


@dataclass(frozen=True)
class StudyRefused:
    """The worker refused the settings (no such device, a data set that went away)."""

    message: str


class _TellingStore:
    """The store, telling the page each result once it is written (run_study adds them)."""

    def __init__(self, store: Store, emit: Emit) -> None:
        self._store = store
        self._emit = emit

    def add(self, result: dict[str, Any], group_id: str | None = None) -> Added:
        added = self._store.add(result, group_id=group_id)
        self._emit(Stored(result))
        return added


def run(
    plan: StudyPlan,
    store: Callable[[], Store],
    spec: WorkerSpec | None,
    cancel: threading.Event,
    emit: Emit,
) -> StudyDone | StudyRefused:
    """Every run of `plan`, each result stored under the study id as it ends."""
    opened = store()

    def forward(event: Event) -> None:
        if isinstance(event, SHOWN_EVENTS):
            emit(event)

    try:
        outcome = run_study(
            plan,
            store=_TellingStore(opened, emit),  # type: ignore[arg-type]  # Store's add, told
            on_event=forward,
            spec=spec,
            cancel=cancel,
        )
    except ConfigError as exc:
        return StudyRefused(exc.message)
    projections, note = project(outcome, opened)
    return StudyDone(outcome, projections, note)


def project(
    outcome: StudyOutcome, store: Store
) -> tuple[dict[int, list[InstanceCostToAccuracy]], str]:
    """Each batch size's cost to accuracy on every priced catalog instance, from the
    comparison of its first finished run; and why there are none, when there are none."""
    from engine.accuracy.cost import across_instances
    from engine.pricing.compare import compare
    from engine.pricing.compare_rows import measured_elsewhere
    from engine.pricing.device import is_cpu

    try:
        prices = catalog.load()
        listing = store.list()
    except (OSError, ConfigError, ValueError, sqlite3.Error) as exc:
        return {}, f"no cloud instance: the price catalog\ncould not be read ({exc})"
    out: dict[int, list[InstanceCostToAccuracy]] = {}
    reasons: Counter[str] = Counter()
    for summary in outcome.summaries:
        first = next((r for r in outcome.results if _reached(r, summary.batch_size)), None)
        if first is None:
            continue
        comparison = compare(first, prices, measured_runs=measured_elsewhere(listing, first))
        out[summary.batch_size] = across_instances(summary, comparison)
        reasons.update(why for _, why in comparison.left_out)
    if any(not c.local for rows in out.values() for c in rows):
        return out, ""
    if any(is_cpu(r) for r in outcome.results):
        return out, "no cloud instance: a CPU result\ndoes not scale to a GPU"
    why = reasons.most_common(1)[0][0] if reasons else "no priced instance in the catalog"
    return out, f"no cloud instance:\n{why}"


def _reached(result: dict[str, Any], batch_size: int) -> bool:
    return (
        result["status"] == "ok"
        and int(result["config"]["batch_size"]) == batch_size
        and bool((result.get("accuracy") or {}).get("reached"))
    )


def done_message(plan: StudyPlan, outcome: StudyOutcome) -> tuple[str, str, str]:
    """(text, level, details) for the message bar when a study ends; results the store could
    not take are an error, with where each is kept in the details."""
    text = summary_text(plan, outcome)
    if outcome.unstored:
        text += " Some results could not be added to the results database."
        return text, "error", "\n\n".join(outcome.unstored)
    return text, "info" if not outcome.failed or outcome.cancelled else "error", ""


def summary_text(plan: StudyPlan, outcome: StudyOutcome) -> str:
    """One sentence for the message bar: what the study found, or why it found nothing."""
    base = plan.base
    goal = "settle" if base.target_accuracy is None else f"reach {base.target_accuracy:.1%}"
    total = outcome.total
    spent = report.duration(total["seconds"])
    if total["usd"] is not None:
        spent += f", {report.money(total['usd'])}"
    if outcome.cancelled:
        finished = sum(r["status"] == "ok" for r in outcome.results)
        return (
            f"Study cancelled after {spent}: {finished} finished run(s) kept under study "
            f"{plan.study_id}."
        )
    if all(s.failed == s.repeats for s in outcome.summaries):
        first = next((f for s in outcome.summaries for f in s.failures), "no run finished")
        return f"Every run failed: {first}. The table's Failed column has each reason."
    reached = [s for s in outcome.summaries if s.reached]
    if not reached:
        return (
            f"No run managed to {goal} within {base.max_iterations:,} iterations or "
            f"{report.duration(base.max_seconds)} per run (best accuracy seen: "
            f"{_best_accuracy(outcome.results):.1%}). Lower the target, or raise the limits."
        )
    priced = base.usd_per_hour is not None
    verdict = cheapest(outcome.summaries, priced)
    assert verdict is not None  # some batch size reached it
    best = verdict.best
    tie = verdict.tie()
    figure = (
        report.money_mean_std(best.usd) if priced else f"{report.mean_std(best.seconds, '.2f')} s"
    )
    failed = sum(s.failed for s in outcome.summaries)
    return (
        f"Study done: {len(outcome.results)} run(s) in {spent}. Cheapest to {goal}: batch "
        f"{best.batch_size}, {figure} ({best.reached}/{best.repeats} reached it)"
        + (f"; {tie}." if tie else ".")
        + (f" {failed} run(s) failed: see the table's Failed column." if failed else "")
    )


def _best_accuracy(results: list[dict[str, Any]]) -> float:
    curves = [(r.get("accuracy") or {}).get("curve") or [] for r in results]
    return max((p["accuracy"] for curve in curves for p in curve), default=0.0)
