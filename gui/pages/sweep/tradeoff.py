"""The trade-off of a power-limit study: the energy an epoch takes against the time it takes,
a point per limit, each labelled with its limit, the cheapest circled. A lower limit draws less
and runs longer; which costs less depends on the tariff and the card's price (the study's
verdict, engine/study/summary.py). The energy is what NVML measured during the point; without
it (a CPU, a GPU NVML cannot read) the chart says so.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from engine.study.summary import StudySummary
from gui.common.chart import Chart, legend_below
from gui.common.theme import PlotColors
from gui.pages.sweep.chart import HEADROOM, LEFT_AXIS_WIDTH_PX, SYMBOL_SIZE, axis_style

MIN_HEIGHT_PX = 300
ROOM = 1.3  # the x axis reaches this far past the longest epoch: room for its point's name
NO_ENERGY = "no energy measured yet: NVML measures it on NVIDIA GPUs"


class TradeoffChart(Chart):
    """Energy per epoch against epoch time, a labelled point per value, the cheapest circled."""

    def __init__(self) -> None:
        super().__init__("tradeoff", "Time against energy", "energy per epoch (kWh)")
        self.plot.setLabel("bottom", "epoch time (s)")
        self.plot.setClipToView(False)
        self.plot.setDownsampling(auto=False)
        legend_below(self, columns=2, row=1)
        self.plot.legend = None
        self.plot.getAxis("left").setWidth(LEFT_AXIS_WIDTH_PX)
        for name in ("left", "bottom"):
            axis_style(self.plot.getAxis(name))
        self.setMinimumHeight(MIN_HEIGHT_PX)
        self.points = pg.ScatterPlotItem(symbol="o", size=SYMBOL_SIZE)
        self.cheapest = pg.ScatterPlotItem(symbol="o", size=SYMBOL_SIZE * 2.2)
        self.plot.addItem(self.points)
        self.plot.addItem(self.cheapest)
        self.legend.addItem(self.points, "a point per value")
        self.legend.addItem(self.cheapest, "cheapest")
        self.hint = pg.TextItem(NO_ENERGY, anchor=(0.5, 0.5))
        self.hint.setParentItem(self.plot.vb)
        self.plot.vb.sigResized.connect(
            lambda vb: self.hint.setPos(vb.width() / 2, vb.height() / 2)
        )
        self.names: list[pg.TextItem] = []  # each point's value, beside it
        self.colors: PlotColors | None = None
        self._summary: StudySummary | None = None

    def reset(self) -> None:
        self.show_points(None)

    def show_points(self, summary: StudySummary | None) -> None:
        """A point per measured value with its energy; the cheapest circled."""
        self._summary = summary
        for name in self.names:
            self.plot.removeItem(name)
        self.names = []
        done = [] if summary is None else summary.measured
        pairs = [
            (p.figure("epoch_seconds"), p.kwh_per_epoch, p.value)
            for p in done
            if p.figure("epoch_seconds") and p.kwh_per_epoch is not None
        ]
        x = np.array([p[0] for p in pairs], dtype=float)
        y = np.array([p[1] for p in pairs], dtype=float)
        self.points.setData(x, y)
        best = [p for p in pairs if summary is not None and p[2] == summary.cheapest_value]
        self.cheapest.setData([p[0] for p in best], [p[1] for p in best])
        self.hint.setVisible(not pairs)
        color = self.colors.foreground if self.colors else "k"
        for seconds, kwh, value in pairs:
            text: Any = summary.show(value) if summary is not None else str(value)
            name = pg.TextItem(text, anchor=(0.0, 1.0), color=color)
            name.setPos(seconds, kwh)
            self.plot.addItem(name, ignoreBounds=True)
            self.names.append(name)
        if pairs:  # room right of and above the last point for its name
            self.plot.setXRange(0.0, float(x.max()) * ROOM, padding=0)
            self.plot.setYRange(0.0, float(y.max()) * HEADROOM, padding=0)

    def set_colors(self, colors: PlotColors) -> None:
        super().set_colors(colors)
        self.colors = colors
        self.points.setPen(pg.mkPen(colors.measured, width=1.5))
        self.points.setBrush(pg.mkBrush(colors.measured))
        self.cheapest.setPen(pg.mkPen(colors.phase, width=2.5))
        self.cheapest.setBrush(pg.mkBrush(None))
        self.hint.setColor(colors.foreground)
        self.show_points(self._summary)
