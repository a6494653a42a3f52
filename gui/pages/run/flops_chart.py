"""The fourth live chart: the FLOP rate a run achieves, step by step, and its model FLOPs
utilisation (MFU) where the device's peak is known.

Achieved TFLOP/s = FLOPs per sample (counted once in the worker, engine/worker/frameworks) x the
throughput chart's main line: each window's samples over its wall time, the result's own
statistic, so the chart's line ends where the result's level says (per-step rates, which leave
out the time between steps, are the throughput chart's lighter scatter and not drawn twice).
Each window's figure is a dot, as on the throughput chart: a window shorter than the step
events' 100 ms has one point of the line, which no line can draw.
The peak comes with the worker's Flops event (engine/measure/utilisation.py: the catalog's dense
peak for the run's precision); a CPU or a GPU missing from the catalog shows "peak unknown" and
no MFU, never a guessed one.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg

from gui.common.chart import Chart, add_keyed_level, add_line
from gui.common.theme import PlotColors
from gui.pages.run.series import RunSeries

TITLE = "Achieved FLOP rate"
NOT_COUNTED = "FLOPs not counted for this model"
WAITING = "shown once the FLOPs per step are counted"
WAITING_RESULT = "result (once a run finishes)"  # the result's legend entry until then


def title_for(series: RunSeries | None) -> str:
    """The chart's title: the running window's MFU where the peak is known."""
    if series is None or not series.flops_per_step:
        return TITLE
    mfu = series.mfu
    if mfu is not None and series.peak_tflops:
        return f"{TITLE}: MFU {mfu:.1%} of {series.peak_tflops:g} TFLOP/s"
    if series.peak_tflops is None and series.peak_source:
        return f"{TITLE} (peak unknown: no MFU)"
    return TITLE


class FlopsChart(Chart):
    def __init__(self) -> None:
        super().__init__("flops", TITLE, "TFLOP/s")
        self.line = add_line(self, "this window: FLOPs / wall time")
        self.ends = pg.ScatterPlotItem(size=9, symbol="o", name="each window's figure")
        self.plot.addItem(self.ends)
        self.final = add_keyed_level(self, WAITING_RESULT)
        self.hint = pg.TextItem(WAITING, anchor=(0.5, 0.5))
        self.hint.setParentItem(self.plot.vb)  # view pixels, not data: stays put
        self.labels.add_hint(self.hint)
        self.plot.vb.sigResized.connect(
            lambda vb: self.hint.setPos(vb.width() / 2, vb.height() / 2)
        )
        self._title = TITLE
        self._foreground: Any = None

    def set_colors(self, colors: PlotColors) -> None:
        super().set_colors(colors)
        self.line.setPen(pg.mkPen(colors.median, width=2.5))
        self.ends.setBrush(pg.mkBrush(colors.median))
        self.ends.setPen(pg.mkPen(colors.foreground))
        self.final.setPen(pg.mkPen(colors.limit, width=1.5, style=pg.QtCore.Qt.DashLine))
        self.hint.setColor(colors.foreground)
        self._foreground = colors.foreground
        self.plot.setTitle(self._title, color=colors.foreground)

    def begin(self, caption: str) -> None:
        self.line.setData([], [])
        self.ends.setData([], [])
        self.final.clear()
        self.hint.setText(WAITING)
        self.hint.show()
        self._set_title(TITLE)
        self.set_caption(caption)

    def counted(self, series: RunSeries, caption: str) -> None:
        """The worker's Flops event arrived: say what is known before any step is drawn."""
        if not series.flops_per_step:
            self.hint.setText(NOT_COUNTED)
            return
        self.hint.hide()
        per_step = f"{series.flops_per_step:.3g} FLOPs per step"
        self.set_caption(f"{caption}<br>{per_step}; {series.peak_source}")

    def refresh(self, series: RunSeries) -> None:
        """Redraw from the series."""
        per_sample = series.tflop_per_sample
        if per_sample is None or not len(series.window_rate):
            return
        rates = series.window_rate.values * per_sample
        self.line.setData(series.window_t.values, rates)
        self.ends.setData(series.ends_t.values, series.ends_rate.values * per_sample)
        self._set_title(title_for(series))

    def end(self, result: dict[str, Any]) -> None:
        """The result's own figures (the whole window's throughput, not the last median)."""
        flops = result.get("flops") or {}
        achieved = flops.get("achieved_tflops")
        if achieved is None:
            return
        mfu = flops.get("mfu")
        text = f"result {achieved:.3g} TFLOP/s" + (f", MFU {mfu:.1%}" if mfu is not None else "")
        self.final.show_at(achieved, text)

    def _set_title(self, text: str) -> None:
        if text != self._title:
            self._title = text
            self.plot.setTitle(text, color=self._foreground)
