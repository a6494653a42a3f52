"""Text for `epochcost plan`: one plan with every assumption, or the comparison table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.cli.tables import number, table
from engine.plan.planner import PlanRow, Target
from engine.plan.report import dollars
from engine.results.report import duration

if TYPE_CHECKING:
    from engine.plan.report import Inputs


def _time(hours: float) -> str:
    return f"{duration(hours * 3600)} wall"


def _kwh(row: PlanRow, times: float = 1.0) -> str:
    if row.kwh is None:
        return "-"
    return f"{row.kwh * times:,.0f} kWh" + (
        "" if row.kg_co2 is None else f", {row.kg_co2 * times:,.0f} kg CO2e"
    )


def render_plan(
    row: PlanRow,
    target: Target,
    inputs: Inputs,
    published: dict[str, Any] | None,
    fit: dict[str, Any] | None = None,
) -> str:
    """One plan, each figure with what it rests on."""
    u = inputs.utilisation
    head = f"plan: {inputs.preset.name} (preset)" if inputs.preset else "plan"
    lines = [
        head,
        f"{'compute':11s} {row.flops:.3g} FLOPs ({inputs.compute.basis})",
        f"{'hardware':11s} {row.count} x {row.gpu}, {inputs.options.precision}: "
        f"{target.peak_basis}",
        f"{'MFU':11s} {u.basis}",
        *(
            [f"{'memory':11s} {fit['text']}", f"{'':11s} ({fit['basis']})"]
            if fit
            else [f"{'memory':11s} not checked: the parameter count is not known"]
        ),
        f"{'time':11s} {_time(row.wall_hours)}, {row.gpu_hours:,.0f} GPU-hours "
        "(perfect scaling over the GPUs assumed)",
        f"{'on-demand':11s} {dollars(row.usd_ondemand)}  {target.price_basis}",
        f"{'spot':11s} {dollars(row.usd_spot)}  {target.spot_basis}",
        f"{'owned':11s} {dollars(row.usd_owned)}  {target.owned_basis}",
        f"{'energy':11s} {_kwh(row)}  (power: {inputs.power.basis}; PUE {target.pue:g}; "
        f"grid: {target.grid_basis})",
    ]
    runs = "; ".join(
        f"{r.label}: {r.runs:g} runs"
        + (f" of {r.relative_size:g}x" if r.relative_size != 1 else "")
        for r in inputs.runs
    )
    lines += [
        f"{'fully':11s} x{row.runs_multiplier:,.4g} ({inputs.runs_name}: {runs})",
        f"{'  loaded':11s} {dollars(row.usd_fully_loaded)} on-demand, "
        f"{dollars(None if row.usd_spot is None else row.usd_spot * row.runs_multiplier)} spot,"
        f" {row.gpu_hours * row.runs_multiplier:,.0f} GPU-hours, "
        f"{_kwh(row, row.runs_multiplier)}",
    ]
    if published:
        implied = published.get("implied_mfu")
        text = f"{published['gpu_hours']:,.0f} GPU-hours on {published['gpu']}"
        if implied is not None:
            text += f": MFU {implied:.1%} by this FLOP count"
        lines.append(f"{'published':11s} {text}")
    if inputs.preset is not None:
        lines.append(f"{'source':11s} {inputs.preset.params_source}")
        if inputs.preset.tokens_source:
            lines.append(f"{'':11s} {inputs.preset.tokens_source}")
        if inputs.preset.notes:
            lines.append(f"{'note':11s} {inputs.preset.notes}")
    for r in inputs.runs:
        if r.source and r.source != "given":
            lines.append(f"{'runs':11s} {r.source}")
    lines += [f"{'note':11s} {note}" for note in row.notes]
    return "\n".join(lines)


def render_comparison(
    rows: list[tuple[PlanRow, Target]],
    left_out: list[tuple[str, str]],
    inputs: Inputs,
    limit: int,
) -> str:
    """One row per GPU, cheapest on-demand first (unpriced last, fastest first)."""
    shown = rows if limit <= 0 else rows[:limit]
    body = [
        [
            r.label,
            f"{r.peak_tflops:g}",
            f"{r.wall_hours / 24:,.1f}",
            f"{r.gpu_hours:,.0f}",
            dollars(r.usd_ondemand),
            dollars(r.usd_spot),
            dollars(r.usd_owned),
            number(r.kwh, 0),
            number(r.kg_co2, 0),
            dollars(r.usd_fully_loaded),
        ]
        for r, _ in shown
    ]
    headers = ["hardware", "peak TF", "days", "GPU-h", "on-demand", "spot", "owned"]
    headers += ["kWh", "kg CO2e", "fully loaded"]
    out = [
        f"compute: {inputs.compute.flops:.3g} FLOPs ({inputs.compute.basis})",
        f"MFU: {inputs.utilisation.basis}, on every GPU ({inputs.options.precision} peak)",
        f"power: {inputs.power.basis}; fully loaded: x{rows[0][0].runs_multiplier:,.4g} "
        f"({inputs.runs_name})"
        if rows
        else "",
        "",
        table(headers, body, right=set(range(1, 10))),
    ]
    if len(shown) < len(rows):
        out.append(f"... {len(rows) - len(shown)} more rows (--limit 0 shows all)")
    if rows and rows[0][0].notes:
        out.append(f"note: {rows[0][0].notes[0]}")
    if left_out:
        names = ", ".join(gpu for gpu, _ in left_out)
        precision = inputs.options.precision
        out.append(f"left out, no {precision} peak in the catalog ({len(left_out)}): {names}")
    return "\n".join(out)
