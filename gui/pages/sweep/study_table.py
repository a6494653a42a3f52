"""A study's points as a table: one row per value of its axis (StudyPoint.row()), the axis's
value column first and written as the axis writes it ("bf16", "180 W"), then how the point
ended, its figures with their 95% intervals and the verdicts. A point not measured (a value the
device cannot run, say) has no figures: why it was not spans their columns instead
(`reason_rows`). The model and view are the sweep table's (table.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt

from engine.results import report
from engine.study.axis import Axis
from engine.study.point import StudyPoint
from gui.pages.sweep.table import VERDICT, Column, Index, PointsModel, PointsTable

if TYPE_CHECKING:
    import pandas as pd

MIB = 2**20
REASON_COLUMN, REASON_SPAN = 2, 6  # why a point was not measured: over Samples/s to $ per epoch
STATUS_TEXT = {
    "ok": "measured",
    "oom": "out of memory",
    "config": "settings wrong",
    "refused": "refused",
}


def _span(pair: tuple[float, float]) -> str:
    return f"{pair[0]:,.1f} – {pair[1]:,.1f}"


def study_columns(axis: Axis) -> tuple[Column, ...]:
    """The table's columns for a study over `axis`."""
    header = axis.label[:1].upper() + axis.label[1:]
    return (
        ("value", header, axis.show, False),
        ("status", "Status", lambda v: STATUS_TEXT.get(v, v), False),
        ("throughput_samples_per_s", "Samples/s", lambda v: f"{v:,.1f}", True),
        (("throughput_low", "throughput_high"), "95% interval", _span, True),
        ("peak_memory_bytes", "Peak memory", lambda v: f"{v / MIB:,.0f} MiB", True),
        ("epoch_seconds", "Epoch", report.duration, True),
        ("kwh_per_epoch", "kWh per epoch", lambda v: f"{v:.3g}", True),
        ("usd_per_epoch", "$ per epoch", report.money, True),
        ("seconds", "Point took", lambda v: f"{v:.1f} s", True),
        (VERDICT, "Verdict", str, False),
    )


def study_frame(points: Sequence[StudyPoint]) -> pd.DataFrame:
    import pandas as pd  # the store has imported it by the time a study runs

    columns = list(StudyPoint(0, None, "ok").row())
    rows = [{**p.row(), "usd_per_epoch": p.usd_per_epoch} for p in points]
    # object columns: a value stays as the axis gave it (4, not 4.0 beside a None)
    return pd.DataFrame(rows, columns=columns, dtype=object)


class StudyPointsModel(PointsModel):
    """The points of the study shown now; `set_axis` when a study on another axis begins."""

    def __init__(self, axis: Axis) -> None:
        super().__init__(study_columns(axis), "value")

    def set_axis(self, axis: Axis) -> None:
        self.set_columns(study_columns(axis))

    def set_points(self, points: Sequence[StudyPoint], marks: dict[str, str]) -> None:
        self.set_frame(study_frame(points), marks)

    def mark(self, value: Any) -> str:
        return self.marks.get(str(value), "")

    def reason_rows(self) -> list[int]:
        """The rows of points not measured that say why (the view spans their reason)."""
        if self.frame is None:
            return []
        ended = zip(self.frame["status"], self.frame["message"], strict=True)
        return [i for i, (status, message) in enumerate(ended) if status != "ok" and message]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if index.column() == REASON_COLUMN and index.row() in self.reason_rows():
            assert self.frame is not None
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                return self.frame.iloc[index.row()]["message"]
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        return super().data(index, role)


class StudyTable(PointsTable):
    """The study's points; a point not measured says why across its figures' columns."""

    def __init__(self, model: StudyPointsModel) -> None:
        super().__init__(model, "study_points")
        self.study_points = model
        model.modelReset.connect(self._span_reasons)

    def _span_reasons(self) -> None:
        self.clearSpans()
        for row in self.study_points.reason_rows():
            self.setSpan(row, REASON_COLUMN, 1, REASON_SPAN)
