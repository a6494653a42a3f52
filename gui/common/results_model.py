"""The past-runs table: a FrameTableModel over the store's listing DataFrame."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt

from engine.measure.busy import BUSY_CPU_FRACTION
from engine.results import report
from gui.common.frame_model import Column, FrameTableModel

if TYPE_CHECKING:  # pandas loads with the store, after the window shows (lazy_store.py)
    import pandas as pd


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
    Column("throughput_pm", "± 95%", _plain, True, display="throughput_pm_text"),
    Column("memory_fill", "Memory fill", _fill, True),
    Column("usd_per_epoch", "$ per epoch", report.money, True),
    Column("price_source", "Price source", _plain),
    Column("status", "Status", _plain, display="status_text"),
)

RUN_ID_ROLE = Qt.ItemDataRole.UserRole + 1


def with_shown_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Add the columns the table shows that the listing holds only in parts: the relative
    half width of the throughput's 95% interval (and its text: "no interval" for results
    stored before intervals were recorded) and the status with "busy" where other processes
    used much of the CPU while it was measured."""
    import pandas as pd

    frame = frame.copy()
    center = pd.to_numeric(frame["throughput_samples_per_s"], errors="coerce")
    low = pd.to_numeric(frame["throughput_low"], errors="coerce")
    high = pd.to_numeric(frame["throughput_high"], errors="coerce")
    frame["throughput_pm"] = (high - low) / 2 / center
    frame["throughput_pm_text"] = [
        "no interval" if pm != pm else f"±{pm:.1%}" for pm in frame["throughput_pm"]
    ]
    frame.loc[frame["status"] != "ok", "throughput_pm_text"] = ""
    other = pd.to_numeric(frame["other_cpu_fraction"], errors="coerce")
    busy = other > BUSY_CPU_FRACTION
    frame["status_text"] = frame["status"].where(~busy, frame["status"] + " (busy machine)")
    return frame


class ResultsTableModel(FrameTableModel):
    def __init__(self) -> None:
        super().__init__(COLUMNS)

    def set_frame(self, frame: pd.DataFrame) -> None:
        """The store's listing, with the interval as "± 2.1%" and a busy run said in Status."""
        super().set_frame(with_shown_columns(frame))

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
