"""The chart of a study over any axis but batch size: throughput with its 95% interval (left
axis) and the cost of an epoch with its interval (right axis; the epoch's seconds when no price
is given) against the axis's values.

The x axis is the study's axis: its label and unit from the axis (engine/study/axis.py), a tick
at each value written as the axis writes it ("bf16", "180 W"), each value where the axis places
it (`position`: numbers at themselves, names such as precisions at their place in the list), so
a numeric axis draws lines between its points and a named one only the points. A value that was
not measured (refused by the device, failed) is an x at the bottom; vertical lines mark the
cheapest value and the running one. The cost axis and the marks are the batch chart's
(chart.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from engine.study.axis import Axis
from engine.study.point import StudyPoint
from engine.study.summary import StudySummary, cost_interval
from gui.common.chart import Chart, legend_below
from gui.common.theme import PlotColors
from gui.pages.sweep.chart import (
    HEADROOM,
    LEFT_AXIS_WIDTH_PX,
    SYMBOL_SIZE,
    add_cost_axis,
    axis_style,
    vertical_mark,
)

MIN_HEIGHT_PX = 300
LEGEND_WIDE_PX = 840  # narrower (a trade-off chart beside it): the legend in two columns
# Throughput left of its value and the cost right of it, this share of the values' gap apart:
# their intervals and the cheapest mark (at the value) side by side, not over each other.
NUDGE = 0.06
BEAM = 0.05  # an interval's caps, as a share of the gap
HINT = "points appear as each value finishes"
CUT_TEXT = "interval goes on above the axis (the table gives its ends)"
REACH = 3.0  # an axis shows intervals up to this many times its highest point


def axis_title(axis: Axis) -> str:
    """The x axis's title: "precision", "power limit (W)"."""
    return f"{axis.label} ({axis.unit})" if axis.unit else axis.label


