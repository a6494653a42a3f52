"""FrameTableModel: a sortable QAbstractTableModel over a DataFrame, one Column per view column.

The results table, the catalog picker and the comparison table are this model with their own
columns. A column sorts by its raw values (missing last) and shows them through a formatter, or
through another column of the frame that holds ready-made text (`display`).

A cell is read from the column as a list (`cell`), made once for each frame and order: a view
asks for every cell several times a draw (its size, text, font, tooltip; every row when a
column fits its contents), and pandas' `iloc` took about 0.1 ms a call, 125 ms of the GUI
thread for one price typed with the Compare tab shown (benchmarks/price_keystroke.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

if TYPE_CHECKING:
    import pandas as pd

Index = QModelIndex | QPersistentModelIndex
MISSING_TEXT = "–"


class Column(NamedTuple):
    key: str  # the frame column shown and sorted by
    header: str
    fmt: Callable[[Any], str] = str
    right: bool = False  # right-aligned (numbers)
    display: str | None = None  # a frame column of ready-made text to show instead


def missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


class FrameTableModel(QAbstractTableModel):
    def __init__(self, columns: Sequence[Column]) -> None:
        super().__init__()
        self.columns = tuple(columns)
        self.frame: pd.DataFrame | None = None  # None until something is shown
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._values: dict[str, list[Any]] = {}  # a column of `frame` as a list (cell)

    def set_frame(self, frame: pd.DataFrame) -> None:
        """Show `frame`, in the order last asked for (sorted before the view sees it: one
        layout of the view, not two)."""
        self.beginResetModel()
        self.frame = self._sorted(frame.reset_index(drop=True))
        self._values = {}
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self.frame is None else len(self.frame)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.frame is None:
            return None
        column = self.columns[index.column()]
        row = index.row()
        if role == Qt.ItemDataRole.DisplayRole:
            if column.display is not None:
                return str(self.cell(row, column.display))
            value = self.cell(row, column.key)
            return MISSING_TEXT if missing(value) else column.fmt(value)
        if role == Qt.ItemDataRole.TextAlignmentRole and column.right:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(row)
        if role == Qt.ItemDataRole.FontRole:
            return self.font(row)
        return None

    def cell(self, row: int, key: str) -> Any:
        """The value in column `key` of the frame's row `row` (as Python has it: a float, not
        numpy's)."""
        assert self.frame is not None
        values = self._values.get(key)
        if values is None:
            values = self._values[key] = self.frame[key].tolist()
        return values[row]

    def tooltip(self, row: int) -> str | None:
        """A row's tooltip (subclasses say what helps)."""
        return None

    def font(self, row: int) -> QFont | None:
        """A row's font, for rows that differ in kind (estimated against measured)."""
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.columns[section].header
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if self.frame is None or self.frame.empty or self._sort == (column, order):
            self._sort = (column, order)
            return  # nothing to order, or in this order already
        self._sort = (column, order)
        self.layoutAboutToBeChanged.emit()
        self.frame = self._sorted(self.frame)
        self._values = {}
        self.layoutChanged.emit()

    def _sorted(self, frame: pd.DataFrame) -> pd.DataFrame:
        """`frame` in the order last asked for (sort)."""
        if self._sort is None or frame.empty:
            return frame
        column, order = self._sort
        return frame.sort_values(
            self.columns[column].key,
            ascending=order == Qt.SortOrder.AscendingOrder,
            na_position="last",
            kind="stable",
        ).reset_index(drop=True)

    def record(self, row: int) -> dict[str, Any]:
        """The frame's row as a dict (every column, raw values)."""
        assert self.frame is not None
        return self.frame.iloc[row].to_dict()
