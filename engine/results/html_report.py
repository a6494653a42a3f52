"""The report: one self-contained HTML file for one or more results, to open in a browser and
print to PDF. Each run: what was measured and on what, its price with source and date, its
throughput per measuring window, what an epoch costs on the catalog's machines (the compare
table and chart, engine/pricing/compare.py), the break-even of owning against the cheapest
rental when an owned price is given, its data (engine/results/data_lines.py), and the
environment. Charts are inline SVG
(engine/results/svg_charts.py); nothing is fetched: no script, no stylesheet or font link."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from engine import __version__
from engine.core.interval import interval_text
from engine.core.precision import MARK, imprecise
from engine.core.precision_target import target_text
from engine.pricing.breakeven import break_even_against
from engine.pricing.compare import compare
from engine.pricing.compare_rows import CompareOptions, CompareRow, Comparison, MeasuredRun
from engine.pricing.cost import BreakEven
from engine.pricing.device import cpu_at_gpu_price
from engine.results import data_cost, data_lines
from engine.results import report as text
from engine.results.html_environment import environment_table
from engine.results.svg_charts import Bar, bar_chart, line_chart

TABLE_ROWS = 15  # compare rows in a run's table (the cheapest), and bars in its chart
CHART_ROWS = 12

CSS = """
body{font:14px/1.45 Helvetica,Arial,sans-serif;color:#111;max-width:980px;margin:24px auto;
padding:0 16px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:28px 0 6px;border-bottom:2px solid #1f77b4}
h3{font-size:15px;margin:18px 0 6px}.muted{color:#555}.note{color:#555;font-size:12px}
table{border-collapse:collapse;width:100%;margin:6px 0 10px;font-size:12.5px}
th,td{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f3f5f8}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.local td{background:#fdf0f0;font-weight:600}
dl{display:grid;grid-template-columns:max-content 1fr;
gap:2px 14px;margin:6px 0}dt{color:#555}dd{margin:0}svg{max-width:100%;height:auto;display:block;
margin:8px 0}.warn{color:#8a4b00}
section.run{page-break-before:auto}
@media print{body{margin:0;max-width:none;font-size:11px}
h2,h3{page-break-after:avoid;break-after:avoid}
svg,table,dl,figure{page-break-inside:avoid;break-inside:avoid}section.run+section.run{page-break-before:always}
a{color:inherit;text-decoration:none}}
@page{size:A4;margin:14mm}
"""


@dataclass(frozen=True)
class RunReport:
    """One result with its comparison on the catalog's machines (None: it did not end ok), and
    what its price means when it is another device's (a CPU priced as an owned GPU), and what
    loading its data cost beside a synthetic run (engine/results/data_cost.py comparison)."""

    result: dict[str, Any]
    comparison: Comparison | None
    caveat: str | None = None
    data_cost: dict[str, Any] | None = None


def comparisons(
    results: Iterable[dict[str, Any]],
    catalog: Any,
    options: CompareOptions,
    elsewhere: Any = None,
    twin: Any = None,
) -> list[RunReport]:
    """Each result with its comparison (`elsewhere(result)`: the same workload measured on other
    GPUs, engine/pricing/compare_rows.py measured_elsewhere) and, for a run that loaded its data,
    the data's cost (`twin(result)`: its synthetic twin, data_cost.synthetic_twin, or None)."""
    out = []
    for result in results:
        found: list[MeasuredRun] = elsewhere(result) if elsewhere else []
        ok = result.get("status") == "ok"
        comparison = compare(result, catalog, options, found) if ok else None
        synthetic = twin(result) if twin and ok else None
        costs = data_cost.comparison(result, synthetic) if synthetic else None
        out.append(RunReport(result, comparison, cpu_at_gpu_price(result, catalog), costs))
    return out


def render(
    runs: Sequence[RunReport], options: CompareOptions, generated: _dt.datetime | None = None
) -> str:
    when = (generated or _dt.datetime.now(_dt.UTC)).strftime("%Y-%m-%d %H:%M UTC")
    title = "epochcost report: " + ", ".join(_name(r.result) for r in runs[:3])
    title += f" and {len(runs) - 3} more" if len(runs) > 3 else ""
    parts = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="muted">{len(runs)} run(s); made {when} by epochcost {escape(__version__)}. '
        "Every cost names its price's source and date.</p>",
    ]
    if len(runs) > 1:
        parts.append(_overview(runs))
    parts += [_run(r, options) for r in runs]
    parts.append(_prices(runs))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        + "\n".join(parts)
        + "</body></html>\n"
    )


def _name(result: dict[str, Any]) -> str:
    c, env = result["config"], result.get("environment") or {}
    device = env.get("device_name") or env.get("cpu") or c.get("device")
    return f"{c['model']} b{c['batch_size']} on {device}"


def _price_text(price: dict[str, Any] | None) -> str:
    if not price:
        return "no price given"
    return f"${price['usd_per_hour']:,.4g}/h ({price['source']}, {price.get('as_of') or 'undated'})"


def _overview(runs: Sequence[RunReport]) -> str:
    ok = [r.result for r in runs if r.result.get("status") == "ok"]
    tput = [
        Bar(_name(r), r["throughput_samples_per_s"], *(r.get("throughput_ci95") or (None, None)))
        for r in ok
    ]
    costs = [
        Bar(_name(r), r["usd_per_epoch"], *(r.get("usd_per_epoch_ci95") or (None, None)))
        for r in ok
        if r.get("usd_per_epoch") is not None
    ]
    out = ["<h2>The runs side by side</h2>"]
    rough = [_name(r) for r in ok if imprecise(r) is not None]
    if rough:  # the cheapest bar may be cheapest by chance: the reader is told which
        out.append(
            f'<p class="warn">{MARK} (95% interval wider than ±25%), so these are left out of '
            f"which run is cheapest or fastest: {escape('; '.join(rough))}.</p>"
        )
    if tput:
        out.append(bar_chart("Throughput (median of windows, 95% interval)", tput, "samples/s"))
    if costs:
        out.append(
            bar_chart("Cost per epoch at each run's price", costs, "US$ per epoch", fmt=text.money)
        )
    return "".join(out)


def _run(run: RunReport, options: CompareOptions) -> str:
    r = run.result
    c = r["config"]
    out = [f'<section class="run"><h2>{escape(_name(r))}</h2>', "<dl>"]
    facts = [
        ("run id", r["run_id"]),
        ("measured", r.get("created_at", "")),
        ("model", f"{c['model']} ({c['framework']}, {c['precision']}, {c.get('optimizer', '')})"),
        ("batch size", str(c["batch_size"])),
        ("status", r["status"] + (f": {r['error']['message']}" if r.get("error") else "")),
    ]
    if r["status"] == "ok":
        tput = r["throughput_samples_per_s"]
        unit = (r.get("workload") or {}).get("epoch_unit") or "samples"
        facts += [
            ("throughput", f"{tput:,.1f} samples/s, {_interval(r)}"),
            *(
                [("target", target_text(r["target_precision"]))]
                if r.get("target_precision")
                else []
            ),
            ("epoch", f"{r['epoch_samples']:,} {unit} in {text.duration(r['epoch_seconds'])}"),
            (
                "memory",
                f"{text.size(r.get('peak_memory_bytes'))} peak of "
                f"{text.size(r.get('memory_total_bytes'))}",
            ),
            ("price", _price_text(r.get("price"))),
            (
                "cost per epoch",
                text.money(r.get("usd_per_epoch"))
                + (
                    f" ({interval_text(r.get('usd_per_epoch_ci95'), r['usd_per_epoch'])})"
                    if r.get("usd_per_epoch") is not None
                    else ""
                ),
            ),
        ]
        if r.get("flops"):
            facts.append(("FLOPs", text.flops_text(r["flops"], unit)))
        facts += data_lines.facts(r, run.data_cost)
    out += [f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in facts]
    out.append("</dl>")
    if run.caveat:
        out.append(f'<p class="warn">{escape(run.caveat)}</p>')
    verdict = imprecise(r)
    if verdict is not None:
        out.append(
            f'<p class="warn"><b>{MARK}</b>: {escape(verdict.why)}. To price it, '
            f"{escape(verdict.todo)}.</p>"
        )
    out += [f'<p class="warn">warning: {escape(w)}</p>' for w in r.get("warnings") or []]
    if r["status"] == "ok":
        out.append(_windows_chart(r))
    if run.comparison is not None:
        out.append(_compare(run.comparison, options, r, run.caveat))
    out.append(environment_table(r.get("environment") or {}))
    out.append("</section>")
    return "\n".join(out)


def _interval(r: dict[str, Any]) -> str:
    """'95% interval 75.1 to 78.3 (±2.1%), Student t over 3 windows', or why there is none."""
    if not r.get("throughput_ci95"):
        return "no interval: measured before epochcost recorded one"
    shown = interval_text(r["throughput_ci95"], r["throughput_samples_per_s"], _rate)
    return shown + (f", {r['interval_method']}" if r.get("interval_method") else "")


def _rate(samples_per_s: float) -> str:
    return f"{samples_per_s:,.1f}"


def _windows_chart(r: dict[str, Any]) -> str:
    values = r.get("throughput_repeats") or [r["throughput_samples_per_s"]]
    bars = [Bar(f"window {n}", v) for n, v in enumerate(values, 1)]
    low, high = r.get("throughput_ci95") or (None, None)
    bars.append(Bar("median (95% interval)", r["throughput_samples_per_s"], low, high, True))
    return bar_chart("Throughput per measuring window", bars, "samples/s (samples / wall time)")


def _compare(
    c: Comparison, options: CompareOptions, result: dict[str, Any], caveat: str | None
) -> str:
    priced = [row for row in c.rows if row.usd_per_epoch is not None]
    rows = priced[:TABLE_ROWS]
    # The table's rows with their rank; the measured machine always (it is what is compared).
    ranked = [(n, row) for n, row in enumerate(priced, 1) if n <= TABLE_ROWS or row.local]
    source = f"{c.source}. {caveat}" if caveat else c.source  # beside the chart it concerns
    out = ["<h3>What an epoch costs elsewhere</h3>", f'<p class="note">{escape(source)}</p>']
    bars = [
        Bar(
            _machine(row),
            row.usd_per_epoch or 0.0,
            row.usd_per_epoch_low,
            row.usd_per_epoch_high,
            row.local,
        )
        for row in rows[:CHART_ROWS]
    ]
    if bars:
        out.append(
            bar_chart(
                "Cost per epoch, cheapest first (whiskers: estimates' 80% range, measurements' 95%"
                " interval)",
                bars,
                "US$ per epoch",
                fmt=text.money,
            )
        )
    head = [
        "#",
        "machine",
        "GPU",
        "samples/s",
        "basis",
        "$/h",
        "$/epoch",
        "break-even days",
        "price source, date",
    ]
    out.append(
        "<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
    )
    bases: dict[str, int] = {}
    for n, row in ranked:
        basis = bases.setdefault(row.basis, len(bases) + 1)
        out.append(_compare_row(n, row, basis, (result.get("price") or {}).get("as_of") or ""))
    out.append("</tbody></table>")
    out += [f'<p class="note">[{k}] {escape(basis)}</p>' for basis, k in bases.items()]
    out += [f'<p class="note">{escape(note)}</p>' for note in c.notes]
    out.append(_break_even(c, options, imprecise(result) is not None))
    return "\n".join(out)


def _machine(row: CompareRow) -> str:
    return "this machine" if row.local else f"{row.cloud} {row.instance_type}"


def _row_date(row: CompareRow) -> str:
    """A row's price date, with its age where the price is stale ("2025-06-01, 543 days old")."""
    return f"{row.price_date}, {row.price_age}" if row.price_age else row.price_date


def _compare_row(n: int, row: CompareRow, basis: int, run_price_date: str) -> str:
    """One row; the measured machine's price carries the run's price date."""
    date = _row_date(row) or (run_price_date if row.local else "undated")
    tput = row.throughput_samples_per_s
    cells = [
        (str(n), True),
        (_machine(row), False),
        (row.gpu_model + (f" x{row.gpu_count:g}" if row.gpu_count > 1 else ""), False),
        ("-" if tput is None else f"{tput:,.1f}", True),
        (f"{row.status} [{basis}]", False),
        ("-" if row.usd_per_hour is None else f"{row.usd_per_hour:,.4g}", True),
        (text.money(row.usd_per_epoch), True),
        (row.break_even_text or "-", True),  # the days and their range
        (", ".join(x for x in (row.price_source, date) if x), False),
    ]
    body = "".join(
        f'<td class="n">{escape(v)}</td>' if num else f"<td>{escape(v)}</td>" for v, num in cells
    )
    return f'<tr class="local">{body}</tr>' if row.local else f"<tr>{body}</tr>"


def _break_even(c: Comparison, options: CompareOptions, rough: bool = False) -> str:
    """The break-even of owning this machine against the cheapest rental; `rough`: the run is
    not precise enough to price, and the verdict says so."""
    local = next((r for r in c.rows if r.local), None)
    rented = [r for r in c.rows if not r.local and r.usd_per_epoch is not None]
    if options.owned is not None and not rented:
        return '<p class="note">Break-even: no rental priced for this workload to compare.</p>'
    if options.owned is None or local is None or not local.throughput_samples_per_s:
        return (
            '<p class="note">Break-even: give an owned price (a profile of owned hardware) '
            "to compare owning this machine with renting.</p>"
        )
    cheapest = rented[0]
    be: BreakEven | None = break_even_against(
        options,
        local.throughput_samples_per_s,
        cheapest.throughput_samples_per_s,
        cheapest.usd_per_hour or 0.0,
        cheapest.usd_per_hour_spot,
    )
    if be is None:
        return ""
    # The row's days and their range: both machines' speeds at the ends of their ranges.
    verdict = (
        f"owning pays after {cheapest.break_even_text} days of use (the range: both "
        "machines' throughputs at the ends of their ranges)"
        if cheapest.break_even_days is not None
        else "owning never pays against it: its electricity costs more than renting "
        f"({cheapest.break_even_text})"
    )
    if rough:
        verdict += f" (but this run is {MARK}: the days may be far off)"
    series = be.series()
    chart = line_chart(
        f"Owning this machine against renting {_machine(cheapest)}",
        [
            ("owned (purchase + electricity)", [(p["day"], p["owned_usd"]) for p in series]),
            (f"rented ({_machine(cheapest)})", [(p["day"], p["rented_usd"]) for p in series]),
        ],
        "days of use",
        "US$ spent",
    )
    return (
        f"<h3>Break-even</h3><p>Against the cheapest rental, {escape(_machine(cheapest))} "
        f"({escape(cheapest.price_source)}, {escape(_row_date(cheapest) or 'undated')}): "
        f"{escape(verdict)} at {be.hours_per_day:g} h a day.</p>{chart}"
    )


def _prices(runs: Sequence[RunReport]) -> str:
    """Every price used, with its source and date, once each."""
    seen: dict[str, None] = {}
    for run in runs:
        seen.setdefault(f"run {run.result['run_id']}: {_price_text(run.result.get('price'))}")
        rows = run.comparison.rows[:TABLE_ROWS] if run.comparison else ()
        for row in rows:
            if not row.local and row.usd_per_hour is not None:
                seen.setdefault(
                    f"{_machine(row)}: ${row.usd_per_hour:,.4g}/h ({row.price_source}, "
                    f"{_row_date(row) or 'undated'})"
                )
    items = "".join(f"<li>{escape(s)}</li>" for s in seen)
    return f"<h2>Prices: source and date</h2><ul>{items}</ul>"