def _arrays(pairs: Sequence[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([p[0] for p in pairs], dtype=float)
    return x, np.array([p[1] for p in pairs], dtype=float)


class StudyChart(Chart):
    def __init__(self) -> None:
        super().__init__("study", "Study", "throughput (samples/s)")
        self.plot.setClipToView(False)  # a few points: keep every one
        self.plot.setDownsampling(auto=False)
        legend_below(self, columns=3, row=1)
        self.plot.legend = None  # entries are added here by name
        self.plot.getAxis("left").setWidth(LEFT_AXIS_WIDTH_PX)
        for name in ("left", "bottom"):
            axis_style(self.plot.getAxis(name))
        self.cost_vb = add_cost_axis(self.plot)
        self.setMinimumHeight(MIN_HEIGHT_PX)
        self.hint = pg.TextItem(HINT, anchor=(0.5, 0.5))
        self.hint.setParentItem(self.plot.vb)  # view pixels, not data: stays put
        self.plot.vb.sigResized.connect(
            lambda vb: self.hint.setPos(vb.width() / 2, vb.height() / 2)
        )

        self.rate = pg.PlotDataItem(symbol="o")
        self.rate_ci = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), beam=0.0)
        self.cost = pg.PlotDataItem(symbol="s")
        self.cost_ci = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), beam=0.0)
        self.not_run = pg.ScatterPlotItem(symbol="x", size=14)
        # Where an interval reaches past the axis's top, a triangle at the top says it goes on.
        self.rate_cut = pg.ScatterPlotItem(symbol="t1", size=11)
        self.cost_cut = pg.ScatterPlotItem(symbol="t1", size=11)
        for item in (self.rate_ci, self.rate, self.not_run, self.rate_cut):
            self.plot.addItem(item)
        for item in (self.cost_ci, self.cost, self.cost_cut):
            self.cost_vb.addItem(item)
        self.legend.addItem(self.rate, "throughput, 95% interval (left axis)")
        self.legend.addItem(self.cost, "$ per epoch (right axis)")
        self.legend.addItem(self.not_run, "not measured (the table says why)")
        self.cheapest_mark = vertical_mark(self.plot, 0.96)
        self.running_mark = vertical_mark(self.plot, 0.5)

        self.colors: PlotColors | None = None
        self.axis: Axis | None = None
        self.named = False  # values are names (precisions): points, no lines between them
        self.cost_key = "usd_per_epoch"
        self._positions: dict[str, float] = {}  # value (as text) -> its x
        self._gap = 1.0  # the least distance between two values on the x axis
        self._summary: StudySummary | None = None
        self.set_priced(True)

    def resizeEvent(self, ev: Any) -> None:  # noqa: N802 (Qt's name)
        """A legend wider than the chart would widen its layout past the view and cut the
        right axis off: narrower, it takes two lines."""
        columns = 3 if self.width() >= LEGEND_WIDE_PX else 2
        legend = vars(self).get("legend")  # None while pyqtgraph builds the widget
        if legend is not None and legend.columnCount != columns:
            legend.setColumnCount(columns)
        super().resizeEvent(ev)

    def set_priced(self, priced: bool) -> None:
        """$ per epoch on the right axis, or seconds per epoch without a price."""
        self.cost_key = "usd_per_epoch" if priced else "epoch_seconds"
        self.plot.setLabel("right", "USD per epoch" if priced else "seconds per epoch (no price)")
        key = "$ per epoch" if priced else "seconds per epoch"
        self.legend.getLabel(self.cost).setText(f"{key}, 95% interval (right axis)")

    def begin(self, axis: Axis, values: Sequence[Any]) -> None:
        """Empty the chart for a study of `values` on `axis`: the x axis is the axis, a tick at
        each value."""
        self.axis = axis
        self.named = bool(axis.values.choices)
        self._summary = None
        self.plot.setTitle(f"{axis.label[:1].upper()}{axis.label[1:]} study")
        self.plot.setLabel("bottom", axis_title(axis))
        self._positions = {
            str(v): axis.position(v, index) for index, v in enumerate(values, start=1)
        }
        self.plot.getAxis("bottom").setTicks(
            [[(x, axis.show(v)) for v, x in zip(values, self._positions.values(), strict=True)]]
        )
        xs = sorted(set(self._positions.values()))
        self._gap = min((b - a for a, b in zip(xs, xs[1:], strict=False)), default=1.0) or 1.0
        self.plot.setXRange(xs[0] - self._gap / 2, xs[-1] + self._gap / 2, padding=0)
        for item in (self.rate, self.cost):
            item.setData([], [])
        for bars in (self.rate_ci, self.cost_ci):
            bars.setData(x=np.zeros(0), y=np.zeros(0), top=np.zeros(0), bottom=np.zeros(0))
        self.not_run.setData([], [])
        self.cheapest_mark.hide()
        self.running_mark.hide()
        self.hint.show()
        if self.colors is not None:
            self._style_series(self.colors)
        self.fit_titles()

    def x_of(self, value: Any) -> float:
        return self._positions.get(str(value), 0.0)

    def show_points(self, summary: StudySummary) -> None:
        """Draw the points so far and mark the cheapest."""
        self._summary = summary
        self._positions.update(summary.positions)
        ok = [p for p in summary.points if p.ok and p.figure("throughput_samples_per_s")]
        nudge = NUDGE * self._gap
        rates = [(self.x_of(p.value) - nudge, p.figure("throughput_samples_per_s")) for p in ok]
        self.rate.setData(*_arrays(rates))
        self._bars(self.rate_ci, ok, rates, lambda p: p.interval("throughput_ci95"))
        priced = [p for p in ok if self._cost(p) is not None]
        costs = [(self.x_of(p.value) + nudge, float(self._cost(p) or 0.0)) for p in priced]
        self.cost.setData(*_arrays(costs))
        self._bars(self.cost_ci, priced, costs, cost_interval)
        missed = [self.x_of(p.value) for p in summary.points if not p.ok]
        self.not_run.setData(missed, [0.0] * len(missed))
        self.hint.setVisible(not summary.points)
        self._fit_y(rates, costs)
        best = summary.cheapest_value
        self._place(self.cheapest_mark, best, f"cheapest {summary.show(best)}")

    def _cost(self, point: StudyPoint) -> float | None:
        if self.cost_key == "usd_per_epoch":
            return point.usd_per_epoch
        seconds = point.figure("epoch_seconds")
        return float(seconds) if seconds is not None else None

    def _bars(self, bars: pg.ErrorBarItem, points: list, xy: list, interval: Any) -> None:
        """Error bars from each point's (low, high) interval, where it has one."""
        rows = [(x, y, interval(p)) for p, (x, y) in zip(points, xy, strict=True)]
        rows = [(x, y, i) for x, y, i in rows if i and i[0] is not None and i[1] is not None]
        x = np.array([r[0] for r in rows], dtype=float)
        y = np.array([r[1] for r in rows], dtype=float)
        top = np.array([max(r[2][1] - r[1], 0.0) for r in rows], dtype=float)
        bottom = np.array([max(r[1] - r[2][0], 0.0) for r in rows], dtype=float)
        bars.setData(x=x, y=y, top=top, bottom=bottom, beam=BEAM * self._gap)

    def _fit_y(self, rates: list, costs: list) -> None:
        """Value axes from 0 (a cost or a rate is read against zero) to above the highest
        point or the top of its interval, with room for the marks' labels. An interval far
        wider than its point (a noisy machine) is cut at REACH times the highest point, and a
        triangle at the axis's top says that it goes on."""
        cut_any = False
        for view, pairs, bars, cut in (
            (self.plot.vb, rates, self.rate_ci, self.rate_cut),
            (self.cost_vb, costs, self.cost_ci, self.cost_cut),
        ):
            top = max((y for _, y in pairs), default=0.0)
            cut.setData([], [])
            if not top:
                continue
            ends = np.zeros(0)
            if bars.opts.get("top") is not None and len(bars.opts["y"]):
                ends = bars.opts["y"] + bars.opts["top"]
            reach = float(np.max(ends)) if len(ends) else top
            high = min(max(top, reach), REACH * top) * HEADROOM
            view.setYRange(-0.05 * high, high, padding=0)
            past = ends > high
            if past.any():
                cut.setData(bars.opts["x"][past], np.full(int(past.sum()), high * 0.985))
                cut_any = True
        said = self.legend.getLabel(self.rate_cut) is not None
        if cut_any and not said:
            self.legend.addItem(self.rate_cut, CUT_TEXT)
        elif said and not cut_any:
            self.legend.removeItem(self.rate_cut)

    def show_running(self, value: Any) -> None:
        """Mark the value of the point that is running (None: none is)."""
        shown = self.axis.show(value) if self.axis is not None and value is not None else ""
        self._place(self.running_mark, value, f"running {shown}")

    def _place(self, mark: pg.InfiniteLine, value: Any, text: str) -> None:
        if value is None:
            mark.hide()
            return
        mark.show()  # first: a hidden line's label ignores new text
        mark.setValue(self.x_of(value))
        mark.label.setFormat(text)

    def set_colors(self, colors: PlotColors) -> None:
        super().set_colors(colors)
        self.colors = colors
        right = self.plot.getAxis("right")
        right.setPen(colors.device_memory)
        right.setTextPen(colors.device_memory)
        self.plot.getAxis("left").setTextPen(colors.measured)
        self._style_series(colors)
        self.not_run.setPen(pg.mkPen(colors.median, width=2.5))
        self.not_run.setBrush(pg.mkBrush(colors.median))
        for mark, color, style in (
            (self.cheapest_mark, colors.phase, Qt.PenStyle.DashLine),
            (self.running_mark, colors.warmup, Qt.PenStyle.DotLine),
        ):
            mark.setPen(pg.mkPen(color, width=1.5, style=style))
            mark.label.setColor(color)
        if self._summary is not None:
            self.show_points(self._summary)

    def _style_series(self, colors: PlotColors) -> None:
        for series, bars, cut, color, style in (
            (self.rate, self.rate_ci, self.rate_cut, colors.measured, Qt.PenStyle.SolidLine),
            (self.cost, self.cost_ci, self.cost_cut, colors.device_memory, Qt.PenStyle.DashLine),
        ):
            cut.setPen(pg.mkPen(color, width=1.5))
            cut.setBrush(pg.mkBrush(color))
            line = None if self.named else pg.mkPen(color, width=2, style=style)
            series.setPen(line)
            series.setSymbolPen(pg.mkPen(color, width=1.5))
            series.setSymbolBrush(pg.mkBrush(color))
            series.setSymbolSize(SYMBOL_SIZE)
            bars.setOpts(pen=pg.mkPen(color, width=1.5))
