"""The words around the Compare tab's table and charts: the heading, the notes under the table
(with the engine's full notes for a tooltip), chart captions and the machine-to-rent labels."""

from __future__ import annotations

import datetime as _dt
import html
import textwrap
from collections.abc import Sequence
from typing import Any

from engine.core.precision import MARK, imprecise
from engine.pricing.catalog import Catalog
from engine.pricing.compare import throughput_to_beat
from engine.pricing.compare_rows import CompareOptions, CompareRow, Comparison
from engine.pricing.cost import BreakEven
from engine.pricing.device import is_cpu
from engine.results import report


def heading(result: dict[str, Any], c: Comparison, caveat: str | None = None) -> str:
    """What was measured; `caveat`: what its price means when it is another device's
    (engine/pricing/device.py cpu_at_gpu_price); a run not precise enough to price says so, why
    and what to do (engine/core/precision.py), since the cheapest row may be so by chance."""
    text = f"<b>Measured:</b> {html.escape(c.source)}"
    if caveat:
        text += f"<br><b>{html.escape(caveat)}</b>"
    verdict = imprecise(result)
    if verdict is not None:
        text += (
            f"<br><b>This run is {MARK}</b>: {html.escape(verdict.why)}. Which machine is "
            f"cheapest is not known from it; to price it, {html.escape(verdict.todo)}."
        )
    if is_cpu(result):
        text += (
            "<br><b>This result ran on a CPU: its speed cannot be projected to GPUs.</b> "
            "A cloud machine is listed only where the same workload was measured on its "
            "GPU and imported (File › Open result)."
        )
    return text


def notes(
    result: dict[str, Any], c: Comparison, catalog: Catalog, options: CompareOptions
) -> tuple[str, str]:
    """(a few lines for under the table, the engine's full notes and what was left out)."""
    lines = []
    if any(r.estimated for r in c.rows):
        lines.append(
            "<i>Italics, ~</i>: estimated, from published measurements of models of the same "
            "family on both GPUs where there are some, else from spec ratios; the range holds "
            "what those say (hover a row for what it rests on). Assumes the GPU limits the run."
        )
    local = next(r for r in c.rows if r.local)
    if is_cpu(result) and local.usd_per_epoch:
        beat = throughput_to_beat(catalog, options, result["epoch_samples"], local.usd_per_epoch)
        needs = "; ".join(
            f"{need:,.1f} samples/s on {i.cloud} {i.instance_type} (${i.usd_per_hour:g}/h)"
            for i, need in beat
        )
        if needs:
            lines.append(
                f"To cost less than {report.money(local.usd_per_epoch)} an epoch, a GPU "
                f"machine must reach {needs}."
            )
    last = [f"This machine: {local.notes}." if local.notes else ""]
    if c.left_out:
        last.append(f"{len(c.left_out)} machines left out (hover here for why).")
    lines.append(" ".join(x for x in last if x))
    why = [f"{n} {reason}" for reason, n in c.left_out_counts()]
    tooltip = "\n".join([*c.notes, *(["Left out:", *why] if why else [])])
    return "<br>".join(x for x in lines if x), tooltip


def price_sources(rows: Sequence[CompareRow], most: int = 3) -> list[str]:
    """Caption lines naming the prices' sources, each with its dates (a long line would widen
    the chart beyond its window)."""
    dates: dict[str, list[str]] = {}
    for r in rows:
        source = r.price_source or "no source"
        if not r.local and ":" in source and "/" in source.split(":")[0]:
            source = source.split(":")[0]  # a repository's file: the repository says enough
        listed = dates.setdefault(source, [])
        if r.price_date and r.price_date not in listed:
            listed.append(r.price_date)
    lines = []
    for source, when in dates.items():
        text = f"{source} ({', '.join(when)})" if when else source
        lines.append(textwrap.shorten(text, 140, placeholder=" …"))
    if len(lines) > most:
        lines = [*lines[:most], f"and {len(lines) - most} more sources (see the table)"]
    return [f"prices: {lines[0]}", *lines[1:]] if lines else ["prices: none"]


def caption(
    c: Comparison,
    rows: Sequence[CompareRow],
    options: CompareOptions,
    be: BreakEven | None = None,
    caveat: str | None = None,
) -> str:
    """What was measured (and, `caveat`, what its price means when it is another device's),
    where the prices come from (a line a source), owning, the date."""
    lines = [c.source, *textwrap.wrap(caveat or "", 140), *price_sources(rows)]
    owned = options.owned
    if be is not None and owned is not None:
        lines.append(
            f"owned: ${owned.purchase_usd:,.0f}, {owned.hours_per_day:g} h/day, "
            f"{owned.wall_power_w or 0:.0f} W at the wall at ${owned.usd_per_kwh:g}/kWh"
        )
        said = rows[0].break_even_text if len(rows) == 1 else ""
        if said:  # the engine's days and their range (engine/pricing/breakeven.py)
            lines.append(
                f"break-even after {said} days of use (the range: both machines' throughputs "
                "at the ends of their ranges)"
            )
    lines[-1] += f" · {_dt.date.today().isoformat()} · epochcost"
    return "<br>".join(html.escape(line) for line in lines)


def nothing_to_rent(result: dict[str, Any], c: Comparison, options: CompareOptions) -> str:
    """Why no machine can be rented for the break-even: the filters, a CPU result with no GPU
    measurement of its workload, or what the catalog's machines were left out for."""
    narrowed = [
        f"cloud {options.clouds[0]}" if options.clouds else "",
        f"GPU {options.gpu!r}" if options.gpu else "",
    ]
    if any(narrowed):
        return f"No machine to rent with {' and '.join(x for x in narrowed if x)}: widen them."
    if is_cpu(result):
        model = result["config"]["model"]
        return (
            f"No machine to rent: this result ran on the CPU, whose speed cannot be projected "
            f"to a GPU, and no GPU measurement of {model} is stored. Import one (File › Open "
            "result) or measure on a GPU."
        )
    why = c.left_out_counts()
    if why:
        reason, n = why[0]
        return f"No machine to rent: {n} left out ({reason})."
    return "No machine to rent: the catalog has no priced machine for this workload."


def rent_label(row: CompareRow, spot: bool) -> str:
    """A machine to rent, with the price the break-even uses (spot when asked and offered)."""
    hist = " (historical)" if row.historical else ""
    if spot and row.usd_per_hour_spot is not None:
        price = f"spot ${row.usd_per_hour_spot:g}/h"
    else:
        price = f"${row.usd_per_hour:g}/h"
    return f"{row.cloud} {row.instance_type}{hist} · {row.gpu_model} · {price}"
