"""The input wait drawn on the throughput chart, on a right axis, only for a run with an input
pipeline: the share of each step spent waiting for its batch, in percent (docs/measuring.md,
"Input pipelines").

Per step (wait / step time, lighter) and the window so far (its waits over its wall time,
the result's own statistic, so the line ends where the result's level says: the result's
input_wait_fraction). 5% or more is partly input-bound and 20% or more input-bound, as the
result's warnings say; the right axis holds 25% at least, so that a small share looks small.

A second view box laid over the throughput plot's (pyqtgraph's MultiplePlotAxes pattern): the
same geometry, its x linked to the throughput plot's, its y on the right axis. It sits under the
plot's own view box, so the mouse still pans and zooms the throughput plot (and its menu is the
chart's); its y range is its own, set here. A synthetic run shows no right axis at all.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from gui.common.chart import Chart
from gui.common.chart_axis import ChartAxis
from gui.common.chart_legend import KeyedLevel
from gui.common.theme import PlotColors
from gui.pages.run.plot_style import faded
from gui.pages.run.series import RunSeries

AXIS_LABEL = "input wait (% of step)"
PER_STEP_NAME = "input wait per step (right axis)"
WINDOW_NAME = "input wait, this window (right axis)"
# The worker's thresholds (engine/worker/measure/input_wait.py; the app imports no worker code).
BOUND = 0.20
PARTLY = 0.05
TOP_AT_LEAST = 25.0  # percent: the axis shows the input-bound threshold with room
HEADROOM = 1.15  # the axis's top over the largest share or the result's level (100% at most)


def verdict(fraction: float) -> str:
    """How the result's share reads: input-bound, partly or not."""
    if fraction >= BOUND:
        return "input-bound"
    return "partly input-bound" if fraction >= PARTLY else "not input-bound"


class PercentAxis(ChartAxis):
    """A percent axis whose ticks say so ("20%"): on screen it has no label."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        return [f"{v:g}%" for v in values]


class InputWaitOverlay:
    """The input wait (percent of each step) over the throughput chart, on its right axis."""

    def __init__(self, chart: Chart) -> None:
        self.chart = chart
        plot = chart.plot
        self.view = pg.ViewBox(enableMouse=False)
        # A child of the plot (not only of the scene), so an SVG export includes it; under the
        # plot's own view box (theirs is -100), which keeps the mouse and the right-click menu.
        self.view.setParentItem(plot)
        self.view.setZValue(plot.vb.zValue() - 1)
        self.view.setXLink(plot.vb)
        plot.vb.sigResized.connect(self._fit_geometry)
        chart.labels.watch(self.view)  # the labels kept clear of its curves as they move
        self.axis = PercentAxis("right")
        plot.setAxisItems({"right": self.axis})
        self.axis.linkToView(self.view)
        self.axis.enableAutoSIPrefix(False)
        plot.setLabel("right", AXIS_LABEL)
        self.axis.showLabel(False)  # on screen (export_style says why)
        self.per_step = pg.PlotDataItem(connect="finite")
        self.line = pg.PlotDataItem(connect="finite")
        # Named in the legend, read on the right axis; listed only while the chart draws the wait.
        waiting = "input wait: result once a run finishes (right axis)"
        self.final = KeyedLevel(chart.legend, waiting, listed=False)
        for item in (self.per_step, self.line, self.final):
            self.view.addItem(item)
        self.top: float | None = None  # the shares' axis top after a refresh (percent)
        self._colors: PlotColors | None = None
        self._show(False)

    @property
    def shown(self) -> bool:
        """Whether the chart draws the input wait (a run that loads its data)."""
        return self.view.isVisible()

    def _fit_geometry(self) -> None:
        self.view.setGeometry(self.chart.plot.vb.geometry())

    def _show(self, on: bool) -> None:
        """The view, the right axis and the legend's two entries, or none of them."""
        self.view.setVisible(on)
        self.chart.plot.showAxis("right", on)
        legend = self.chart.legend
        listed = legend.getLabel(self.line) is not None
        if on and not listed:
            legend.addItem(self.per_step, PER_STEP_NAME)
            legend.addItem(self.line, WINDOW_NAME)
        elif not on and listed:
            legend.removeItem(self.per_step)
            legend.removeItem(self.line)
        self.final.listed(on)
        if on:
            self._fit_geometry()

    def set_colors(self, colors: PlotColors) -> None:
        """The process-memory green: none of the throughput's own colours."""
        self._colors = colors
        self.axis.setPen(colors.foreground)
        self.axis.setTextPen(colors.foreground)
        self.full_strength(False)
        self.line.setPen(pg.mkPen(colors.process_memory, width=2.5))
        self.final.setPen(pg.mkPen(colors.process_memory, width=1.5, style=pg.QtCore.Qt.DashLine))

    def export_style(self, on: bool) -> None:
        """In an exported file the axis's label and the per-step shares at full strength. On
        screen the plot is too short for the label (its legend has a third row: 130 px of
        text would be cut); the ticks say "%" and the legend "input wait (right axis)"."""
        self.axis.showLabel(on)
        self.full_strength(on)

    def full_strength(self, on: bool) -> None:
        """The per-step shares lighter on screen, in their own colour in an exported file."""
        c = self._colors
        if c is not None:
            color = c.process_memory if on else faded(c.process_memory, c.background)
            self.per_step.setPen(pg.mkPen(color, width=1))

    def begin(self, shown: bool) -> None:
        """A new run: empty, and shown when the run loads its data (a folder, CIFAR-10)."""
        self.top = None
        self.per_step.setData([], [])
        self.line.setData([], [])
        self.final.clear()
        self._show(shown)
        self.fit_y()

    def refresh(self, series: RunSeries) -> None:
        """Redraw from the series (percent); shown from the first step that waited at all."""
        if not series.has_waits:
            return
        if not self.shown:
            self._show(True)
        share = series.wait_share.values * 100
        self.per_step.setData(series.wait_t.values, share)
        self.line.setData(series.wait_window_t.values, series.wait_window.values * 100)
        every = np.concatenate([share, series.wait_window.values * 100])
        top = float(np.nanmax(every)) if np.isfinite(every).any() else 0.0
        self.top = min(100.0, max(TOP_AT_LEAST, top * HEADROOM))  # every step's share in view
        self.fit_y()

    def end(self, result: dict[str, Any]) -> None:
        """The result's share of the measured time, and what it means."""
        fraction = result.get("input_wait_fraction")
        if fraction is None:
            return
        text = f"input wait: result {fraction:.1%} ({verdict(fraction)}, right axis)"
        self.final.show_at(fraction * 100, text)
        self.fit_y()

    def fit_y(self) -> None:
        """The right axis from 0 to the shares' top (25% at least) and the result's level, with
        room above it."""
        level = float(self.final.value()) * HEADROOM if self.final.isVisible() else 0.0
        self.view.setYRange(0.0, max(self.top or TOP_AT_LEAST, level), padding=0)
