"""The words of the Sweep tab: the chart's caption, the verdict line and the table's marks."""

from __future__ import annotations

import datetime as _dt

from engine.core.asks import worded
from engine.measure.config import RunConfig
from engine.sweep.report import cheapest_reason
from engine.sweep.summary import SearchOutcome, SweepSummary


def caption(config: RunConfig, device_label: str) -> str:
    """The line under the chart: what was swept where, at which price, when."""
    price = config.price.describe() if config.price else "no price"
    return (
        f"{config.model} · {config.framework} · {config.precision} · {device_label} · {price} · "
        f"{_dt.date.today().isoformat()} · epochcost"
    )


# The values the engine's notes ask for (engine/core/asks.py: "({max_batch})"), as the tab
# names them.
ASKED = {
    "memory_limit_bytes": "the Memory limit field",
    "max_batch": "Max. batch",
    "usd_per_hour": "the price on the left",
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
