"""The sweep chart: throughput and the cost of an epoch against batch size, memory fill below.

One exportable Chart (gui/pages/run/plots.py) of two panels sharing a log2 batch axis (batch sizes
double):
the top panel holds throughput (left axis) and $ per epoch (right axis; the epoch's seconds when
no price is given), the bottom one each trial's peak memory as a share of the device (or of the
memory limit). Points are redrawn whenever a trial ends; a batch that did not fit is an x at the
bottom of the top panel and at 100 % below. Vertical lines mark the cheapest batch and the knee
(top), the largest batch that fits and the recommended one (bottom), and the running trial.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGraphicsItem

from engine.sweep.events import Trial
from gui.common.chart import Chart, legend_below
from gui.common.chart_axis import ChartAxis
from gui.common.theme import PlotColors

BATCH_LABEL = "batch size (samples per step, log2 scale)"
TICK_GAP_PX = 14  # at least this much between two tick labels
MIN_LOG2, MAX_LOG2 = 0, 20  # batch sizes 1 to 1,048,576 (the batch size's own bounds)
SYMBOL_SIZE = 9
COST_AXIS_WIDTH_PX = 70
LEFT_AXIS_WIDTH_PX = 60
MIN_HEIGHT_PX = 460  # two panels, their axes (each title shorter than its panel), legend, caption
HEADROOM = 1.12  # the top of a panel above its highest point: room for the marks' labels


class Log2Axis(ChartAxis):
    """Ticks at powers of two of a log2(batch) axis, labelled with the batch size itself: only
    batch sizes that can be (1 to 2^20), spaced so that their labels never touch, whatever the
    zoom (zoomed out, 2^-5 printed "0" five times over the other labels)."""

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list:  # noqa: N802, N803
        lo = max(math.ceil(minVal), MIN_LOG2)
        hi = min(math.floor(maxVal), MAX_LOG2)
        if hi < lo:  # zoomed in between two powers of two: one label, at the middle
            middle = (minVal + maxVal) / 2
            return [(1.0, [middle])] if MIN_LOG2 <= middle <= MAX_LOG2 else []
        widest = QFontMetrics(self.font()).horizontalAdvance(f"{2**hi:,}") + TICK_GAP_PX
        px_per_unit = size / max(maxVal - minVal, 1e-9)
        step = max(1, math.ceil(widest / px_per_unit))
        return [(float(step), [float(v) for v in range(lo, hi + 1) if v % step == 0])]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        return [f"{2.0**v:,.0f}" if v == round(v) else f"{2.0**v:,.3g}" for v in values]


def axis_style(axis: pg.AxisItem) -> None:
    axis.enableAutoSIPrefix(False)
    if axis.orientation in ("left", "right"):
        axis.setStyle(maxTextLevel=0)  # numbers at the major ticks only: short axes crowd
    axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


def vertical_mark(plot: pg.PlotItem, position: float, left: bool = False) -> pg.InfiniteLine:
    """A vertical line with its label at `position` of the height, right of it (or left)."""
    anchor = (1.0, 0.5) if left else (0.0, 0.5)
    line = pg.InfiniteLine(
        angle=90,
        movable=False,
        label="",
        labelOpts={"position": position, "anchors": [anchor, anchor]},
    )
    line.hide()
    plot.addItem(line, ignoreBounds=True)
    return line


def add_cost_axis(plot: pg.PlotItem) -> pg.ViewBox:
    """A second view box for the cost, on the right axis, sharing the plot's x axis."""
    view = pg.ViewBox()
    # A child of the plot (not only of the scene), so the SVG export includes it.
    view.setParentItem(plot)
    view.setXLink(plot)
    plot.showAxis("right")
    right = plot.getAxis("right")
    right.linkToView(view)
    right.setWidth(COST_AXIS_WIDTH_PX)
    axis_style(right)
    plot.vb.sigResized.connect(lambda *_: view.setGeometry(plot.vb.geometry()))
    return view


