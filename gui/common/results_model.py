"""The past-runs table: a FrameTableModel over the store's listing DataFrame."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from engine.results import report
from gui.common.frame_model import Column, FrameTableModel


def _date(value: Any) -> str:
    return str(value)[:16].replace("T", " ")


def _rate(value: Any) -> str:
    return f"{value:,.1f}"


def _fill(value: Any) -> str:
    return f"{value:.1%}"


def _plain(value: Any) -> str:
    return str(value)


COLUMNS: tuple[Column, ...] = (
    Column("created_at", "Date (UTC)", _date),
    Column("model", "Model", _plain),
    Column("framework", "Framework", _plain),
    Column("device", "Device", _plain),
    Column("batch_size", "Batch", _plain, True),
    Column("precision", "Precision", _plain),
    Column("throughput_samples_per_s", "Samples/s", _rate, True),
    Column("memory_fill", "Memory fill", _fill, True),
    Column("usd_per_epoch", "$ per epoch", report.money, True),
    Column("price_source", "Price source", _plain),
    Column("status", "Status", _plain),
)

RUN_ID_ROLE = Qt.ItemDataRole.UserRole + 1


class ResultsTableModel(FrameTableModel):
    def __init__(self) -> None:
        super().__init__(COLUMNS)

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == RUN_ID_ROLE and index.isValid() and self.frame is not None:
            return self.frame.iloc[index.row()]["run_id"]
        return super().data(index, role)

    def tooltip(self, row: int) -> str | None:
        assert self.frame is not None
        return f"run {self.frame.iloc[row]['run_id']}"

    def run_id(self, row: int) -> str:
        assert self.frame is not None
        return str(self.frame.iloc[row]["run_id"])

    def row_of(self, run_id: str) -> int | None:
        if self.frame is None:
            return None
        rows = self.frame.index[self.frame["run_id"] == run_id]
        return int(rows[0]) if len(rows) else None
