"""The sweep's points table: a QAbstractTableModel over a DataFrame of points' rows.

One row per batch size (Trial.to_row(), engine.sweep.summary.points), or per value of a study's
axis (gui/pages/sweep/study_table.py gives its columns); the CSV export writes the same frame,
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


# (row key, header, formatter, right-aligned). A key may name several of the row's fields: the
# formatter then takes their values as a tuple (an interval's two ends). VERDICT: the marks.
Key = str | tuple[str, ...]
Column = tuple[Key, str, Callable[[Any], Any], bool]
VERDICT = ""
COLUMNS: tuple[Column, ...] = (
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


class PointsModel(QAbstractTableModel):
    """Rows of a frame shown by `columns`; the VERDICT column shows the marks of each row's
    `key` field (the batch size, or a study's value)."""

    def __init__(self, columns: Sequence[Column], key: str) -> None:
        super().__init__()
        self.columns = tuple(columns)
        self.key = key
        self.frame: pd.DataFrame | None = None
        self.marks: dict[Any, str] = {}  # key value -> "cheapest", "knee", ...

    def set_frame(self, frame: pd.DataFrame, marks: dict[Any, str]) -> None:
        self.beginResetModel()
        self.frame = frame
        self.marks = dict(marks)
        self.endResetModel()

    def set_columns(self, columns: Sequence[Column]) -> None:
        self.beginResetModel()
        self.columns = tuple(columns)
        self.endResetModel()

    def clear(self) -> None:
        self.beginResetModel()
        self.frame = None
        self.marks = {}
        self.endResetModel()

    def mark(self, value: Any) -> str:
        return self.marks.get(value, "")

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() or self.frame is None else len(self.frame)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.frame is None:
            return None
        row = self.frame.iloc[index.row()]
        key, _, fmt, right = self.columns[index.column()]
        if key == VERDICT:
            return self.mark(row[self.key]) if role == Qt.ItemDataRole.DisplayRole else None
        value = tuple(row[k] for k in key) if isinstance(key, tuple) else row[key]
        missing = any(map(_missing, value)) if isinstance(key, tuple) else _missing(value)
        if role == Qt.ItemDataRole.DisplayRole:
            return "–" if missing else fmt(value)
        if role == Qt.ItemDataRole.TextAlignmentRole and right:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return row["message"] or (f"run {row['run_id']}" if row["run_id"] else None)
        return None

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.columns[section][1]
        return None


class SweepPointsModel(PointsModel):
    """One row per batch size (engine.sweep.summary.points), the verdicts last."""

    def __init__(self) -> None:
        super().__init__((*COLUMNS, (VERDICT, "Verdict", str, False)), "batch_size")

    def set_points(self, points: Sequence[Trial], marks: dict[int, str]) -> None:
        self.set_frame(points_frame(points), marks)

    def mark(self, value: Any) -> str:
        return self.marks.get(int(value), "")


class PointsTable(QTableView):
    """The points, compact: one line a point, columns sized to their contents."""

    def __init__(self, model: PointsModel | None = None, name: str = "sweep_points") -> None:
        super().__init__(objectName=name)
        self.points = model if model is not None else SweepPointsModel()
        self.setModel(self.points)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.setAlternatingRowColors(True)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        show_rows(self)  # five batch sizes at least; the page scrolls on a small screen