def _xy(trials: Sequence[Trial], key: str, scale: float) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([math.log2(t.batch_size) for t in trials], dtype=float)
    return x, np.array([t.value(key) * scale for t in trials], dtype=float)


class SweepChart(Chart):
    def __init__(self) -> None:
        super().__init__("sweep", "Batch-size sweep", "throughput (samples/s)")
        self.plot.setAxisItems({"bottom": Log2Axis("bottom")})
        # A few points: no clipping to the view (it would drop points but not their
        # per-point brushes) and no downsampling.
        self.plot.setClipToView(False)
        self.plot.setDownsampling(auto=False)
        self.plot.setLabel("bottom", "")
        # Rows: throughput and cost, memory, the legend, the caption (Chart put them in 1, 2).
        legend_below(self, columns=5, row=2)
        self.memory: pg.PlotItem = self.add_plot(row=1, col=0, axes={"bottom": Log2Axis("bottom")})
        self.plot.legend = None  # entries are added here by name, not by every named item
        self.adopt(self.memory)
        self.ci.layout.setRowStretchFactor(0, 2)
        self.ci.layout.setRowStretchFactor(1, 1)
        self.setMinimumHeight(MIN_HEIGHT_PX)
        self._style_memory_panel()
        self._add_cost_axis()
        self.hint = pg.TextItem("points appear as each batch size finishes", anchor=(0.5, 0.5))
        self.hint.setParentItem(self.plot.vb)  # view pixels, not data: stays put
        self.plot.vb.sigResized.connect(
            lambda vb: self.hint.setPos(vb.width() / 2, vb.height() / 2)
        )

        self.rate = pg.PlotDataItem(symbol="o")
        self.plot.addItem(self.rate)
        self.cost = pg.PlotDataItem(symbol="s")
        self.cost_vb.addItem(self.cost)
        self.fill = pg.PlotDataItem(symbol="o")
        self.memory.addItem(self.fill)
        # The search's short probes: hollow symbols drawn over the series' filled ones.
        self.probes = {
            self.rate: pg.ScatterPlotItem(symbol="o", size=SYMBOL_SIZE),
            self.cost: pg.ScatterPlotItem(symbol="s", size=SYMBOL_SIZE),
            self.fill: pg.ScatterPlotItem(symbol="o", size=SYMBOL_SIZE),
        }
        for series, view in (
            (self.rate, self.plot),
            (self.cost, self.cost_vb),
            (self.fill, self.memory),
        ):
            view.addItem(self.probes[series])
        self.too_big = pg.ScatterPlotItem(symbol="x", size=14)
        self.plot.addItem(self.too_big)
        self.fill_too_big = pg.ScatterPlotItem(symbol="x", size=14)
        self.memory.addItem(self.fill_too_big)
        self.full = pg.InfiniteLine(pos=100, angle=0, movable=False)
        self.memory.addItem(self.full)
        self.probe_key = pg.ScatterPlotItem(symbol="o", size=SYMBOL_SIZE)
        self._probe_key_shown = False
        self.legend.addItem(self.rate, "throughput (left axis)")
        self.legend.addItem(self.cost, "$ per epoch (right axis)")
        self.legend.addItem(self.fill, "peak memory")
        self.legend.addItem(self.too_big, "does not fit")

        self.cheapest_mark = vertical_mark(self.plot, 0.96)
        self.knee_mark = vertical_mark(self.plot, 0.84, left=True)
        self.running_mark = vertical_mark(self.plot, 0.5)
        self.max_fit_mark = vertical_mark(self.memory, 0.35)
        self.recommended_mark = vertical_mark(self.memory, 0.15, left=True)
        self.marks = (
            self.cheapest_mark,
            self.knee_mark,
            self.running_mark,
            self.max_fit_mark,
            self.recommended_mark,
        )
        self.colors: PlotColors | None = None
        self._trials: list[Trial] = []
        self._span: set[int] = set()  # batch sizes the x axis shows: planned, run, marked
        self.set_priced(True)

    def _style_memory_panel(self) -> None:
        self.memory.setLabel("left", "memory (%)")
        self.memory.setLabel("bottom", BATCH_LABEL)
        self.memory.showGrid(x=True, y=True, alpha=0.15)
        self.memory.setXLink(self.plot)
        self.memory.setYRange(0, 110, padding=0)  # a share: 0 to 100 % (and the x at 100)
        self.memory.setMouseEnabled(x=True, y=False)
        self.memory.showAxis("right")  # as wide as the cost axis above, so the panels align
        self.memory.getAxis("right").setStyle(showValues=False)
        self.memory.getAxis("right").setWidth(COST_AXIS_WIDTH_PX)
        for plot in (self.plot, self.memory):
            plot.getAxis("left").setWidth(LEFT_AXIS_WIDTH_PX)
            for axis in ("left", "bottom", "right"):
                axis_style(plot.getAxis(axis))

    def _add_cost_axis(self) -> None:
        self.cost_vb = add_cost_axis(self.plot)

    def set_priced(self, priced: bool) -> None:
        """$ per epoch on the right axis, or seconds per epoch without a price."""
        self.cost_key = "usd_per_epoch" if priced else "epoch_seconds"
        label = "USD per epoch" if priced else "seconds per epoch (no price given)"
        self.plot.setLabel("right", label)
        key = "$ per epoch" if priced else "seconds per epoch"
        self.legend.getLabel(self.cost).setText(f"{key} (right axis)")

    def reset(self, planned: Sequence[int] = ()) -> None:
        """Empty the chart for a new sweep of the `planned` batch sizes (known up front for a
        list; a search's sizes join the axis as they run). Not `clear`: GraphicsLayoutWidget
        has an instance attribute of that name that empties the whole layout."""
        self._trials = []
        self._span = set(planned)
        for item in (self.rate, self.cost, self.fill, self.too_big, self.fill_too_big):
            item.setData([], [])
        for probes in self.probes.values():
            probes.setData([], [])
        for mark in self.marks:
            mark.hide()
        if self._probe_key_shown:
            self.legend.removeItem(self.probe_key)
            self._probe_key_shown = False
        self.hint.show()
        self._fit_ranges()

    def show_points(self, points: Sequence[Trial]) -> None:
        """Draw one point per batch size (engine.sweep.summary.points)."""
        self._trials = list(points)
        ok = [t for t in points if t.fits]
        for item, key, scale in (
            (self.rate, "throughput_samples_per_s", 1.0),
            (self.cost, self.cost_key, 1.0),
            (self.fill, "memory_fill", 100.0),
        ):
            shown = [t for t in ok if t.value(key) is not None]
            item.setData(*_xy(shown, key, scale))
            self.probes[item].setData(*_xy([t for t in shown if t.role == "probe"], key, scale))
        no_fit = [math.log2(t.batch_size) for t in points if t.counts_as_not_fitting]
        self.too_big.setData(no_fit, [0.0] * len(no_fit))
        self.fill_too_big.setData(no_fit, [100.0] * len(no_fit))
        if any(t.role == "probe" for t in ok) and not self._probe_key_shown:
            self.legend.addItem(self.probe_key, "short probe run")
            self._probe_key_shown = True
        self.hint.setVisible(not points)
        self._span.update(t.batch_size for t in points)
        self._fit_ranges()

    def _fit_ranges(self) -> None:
        """Batch axis over every size planned, run or marked; value axes from 0 (a cost or a
        rate is read against zero), with room above the highest point for the labels."""
        if self._span:
            xs = [math.log2(b) for b in self._span]
            self.plot.setXRange(min(xs) - 0.5, max(xs) + 0.5, padding=0)
        ok = [t for t in self._trials if t.fits]
        for view, key in (
            (self.plot.vb, "throughput_samples_per_s"),
            (self.cost_vb, self.cost_key),
        ):
            top = max((t.value(key) for t in ok if t.value(key) is not None), default=None)
            if top:
                view.setYRange(-0.05 * top, top * HEADROOM, padding=0)

    def show_verdicts(
        self,
        cheapest: int | None,
        knee: int | None,
        max_fit: int | None = None,
        recommended: int | None = None,
    ) -> None:
        """Mark the verdicts so far; None hides a mark."""
        if cheapest is not None and cheapest == knee:
            self._place(self.cheapest_mark, cheapest, f"cheapest = knee {cheapest}")
            self.knee_mark.hide()
        else:
            self._place(self.cheapest_mark, cheapest, f"cheapest {cheapest}")
            self._place(self.knee_mark, knee, f"knee {knee}")
        self._place(self.max_fit_mark, max_fit, f"max fit {max_fit}")
        self._place(self.recommended_mark, recommended, f"recommended {recommended}")

    def show_running(self, batch: int | None) -> None:
        """Mark the batch of the trial that is running (None: none is)."""
        self._place(self.running_mark, batch, f"running {batch}")

    def _place(self, mark: pg.InfiniteLine, batch: int | None, text: str) -> None:
        if batch is None:
            mark.hide()
            return
        mark.show()  # first: a hidden line's label ignores new text
        mark.setValue(math.log2(batch))
        mark.label.setFormat(text)
        if batch not in self._span:
            self._span.add(batch)
            self._fit_ranges()

    def set_colors(self, colors: PlotColors) -> None:
        super().set_colors(colors)
        self.colors = colors
        for axis in ("left", "bottom", "right"):
            for plot in (self.plot, self.memory):
                ax = plot.getAxis(axis)
                ax.setPen(colors.foreground)
                ax.setTextPen(colors.foreground)
        self.plot.getAxis("right").setPen(colors.device_memory)
        self.plot.getAxis("right").setTextPen(colors.device_memory)
        self.plot.getAxis("left").setTextPen(colors.measured)
        for series, color, style in (
            (self.rate, colors.measured, Qt.PenStyle.SolidLine),
            (self.cost, colors.device_memory, Qt.PenStyle.DashLine),
            (self.fill, colors.process_memory, Qt.PenStyle.SolidLine),
        ):
            series.setPen(pg.mkPen(color, width=2, style=style))
            series.setSymbolPen(pg.mkPen(color, width=1.5))
            series.setSymbolBrush(pg.mkBrush(color))
            series.setSymbolSize(SYMBOL_SIZE)
            self.probes[series].setPen(pg.mkPen(color, width=1.5))
            self.probes[series].setBrush(pg.mkBrush(colors.background))
        for item in (self.too_big, self.fill_too_big):
            item.setPen(pg.mkPen(colors.median, width=2.5))
            item.setBrush(pg.mkBrush(colors.median))
        self.probe_key.setPen(pg.mkPen(colors.measured, width=1.5))
        self.probe_key.setBrush(pg.mkBrush(colors.background))
        self.full.setPen(pg.mkPen(colors.limit, width=1, style=Qt.PenStyle.DashLine))
        for mark, color, style in (
            (self.cheapest_mark, colors.phase, Qt.PenStyle.DashLine),
            (self.knee_mark, colors.overlay[1], Qt.PenStyle.DashLine),
            (self.running_mark, colors.warmup, Qt.PenStyle.DotLine),
            (self.max_fit_mark, colors.limit, Qt.PenStyle.DashLine),
            (self.recommended_mark, colors.phase, Qt.PenStyle.DashDotLine),
        ):
            mark.setPen(pg.mkPen(color, width=1.5, style=style))
            mark.label.setColor(color)
        self.memory.titleLabel.setText(self.memory.titleLabel.text, color=colors.foreground)
        if self._trials:
            self.show_points(self._trials)
