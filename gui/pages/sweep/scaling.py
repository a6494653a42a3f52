"""The Sweep tab's scaling study view: efficiency against the number of data-parallel
processes, for a study `epochcost scaling` stored (engine/results/scaling.py; docs/scaling.md).

A chart of efficiency (1.0 = perfect scaling from the smallest count) with the perfect line
beside it, the legend in its row under the plot (gui/common/chart.py), and a caption with each
count's throughput. The studies are read from the store when the view is shown and on Refresh.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from engine.core.errors import ConfigError, StoreError
from gui.common.chart import Chart, add_line
from gui.common.theme import PlotColors

if TYPE_CHECKING:  # engine.results.scaling reads the store (pandas): loaded when first shown
    from engine.results.scaling import Point
    from engine.results.store import Store

NONE_YET = "No scaling study stored yet: run `epochcost scaling --model M --nproc 1,2,4`"
SYMBOL_SIZE = 9
MIN_HEIGHT_PX = 260


class ScalingChart(Chart):
    """Efficiency (measured, and perfect) against processes."""

    def __init__(self) -> None:
        super().__init__("scaling", "Data-parallel scaling", "efficiency (of perfect scaling)")
        self.plot.setLabel("bottom", "processes (one device each)")
        self.plot.setClipToView(False)  # a few points: keep every one
        self.measured = add_line(self, "measured efficiency")
        self.measured.setSymbol("o")
        self.measured.setSymbolSize(SYMBOL_SIZE)
        self.perfect = add_line(self, "perfect scaling (1.0)")
        self.perfect.setPen(pg.mkPen(width=1, style=Qt.PenStyle.DashLine))
        self.setMinimumHeight(MIN_HEIGHT_PX)

    def set_colors(self, colors: PlotColors) -> None:
        super().set_colors(colors)
        self.measured.setPen(pg.mkPen(colors.measured, width=2))
        self.measured.setSymbolBrush(colors.measured)
        self.perfect.setPen(pg.mkPen(colors.foreground, width=1, style=Qt.PenStyle.DashLine))

    def show_points(self, points: list[Point], caption: str) -> None:
        counts = [p.nproc for p in points]
        eff = [p.efficiency if p.efficiency is not None else np.nan for p in points]
        self.measured.setData(np.array(counts, dtype=float), np.array(eff, dtype=float))
        if counts:
            self.perfect.setData(np.array([min(counts), max(counts)], dtype=float), [1.0, 1.0])
            finite = [e for e in eff if e == e]  # not NaN
            top = max([1.0, *finite]) * 1.1
            self.plot.setYRange(0.0, top, padding=0)
            self.plot.setXRange(min(counts) - 0.5, max(counts) + 0.5, padding=0)
            self.plot.getAxis("bottom").setTicks([[(float(c), str(c)) for c in counts]])
        else:
            self.perfect.setData([], [])
        self.set_caption(caption)


class ScalingView(QWidget):
    """The stored studies in a box, the chosen one's chart, and Refresh."""

    def __init__(self, store: Callable[[], Store], colors: PlotColors) -> None:
        super().__init__(objectName="scaling_view")
        self._store = store
        self.studies = QComboBox(objectName="scaling_studies")
        self.studies.setToolTip("A stored scaling study: throughput against processes")
        self.refresh_button = QPushButton("Refresh", objectName="scaling_refresh")
        self.status = QLabel(NONE_YET, objectName="scaling_status", wordWrap=True)
        self.chart = ScalingChart()
        self.chart.set_colors(colors)
        top = QHBoxLayout()
        top.addWidget(QLabel("Scaling study:"))
        top.addWidget(self.studies, 1)
        top.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.chart, 1)
        self.refresh_button.clicked.connect(self.refresh)
        self.studies.currentIndexChanged.connect(lambda _: self._show_chosen())

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self.refresh()

    def refresh(self) -> None:
        """Read the stored studies again, keeping the one chosen when it is still there."""
        from engine.results import scaling  # here: see gui/common/lazy_store.py

        chosen = self.studies.currentData()
        try:
            groups = scaling.study_groups(self._store())
        except (StoreError, ConfigError) as exc:
            self.status.setText(f"The results store cannot be read: {exc}")
            return
        self.studies.blockSignals(True)
        self.studies.clear()
        for gid in groups:
            self.studies.addItem(gid, gid)
        if chosen in groups:
            self.studies.setCurrentIndex(groups.index(chosen))
        self.studies.blockSignals(False)
        self._show_chosen()

    def _show_chosen(self) -> None:
        gid = self.studies.currentData()
        if not gid:
            self.status.setText(NONE_YET)
            self.chart.show_points([], "")
            return
        from engine.results import scaling

        try:
            points, config = scaling.study_points(self._store(), gid)
        except (StoreError, ConfigError) as exc:
            self.status.setText(f"Study {gid} cannot be read: {exc}")
            return
        self.status.setText(summary_line(points, config))
        self.chart.show_points(points, caption(points, config, gid))


def summary_line(points: list[Point], config: dict[str, Any]) -> str:
    widest = max(
        (p for p in points if p.efficiency is not None), key=lambda p: p.nproc, default=None
    )
    if widest is None:
        return f"{config.get('model', '?')}: no count measured"
    return (
        f"{config.get('model', '?')} on {config.get('device', '?')}: {widest.nproc} processes "
        f"reach {widest.efficiency:.0%} of perfect scaling"
    )


def caption(points: list[Point], config: dict[str, Any], gid: str) -> str:
    rates = ", ".join(
        f"{p.nproc}: {p.samples_per_s:,.0f}/s" if p.samples_per_s else f"{p.nproc}: {p.status}"
        for p in points
    )
    return (
        f"{config.get('model', '?')}, batch {config.get('batch_size', '?')} per process, "
        f"{config.get('precision', '?')}; samples/s by processes: {rates}. "
        f"Efficiency = throughput / (smallest count's x processes / its count). {gid}"
    )
