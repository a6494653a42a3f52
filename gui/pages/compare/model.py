"""The comparison table: engine.pricing.compare's rows as they are, one line per machine, with
readable
cells (estimates marked ~ and shown in italics, the measured machine in bold) and every price's
source and date. Sorting a column sorts by its raw numbers; missing values go last."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QFont

from engine.pricing.compare_rows import CompareRow, Comparison
from engine.results import report
from gui.common.frame_model import MISSING_TEXT, Column, FrameTableModel

if TYPE_CHECKING:
    import pandas as pd


def _number(value: Any, digits: int = 1) -> str:
    return f"{value:,.{digits}f}"


def _price(value: Any) -> str:
    return f"{value:,.4g}"


def _kwh(value: Any) -> str:
    return f"{value:.4f}"


def _grams(value: Any) -> str:
    return f"{value * 1000:,.1f}"  # kg in the row, grams shown


COLUMNS = (
    Column("instance_type", "Machine", display="machine_text"),
    Column("cloud", "Cloud"),
    Column("gpu_model", "GPU", display="gpu_text"),
    Column("throughput_samples_per_s", "Samples/s", right=True, display="throughput_text"),
    Column("throughput_low", "Range", right=True, display="range_text"),
    Column("epoch_seconds", "Epoch", report.duration, True),
    Column("usd_per_hour", "$/h", _price, True),
    Column("usd_per_epoch", "$/epoch", report.money, True),
    Column("usd_per_epoch_spot", "Spot $/epoch", report.money, True),
    Column("usd_per_run", "$/run", report.money, True),
    Column("kwh_per_epoch", "kWh/epoch", _kwh, True),
    Column("co2_kg_per_epoch", "g CO2/epoch", _grams, True),
    Column("break_even_days", "Break-even (days)", right=True, display="break_even_shown"),
    Column("price_date", "Price date"),
    Column("price_age", "Price age"),  # "N days old" past 30 days (catalog.stale_note)
    Column("price_source", "Price source"),
)


def machine_text(row: CompareRow) -> str:
    if row.local:
        return f"this machine ({row.instance_type})"
    return row.instance_type + (" (historical)" if row.historical else "")


def gpu_text(row: CompareRow) -> str:
    model = row.gpu_model.removeprefix("NVIDIA ")
    return f"{model} x{row.gpu_count:g}" if row.gpu_count and row.gpu_count != 1 else model


def throughput_text(row: CompareRow) -> str:
    if row.status == "does_not_fit":
        return "does not fit"
    if row.throughput_samples_per_s is None:
        return "–"
    text = _number(row.throughput_samples_per_s)
    return "~" + text if row.estimated else text


def range_text(row: CompareRow) -> str:
    if row.status == "does_not_fit":
        need, there = row.memory_needed_bytes or 0, row.memory_available_bytes or 0
        return f"{need / 2**30:.1f} > {there / 2**30:.1f} GiB"
    low, high = row.throughput_low, row.throughput_high
    if low is None or high is None or (row.status == "measured" and low == high):
        return "no interval"  # a result stored before intervals were recorded
    return f"{_number(row.throughput_low)}–{_number(row.throughput_high)}"


def frame(comparison: Comparison) -> pd.DataFrame:
    """The comparison's rows (the JSON row columns) plus the cells shown as text."""
    out = comparison.to_frame()
    if out.empty:
        return out
    rows = comparison.rows
    out["machine_text"] = [machine_text(r) for r in rows]
    out["gpu_text"] = [gpu_text(r) for r in rows]
    out["throughput_text"] = [throughput_text(r) for r in rows]
    out["range_text"] = [range_text(r) for r in rows]
    # the engine's days and their range, '250 (180–340)' (engine/pricing/breakeven.py)
    out["break_even_shown"] = [r.break_even_text or MISSING_TEXT for r in rows]
    return out


class CompareModel(FrameTableModel):
    def __init__(self) -> None:
        super().__init__(COLUMNS)
        self._italic = QFont()
        self._italic.setItalic(True)
        self._bold = QFont()
        self._bold.setBold(True)

    def font(self, row: int) -> QFont | None:
        if self.cell(row, "local"):
            return self._bold
        return self._italic if self.cell(row, "status") == "estimated" else None

    def tooltip(self, row: int) -> str | None:
        lines = [
            self.cell(row, "basis"),
            self.cell(row, "notes"),
            f"price: {self.cell(row, 'price_source')}",
        ]
        return "\n".join(str(x) for x in lines if x)
