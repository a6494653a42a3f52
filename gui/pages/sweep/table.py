"""The sweep's points table: a QAbstractTableModel over a DataFrame of Trial.to_row() rows.

One row per batch size (engine.sweep.summary.points); the CSV export writes the same frame,
raw numbers, every column of the row.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QHeaderView, QTableView

from engine.results import report
from engine.sweep.events import Trial
from gui.common.table_rows import show_rows

if TYPE_CHECKING:
    import pandas as pd

Index = QModelIndex | QPersistentModelIndex

STATUS_TEXT = {"ok": "fits", "oom": "does not fit", "crashed": "crashed"}


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


# (row key, header, formatter, right-aligned)
COLUMNS: tuple[tuple[str, str, Callable[[Any], str], bool], ...] = (
    ("batch_size", "Batch", lambda v: f"{v:,}", True),
    ("role", "Run", str, False),
    ("status", "Status", lambda v: STATUS_TEXT.get(v, v), False),
    ("throughput_samples_per_s", "Samples/s", lambda v: f"{v:,.1f}", True),
    ("memory_fill", "Memory fill", lambda v: f"{v:.1%}", True),
    ("epoch_seconds", "Epoch", report.duration, True),
    ("usd_per_epoch", "$ per epoch", report.money, True),
    ("seconds", "Trial took", lambda v: f"{v:.1f} s", True),
)


def points_frame(points: Sequence[Trial]) -> pd.DataFrame:
    import pandas as pd  # the store has imported it by the time a sweep runs

    columns = list(Trial(0, 0, "point", "ok").to_row())
    return pd.DataFrame([p.to_row() for p in points], columns=columns)


class SweepPointsModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self.frame: pd.DataFrame | None = None
        self.marks: dict[int, str] = {}  # batch size -> "cheapest", "knee", ...

    def set_points(self, points: Sequence[Trial], marks: dict[int, str]) -> None:
        self.beginResetModel()
        self.frame = points_frame(points)
        self.marks = dict(marks)
        self.endResetModel()

    def clear(self) -> None:
        self.beginResetModel()
        self.frame = None
        self.marks = {}
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() or self.frame is None else len(self.frame)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(COLUMNS) + 1

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.frame is None:
            return None
        row = self.frame.iloc[index.row()]
        if index.column() == len(COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return self.marks.get(int(row["batch_size"]), "")
            return None
        key, _, fmt, right = COLUMNS[index.column()]
        value = row[key]
        if role == Qt.ItemDataRole.DisplayRole:
            return "–" if _missing(value) else fmt(value)
        if role == Qt.ItemDataRole.TextAlignmentRole and right:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return row["message"] or (f"run {row['run_id']}" if row["run_id"] else None)
        return None

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section][1] if section < len(COLUMNS) else "Verdict"
        return None


class PointsTable(QTableView):
    """The points, compact: one line a batch size, columns sized to their contents."""

    def __init__(self) -> None:
        super().__init__(objectName="sweep_points")
        self.points = SweepPointsModel()
        self.setModel(self.points)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.setAlternatingRowColors(True)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        show_rows(self)  # five batch sizes at least; the page scrolls on a small screen
