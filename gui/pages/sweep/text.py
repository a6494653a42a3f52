"""The words of the Sweep tab: the chart's caption, the verdict line and the table's marks,
for a batch sweep and for a study over another axis."""

from __future__ import annotations

import datetime as _dt

from engine.core.placeholders import worded
from engine.measure.config import RunConfig
from engine.results import report
from engine.study.summary import StudySummary
from engine.sweep.report import cheapest_reason
from engine.sweep.summary import SearchOutcome, SweepSummary


def caption(config: RunConfig, device_label: str) -> str:
    """The line under the chart: what was swept where, at which price, when."""
    price = config.price.describe() if config.price else "no price"
    return (
        f"{config.model} · {config.framework} · {config.precision} · {device_label} · {price} · "
        f"{_dt.date.today().isoformat()} · epochcost"
    )


# The values the engine's notes ask for (engine/core/placeholders.py: "({max_batch})"), as the tab
# names them.
ASKED = {
    "memory_limit_bytes": "the Memory limit field",
    "max_batch": "Max. batch",
    "usd_per_hour": "the price on the left",
    "device": "the Device on the left",
    "data": "the Data source on the left as",
}


def in_gui_words(note: str) -> str:
    return worded(note, ASKED.get)


def notes_text(summary: SweepSummary) -> str:
    """The sweep's notes (limits, probes, no price) as one small paragraph; "" if none."""
    notes = [*summary.notes, *(summary.search.notes if summary.search else ())]
    return "<br><small>" + "; ".join(map(in_gui_words, notes)) + "</small>" if notes else ""


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def verdict_marks(summary: SweepSummary) -> dict[int, str]:
    """Batch size -> its verdicts ("cheapest, knee"), for the table."""
    search = summary.search or SearchOutcome()
    marks: dict[int, list[str]] = {}
    for name, batch in (
        ("cheapest", summary.cheapest_batch),
        ("knee", summary.knee_batch),
        ("max fit", search.max_fit_batch),
        ("recommended", search.recommended_batch),
    ):
        if batch is not None:
            marks.setdefault(batch, []).append(name)
    return {batch: ", ".join(names) for batch, names in marks.items()}


def verdict_text(summary: SweepSummary) -> str:
    """One line of verdicts: cheapest, knee, max fit, recommended (what is known so far)."""
    parts = []
    why = cheapest_reason(summary)
    if why is not None:
        parts.append(f"<b>Cheapest</b> {summary.cheapest_batch} ({why})")
    if summary.knee_batch is not None and summary.best_throughput_samples_per_s:
        parts.append(
            f"<b>Knee</b> {summary.knee_batch} (smallest batch within "
            f"{summary.knee_tolerance:.0%} of the best, "
            f"{summary.best_throughput_samples_per_s:,.0f} samples/s)"
        )
    search = summary.search
    if search is not None:
        parts.append(f"<b>Max fit</b> {search.max_fit_batch or 'none'}")
        if search.recommended_batch is not None:
            parts.append(f"<b>Recommended</b> {search.recommended_batch}")
    return " · ".join(parts)


# A study over another axis (engine/study/summary.py) ------------------------------------------


def study_caption(config: RunConfig, device_label: str, axis: str, shown: list[str]) -> str:
    """The line under a study's chart: as a sweep's, the batch size added (every point runs
    it) and the varied setting given as its values ("fp32/bf16"), not the panel's one."""
    precision = "/".join(shown) if axis == "precision" else config.precision
    price = config.price.describe() if config.price else "no price"
    return (
        f"{config.model} · {config.framework} · batch {config.batch_size} · {precision} · "
        f"{device_label} · {price} · {_dt.date.today().isoformat()} · epochcost"
    )


BASIS = {
    "owned_usd_per_epoch": "lowest $ per epoch, owned",
    "usd_per_epoch": "lowest $ per epoch",
    "epoch_seconds": "shortest epoch: no price given",
}


def study_marks(summary: StudySummary) -> dict[str, str]:
    """A study's value (as text) -> its verdict, for the table."""
    marks = {str(v): "close to cheapest" for v in summary.rivals}  # intervals overlap
    if summary.cheapest_value is not None:
        marks[str(summary.cheapest_value)] = "cheapest"
    return marks


def study_verdict_text(summary: StudySummary) -> str:
    """The cheapest value and why, and the points not measured (with their reasons)."""
    parts = []
    best = next((p for p in summary.points if p.value == summary.cheapest_value), None)
    if best is not None and summary.cheapest_value is not None:
        cost = best.usd_per_epoch
        figure = (
            f"{report.money(cost)} per epoch"
            if cost is not None and summary.cheapest_basis != "epoch_seconds"
            else f"epoch {report.duration(best.figure('epoch_seconds') or 0.0)}"
        )
        basis = BASIS.get(summary.cheapest_basis or "", "")
        parts.append(f"<b>Cheapest</b> {summary.show(best.value)} ({figure}; {basis})")
    unmeasured = [p for p in summary.points if not p.ok]
    if unmeasured:
        names = ", ".join(f"{summary.show(p.value)} ({p.status})" for p in unmeasured)
        parts.append(f"<b>Not measured</b> {names}")
    return " · ".join(parts)


def study_notes_text(summary: StudySummary) -> str:
    """The study's notes (refusals, overlaps, no price) as one small paragraph; "" if none."""
    notes = [*summary.notes, *([summary.error["message"]] if summary.error else [])]
    return "<br><small>" + "; ".join(map(in_gui_words, notes)) + "</small>" if notes else ""
