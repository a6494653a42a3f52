"""The memory chart's peak: a dot at the highest memory the run reached and its label (the
size, and the device's share where its total is known), kept whole inside the plot and off
the curves."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg

from engine.results import report
from gui.common.chart import Chart
from gui.common.theme import PlotColors
from gui.pages.run.plot_style import GIB, slide_inside
from gui.pages.run.series import RunSeries


class MemoryPeak:
    def __init__(self, chart: Chart) -> None:
        self.chart = chart
        self.dot = pg.ScatterPlotItem(size=11, symbol="o")
        self.label = pg.TextItem(anchor=(0, 1))
        chart.plot.addItem(self.dot)
        chart.plot.addItem(self.label)
        chart.labels.add_point(self.label)  # off the chart's curves, as every label
        chart.plot.vb.sigRangeChanged.connect(lambda *_: self.place())
        chart.plot.vb.sigResized.connect(lambda *_: self.place())

    def set_colors(self, colors: PlotColors) -> None:
        self.dot.setBrush(pg.mkBrush(colors.peak))
        self.dot.setPen(pg.mkPen(colors.foreground))
        self.label.setColor(colors.peak)

    def clear(self) -> None:
        self.dot.setData([], [])
        self.label.setText("")

    def show(self, t: float, peak_bytes: float, total: int | None) -> None:
        self.dot.setData([t], [peak_bytes / GIB])
        fill = f" ({peak_bytes / total:.1%} of the device)" if total else ""
        self.label.setText(f"peak {report.size(peak_bytes)}{fill}")
        self.label.setPos(t, peak_bytes / GIB)
        self.place()

    def end(self, series: RunSeries | None, result: dict[str, Any]) -> None:
        """The result's peak, where it beats the sampler's: the worker's own (ru_maxrss, the
        framework's counter) sees between samples."""
        peak = result.get("peak_memory_bytes")
        seen = series.peak_memory if series is not None else None
        if series is not None and peak and seen is not None and peak > seen[1]:
            self.show(series.latest_t, peak, result.get("memory_total_bytes"))

    def place(self) -> None:
        slide_inside(self.label, self.chart.plot.vb)
        self.chart.labels.request()
