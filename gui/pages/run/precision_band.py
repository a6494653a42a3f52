"""A run with a target precision, drawn on the throughput chart: the run's 95% interval after
each window (the worker's `precision` events: the interval the result would store, windows'
spread and busy share included) as a band that narrows as windows are added, the target as two
dotted lines around the figure, and a label that says where it stands, "±4.1% → target ±3%"
(docs/measuring.md, "Stop when precise enough"). At the end the label goes: the verdict,
"target ±3% not reached", is the result's legend entry's (gui/pages/run/result_levels.py), since
the finished run's windows can fill the plot where the label would sit.

The band is drawn where it is bounded (plot_style.bounded_band: a busy machine's interval can
reach many times the figure, which the y axis would have to hold); the label is a point's label
at the band's latest end, placed by the chart's one rule (gui/common/chart_labels.py), and slid
left, as the memory peak's is, to stay whole inside the plot.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from engine.core.precision_target import achieved_text, percent
from gui.common.chart import Chart
from gui.common.theme import PlotColors
from gui.pages.run.plot_style import backdrop, band_outline, bounded_band
from gui.pages.run.series import RunSeries

BAND_NAME = "95% interval so far (the run's)"


def caption(achieved: float | None, target: float, reached: bool) -> str:
    """'±4.1% → target ±3%' while it runs; 'target ±3% reached (±2.4%)' once reached."""
    shown = "no interval yet" if achieved is None else achieved_text(achieved)
    goal = f"target ±{percent(target)}"
    return f"{goal} reached ({shown})" if reached else f"{shown} → {goal}"


def verdict(result: dict[str, Any] | None) -> str:
    """'target ±3% reached' or 'target ±3% not reached' for a result with a target, else ''
    (how near it got is the result's interval, said beside it)."""
    goal = (result or {}).get("target_precision") or {}
    target = goal.get("target")
    if not isinstance(target, int | float):
        return ""
    return f"target ±{percent(target)} {'reached' if goal.get('reached') else 'not reached'}"


class PrecisionBand:
    """The interval narrowing and the target, on the throughput chart (only with a target)."""

    def __init__(self, chart: Chart) -> None:
        self.chart = chart
        plot = chart.plot
        # One closed outline, as the cost band (plots.py says why not a FillBetweenItem).
        self.band = pg.PlotCurveItem(fillLevel="enclosed", pen=pg.mkPen(None))
        self.band_key = pg.PlotDataItem()  # a wide translucent line stands for it in the legend
        self.above = pg.PlotDataItem(connect="finite")
        self.below = pg.PlotDataItem(connect="finite")
        self.label = pg.TextItem(anchor=(1, 1))
        for item in (self.band, self.above, self.below, self.label):
            plot.addItem(item)
        chart.labels.add_point(self.label)
        plot.vb.sigRangeChanged.connect(lambda *_: self._place())
        plot.vb.sigResized.connect(lambda *_: self._place())
        self.target: float | None = None
        self._show(False)

    def _show(self, on: bool) -> None:
        """The band, the target's lines, the label and their legend entries, or none."""
        for item in (self.band, self.above, self.below, self.label):
            item.setVisible(on)
        legend = self.chart.legend
        named = legend.getLabel(self.above)
        name = f"target ±{percent(self.target or 0.0)}"
        if on and named is None:
            legend.addItem(self.band_key, BAND_NAME)
            legend.addItem(self.above, name)
        elif on and named.text != name:  # renamed in place: the chart is not laid out again
            named.setText(name)
        elif not on and named is not None:
            legend.removeItem(self.band_key)
            legend.removeItem(self.above)

    def set_colors(self, colors: PlotColors) -> None:
        shade = pg.mkColor(colors.median)
        shade.setAlpha(50)
        self.band.setBrush(pg.mkBrush(shade))
        self.band_key.setPen(pg.mkPen(shade, width=10))
        for line in (self.above, self.below):
            line.setPen(pg.mkPen(colors.limit, width=1.5, style=pg.QtCore.Qt.DotLine))
        self.label.setColor(colors.limit)
        self.label.fill = pg.mkBrush(backdrop(colors))

    def begin(self, target_pct: float | None) -> None:
        """A new run: empty; shown only when it has a target."""
        self.target = None if target_pct is None else target_pct / 100
        for item in (self.above, self.below):
            item.setData([], [])
        self.band.setData([], [])
        self.label.setText("")
        self._show(self.target is not None)

    def refresh(self, series: RunSeries) -> None:
        """Redraw from the windows' intervals so far."""
        event = series.precision
        if self.target is None or event is None:
            return
        t, mid = series.ci_t.values, series.ci_figure.values
        low, high = series.ci_low.values, series.ci_high.values
        self.band.setData(*band_outline(*bounded_band(t, low, mid, high)))
        self.above.setData(t, mid * (1 + self.target))
        self.below.setData(t, mid * (1 - self.target))
        self.label.setText(caption(event.achieved, self.target, event.reached))
        self.label.setPos(float(t[-1]), float(high[-1]))
        self._place()

    def end(self, result: dict[str, Any] | None) -> None:
        """The run is over: the label goes (the result's legend entry says the verdict)."""
        goal = (result or {}).get("target_precision")
        if self.target is None or not goal:
            return
        self.label.hide()
        self.chart.labels.request()

    def _place(self) -> None:
        """Keep the label whole inside the plot: it ends at its point and slides right when the
        point is near the left edge (the chart's rule then picks above or below)."""
        vb = self.chart.plot.vb
        (x0, x1), _ = vb.viewRange()
        view_px, text_px = vb.width(), self.label.textItem.boundingRect().width()
        if view_px <= 0 or text_px <= 0 or x1 <= x0 or not self.label.isVisible():
            return
        point_px = (self.label.pos().x() - x0) / (x1 - x0) * view_px
        left_px = min(max(point_px - text_px, 0.0), max(view_px - text_px, 0.0))
        x = float(np.clip((point_px - left_px) / text_px, 0.0, 1.0))
        self.label.setAnchor((x, self.label.anchor.y()))
        self.chart.labels.request()
