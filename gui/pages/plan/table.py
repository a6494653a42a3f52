"""The Plan tab's comparison table: one row per catalog GPU (engine.plan.report.comparison_rows),
in compare()'s order (cheapest on-demand first), the chosen GPU in bold. Hovering a price shows
the offer it is, with its source and date."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from engine.plan.report import dollars
from engine.results import report

Index = QModelIndex | QPersistentModelIndex


def _amount(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def _hours(value: float) -> str:
    return report.duration(value * 3600)


# key of the row dict, header, text of the value, key of the tooltip text
COLUMNS: tuple[tuple[str, str, Callable[[Any], str], str], ...] = (
    ("label", "Hardware", str, ""),
    ("peak_tflops", "Peak TFLOP/s", lambda v: f"{v:g}", ""),
    ("wall_hours", "Wall time", _hours, ""),
    ("gpu_hours", "GPU-hours", _amount, ""),
    ("usd_ondemand", "On-demand", dollars, "price"),
    ("usd_spot", "Spot", dollars, "spot"),
    ("usd_owned", "Owned", dollars, ""),
    ("kwh", "kWh", _amount, ""),
    ("kg_co2", "kg CO2e", _amount, "grid"),
    ("usd_fully_loaded", "Fully loaded", dollars, ""),
)
NUMERIC = frozenset(range(1, len(COLUMNS)))


class PlanTableModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, Any]] = []
        self.chosen_gpu = ""

    def set_rows(self, rows: list[dict[str, Any]], chosen_gpu: str) -> None:
        self.beginResetModel()
        self.rows = rows
        self.chosen_gpu = chosen_gpu
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section][1]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        key, _, text, tip = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return text(row[key])
        if role == Qt.ItemDataRole.ToolTipRole:
            if tip:
                return row[tip]
            notes = row.get("notes") or []
            return "\n".join(notes) if index.column() == 0 and notes else None
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and row["gpu"] == self.chosen_gpu:
            font = QFont()
            font.setBold(True)
            return font
        return None
