"""The study's table: cost to accuracy per batch size, a QAbstractTableModel over a DataFrame.

The frame holds raw numbers (a _mean and a _std column per figure, as the CSV export writes
them); the view shows "mean ± std" with the CLI's formatting (engine.results.report).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from engine.accuracy.repeats import BatchSummary
from engine.core.stats import Spread
from engine.results import report
from gui.common.table_rows import show_rows

if TYPE_CHECKING:
    import pandas as pd

Index = QModelIndex | QPersistentModelIndex

# Spread fields of a BatchSummary written as <name>_mean, <name>_std, <name>_n.
SPREADS = (
    "stabilization_iteration",
    "epochs",
    "accuracy",
    "seconds",
    "usd",
    "run_seconds",
    "run_usd",
    "throughput_samples_per_s",
)


def summary_frame(summaries: Sequence[BatchSummary]) -> pd.DataFrame:
    """One row per batch size: counts, each spread's mean, std and n, the failures' text."""
    import pandas as pd

    rows = []
    for s in summaries:
        row: dict[str, Any] = {
            "batch_size": s.batch_size,
            "repeats": s.repeats,
            "reached": s.reached,
            "never_reached": s.never_reached,
            "failed": s.failed,
        }
        for name in SPREADS:
            spread: Spread = getattr(s, name)
            row |= {f"{name}_mean": spread.mean, f"{name}_std": spread.std, f"{name}_n": spread.n}
        row["failures"] = "; ".join(s.failures)
        row["run_ids"] = " ".join(s.run_ids)
        rows.append(row)
    return pd.DataFrame(rows, columns=_frame_columns())


def _frame_columns() -> list[str]:
    head = ["batch_size", "repeats", "reached", "never_reached", "failed"]
    spreads = [f"{n}_{part}" for n in SPREADS for part in ("mean", "std", "n")]
    return [*head, *spreads, "failures", "run_ids"]


def _spread(row: Any, name: str) -> Spread:
    def value(key: str) -> float | None:
        v = row[f"{name}_{key}"]
        return None if v is None or v != v else float(v)  # NaN from the frame: missing

    return Spread(value("mean"), value("std"), int(row[f"{name}_n"]))


def _reached(row: Any) -> str:
    return f"{row['reached']}/{row['repeats']}"


def _text(name: str, fmt: str, scale: float = 1.0) -> Callable[[Any], str]:
    return lambda row: report.mean_std(_spread(row, name), fmt, scale)


# (header, cell text from a frame row, tooltip)
COLUMNS: tuple[tuple[str, Callable[[Any], str], str], ...] = (
    ("Batch", lambda row: str(row["batch_size"]), ""),
    ("Reached", _reached, "runs that met the target or settled, of all runs"),
    ("Never reached", lambda row: str(row["never_reached"]), "stopped by a cap first"),
    ("Failed", lambda row: str(row["failed"]), "ended without a curve (out of memory, cancelled)"),
    ("Iterations", _text("stabilization_iteration", ".0f"), "iterations to the point"),
    ("Epochs", _text("epochs", ".2f"), ""),
    ("Accuracy %", _text("accuracy", ".1f", 100), "held-out accuracy at the point"),
    ("Time to accuracy s", _text("seconds", ".2f"), "training time to the point"),
    ("Cost to accuracy", lambda row: report.money_mean_std(_spread(row, "usd")), ""),
    ("Whole runs s", _text("run_seconds", ".1f"), "set-up, training and evaluation"),
)


class AccuracyTableModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self.frame: pd.DataFrame | None = None

    def set_summaries(self, summaries: Sequence[BatchSummary]) -> None:
        self.beginResetModel()
        self.frame = summary_frame(summaries)
        self.endResetModel()

    def clear(self) -> None:
        self.beginResetModel()
        self.frame = None
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self.frame is None else len(self.frame)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.frame is None:
            return None
        row = self.frame.iloc[index.row()]
        _, text, tip = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return text(row)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            failures = row["failures"]
            return f"{tip}\n{failures}".strip() if failures else tip or None
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section][2] or None
        return None


class AccuracyTable(QWidget):
    """The table with its heading and the CSV button (the page saves the file)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = AccuracyTableModel()
        self.view = QTableView(objectName="accuracy_table")
        self.view.setModel(self.model)
        self.view.verticalHeader().hide()
        self.view.setAlternatingRowColors(True)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        show_rows(self.view)  # five batch sizes at least; the page scrolls on a small screen
        self.csv_button = QPushButton("Export CSV…", objectName="export_table")
        title = QLabel(
            "<b>Per batch size</b> (mean ± std over the repeats that got there)", wordWrap=True
        )
        bar = QHBoxLayout()
        bar.addWidget(title, 1)
        bar.addWidget(self.csv_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.view)
