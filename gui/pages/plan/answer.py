"""The Plan tab's answer: one plan's figures for one run and fully loaded, each beside what it
rests on (formula, MFU and whether it is assumed, peak, price offer with source and date, power,
grid), in the words of `epochcost plan` (engine.plan.report.single)."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from engine.plan.report import dollars
from engine.results import report
from gui.pages.plan.inputs import Plan, form_words

# Figure rows: key, label. The values and bases are filled by show_plan.
ROWS = (
    ("flops", "Compute"),
    ("mfu", "Utilisation"),
    ("memory", "Memory"),
    ("wall", "Wall time"),
    ("gpu_hours", "GPU-hours"),
    ("ondemand", "On-demand"),
    ("spot", "Spot"),
    ("owned", "Owned"),
    ("kwh", "Energy"),
    ("co2", "CO2"),
    ("runs", "Runs"),
    ("published", "Published"),
    ("notes", "Notes"),
    ("source", "Source"),
)


def amount(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return f"{value:,.1f} {unit}" if value < 100 else f"{value:,.0f} {unit}"


def _runs_text(data: dict[str, Any]) -> str:
    a = data["assumptions"]
    parts = []
    for r in a["runs"]:
        size = f" of {r['relative_size']:g}x the size" if r["relative_size"] != 1 else ""
        source = f" ({r['source']})" if r["source"] and r["source"] != "given" else ""
        parts.append(f"{r['label']}: {r['runs']:g} runs{size}{source}")
    return f"{a['runs_table']}: " + "; ".join(parts)


def figures(plan: Plan) -> dict[str, tuple[str, str, str]]:
    """Row key -> (one run, fully loaded, what it rests on); rows without a figure left out."""
    d = plan.data
    a = d["assumptions"]
    x = d["runs_multiplier"]
    out = {
        "flops": (f"{d['flops']:.3g} FLOPs", f"{d['flops'] * x:.3g} FLOPs", a["compute"]),
        "mfu": (
            f"MFU {d['mfu']:.1%}",
            "",
            f"{a['mfu']}; {a['precision']} peak: {a['peak']}",
        ),
        "wall": (
            report.duration(d["wall_hours"] * 3600),
            "",
            f"{d['count']} GPU{'s' if d['count'] != 1 else ''}; {a['scaling']}",
        ),
        "gpu_hours": (amount(d["gpu_hours"], "h"), amount(d["gpu_hours_fully_loaded"], "h"), ""),
        "ondemand": (dollars(d["usd_ondemand"]), dollars(d["usd_fully_loaded"]), a["price"]),
        "spot": (dollars(d["usd_spot"]), dollars(d["usd_spot_fully_loaded"]), a["spot"]),
        "owned": (dollars(d["usd_owned"]), dollars(d["usd_owned_fully_loaded"]), a["owned"]),
        "kwh": (
            amount(d["kwh"], "kWh"),
            amount(d["kwh_fully_loaded"], "kWh"),
            f"power: {a['power']}; PUE {a['pue']:g}",
        ),
        "co2": (amount(d["kg_co2"], "kg"), amount(d["kg_co2_fully_loaded"], "kg"), a["grid"]),
        "runs": ("1", f"x{x:,.4g}", _runs_text(d)),
    }
    fit = d.get("memory")
    if fit:
        verdict = "unknown" if fit["fits"] is None else "fits" if fit["fits"] else "does not fit"
        out["memory"] = (
            f"{fit['need_gb']:.3g} GB, {verdict}",
            "",
            f"{fit['text']}; {fit['basis']}",
        )
    published = d.get("published")
    if published:
        implied = published.get("implied_mfu")
        text = f"{published['gpu_hours']:,.0f} GPU-hours on {published['gpu']}"
        if implied is not None:
            text += f": MFU {implied:.1%} by this FLOP count"
        out["published"] = ("", "", text)
    if d["notes"]:
        out["notes"] = ("", "", "\n".join(d["notes"]))
    preset = d.get("preset")
    if preset:
        texts = (preset["params_source"], preset["tokens_source"], preset["notes"])
        out["source"] = ("", "", "\n".join(t for t in texts if t))
    return {key: (one, all_, form_words(basis)) for key, (one, all_, basis) in out.items()}


def headline(plan: Plan | None) -> str:
    """The answer in one line (rich text); what to do when there is none."""
    if plan is None:
        return "<b>No plan</b>: the message above says which input to change."
    d = plan.data
    measured = "measured" if d["assumptions"]["mfu_measured"] else "assumed"
    fit = d.get("memory") or {}
    warning = f"<br><b>Memory</b>: {html.escape(fit['text'])}" if fit.get("fits") is False else ""
    x = f"x{d['runs_multiplier']:,.4g}"
    if d["usd_ondemand"] is not None:
        cost = (
            f"<b>{dollars(d['usd_ondemand'])}</b> on-demand "
            f"({dollars(d['usd_fully_loaded'])} fully loaded, {x})"
        )
    elif d["usd_owned"] is not None:
        cost = (
            f"<b>{dollars(d['usd_owned'])}</b> owned "
            f"({dollars(d['usd_owned_fully_loaded'])} fully loaded, {x})"
        )
    else:
        cost = "no price (no cloud sells it in the catalog; give a tariff to price owning)"
    return (
        f"<b>{d['label']}</b>: {report.duration(d['wall_hours'] * 3600)} wall, "
        f"{amount(d['gpu_hours'], 'GPU-hours')}, {cost} at MFU {d['mfu']:.0%} ({measured})"
        f"{warning}"
    )


class PlanAnswer(QWidget):
    """The figures of one plan in a grid: label, one run, fully loaded, what it rests on."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("plan_answer")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(3)
        for col, text in enumerate(("", "one run", "fully loaded", "rests on")):
            grid.addWidget(QLabel(f"<i>{text}</i>"), 0, col)
        self.cells: dict[str, tuple[QLabel, QLabel, QLabel, QLabel]] = {}
        for i, (key, label) in enumerate(ROWS, start=1):
            name = QLabel(f"<b>{label}</b>")
            cells = (name, QLabel(), QLabel(), QLabel(wordWrap=True))
            for col, cell in enumerate(cells):
                cell.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
                if col:
                    cell.setTextFormat(Qt.TextFormat.PlainText)  # ">=2025" is not markup
                    cell.setObjectName(f"{key}_{('one', 'all', 'basis')[col - 1]}")
                    cell.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                grid.addWidget(cell, i, col)
            self.cells[key] = cells
        grid.setColumnStretch(3, 1)
        grid.setRowStretch(len(ROWS) + 1, 1)
        self.show_plan(None)

    def show_plan(self, plan: Plan | None) -> None:
        """The plan's figures; None clears them (an input is wrong)."""
        rows = figures(plan) if plan is not None else {}
        for key, cells in self.cells.items():
            texts = rows.get(key)
            for cell, text in zip(cells[1:], texts or ("", "", ""), strict=True):
                cell.setText(text)
            for cell in cells:
                cell.setVisible(texts is not None)

    def text(self, key: str, column: str = "one") -> str:
        """A shown figure (column: one, all or basis), as a test or a reader sees it."""
        cells = self.cells[key]
        return cells[1 + ("one", "all", "basis").index(column)].text()
