"""The past-runs table: a QAbstractTableModel over the store's listing DataFrame."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from engine import report

if TYPE_CHECKING:
    import pandas as pd

Index = QModelIndex | QPersistentModelIndex


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _date(value: Any) -> str:
    return str(value)[:16].replace("T", " ")


def _rate(value: Any) -> str:
    return f"{value:,.1f}"


def _fill(value: Any) -> str:
    return f"{value:.1%}"


def _plain(value: Any) -> str:
    return str(value)


# (store column, header, formatter, right-aligned)
COLUMNS: tuple[tuple[str, str, Callable[[Any], str], bool], ...] = (
    ("created_at", "Date (UTC)", _date, False),
    ("model", "Model", _plain, False),
    ("framework", "Framework", _plain, False),
    ("device", "Device", _plain, False),
    ("batch_size", "Batch", _plain, True),
    ("precision", "Precision", _plain, False),
    ("throughput_samples_per_s", "Samples/s", _rate, True),
    ("memory_fill", "Memory fill", _fill, True),
    ("usd_per_epoch", "$ per epoch", report.money, True),
    ("price_source", "Price source", _plain, False),
    ("status", "Status", _plain, False),
)

RUN_ID_ROLE = Qt.ItemDataRole.UserRole + 1


class ResultsTableModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self.frame: pd.DataFrame | None = None  # None until the store has been read
        self._sort: tuple[int, Qt.SortOrder] | None = None

    def set_frame(self, frame: pd.DataFrame) -> None:
        self.beginResetModel()
        self.frame = frame.reset_index(drop=True)
        self.endResetModel()
        if self._sort is not None:
            self.sort(*self._sort)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self.frame is None else len(self.frame)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.frame is None:
            return None
        key, _, fmt, right = COLUMNS[index.column()]
        value = self.frame.iloc[index.row()][key]
        if role == Qt.ItemDataRole.DisplayRole:
            return "–" if _missing(value) else fmt(value)
        if role == Qt.ItemDataRole.TextAlignmentRole and right:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"run {self.frame.iloc[index.row()]['run_id']}"
        if role == RUN_ID_ROLE:
            return self.frame.iloc[index.row()]["run_id"]
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section][1]
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._sort = (column, order)
        if self.frame is None:
            return
        key = COLUMNS[column][0]
        self.layoutAboutToBeChanged.emit()
        self.frame = self.frame.sort_values(
            key,
            ascending=order == Qt.SortOrder.AscendingOrder,
            na_position="last",
            kind="stable",
        ).reset_index(drop=True)
        self.layoutChanged.emit()

    def run_id(self, row: int) -> str:
        assert self.frame is not None
        return str(self.frame.iloc[row]["run_id"])

    def row_of(self, run_id: str) -> int | None:
        if self.frame is None:
            return None
        rows = self.frame.index[self.frame["run_id"] == run_id]
        return int(rows[0]) if len(rows) else None
