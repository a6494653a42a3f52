"""The fifth live chart, shown only for a run with an input pipeline: the share of each step
spent waiting for its batch, in percent (docs/measuring.md, "Input pipelines").

Per step (wait / step time, lighter) and the window so far (its waits over its wall time,
the result's own statistic, so the line ends where the result's level says: the result's
input_wait_fraction). 5% or more is partly input-bound and 20% or more input-bound, as the
result's warnings say; the y axis holds the 20% line's height at least, so that a small share
looks small.

On screen it is a strip of fixed height under the four (they keep their room), its time axis
unlabelled (theirs say it); an export labels it whole.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from gui.common.chart import TIME_LABEL, Chart, add_level, add_line, set_level
from gui.common.theme import PlotColors
from gui.pages.run.plot_style import faded
from gui.pages.run.series import RunSeries

TITLE = "Input wait: share of each step waiting for data"
# The worker's thresholds (engine/worker/measure/input_wait.py; the app imports no worker code).
BOUND = 0.20
PARTLY = 0.05
TOP_AT_LEAST = 25.0  # percent: the axis shows the input-bound threshold with room
RECENT = 20_000  # steps that set the axis (as the throughput plot's)
STRIP_PX = 150  # its height on screen: title, a plot about 60 px tall, ticks and legend


def verdict(fraction: float) -> str:
    """How the result's share reads: input-bound, partly or not."""
    if fraction >= BOUND:
        return "input-bound"
    return "partly input-bound" if fraction >= PARTLY else "not input-bound"


class InputWaitChart(Chart):
    def __init__(self) -> None:
        super().__init__("input_wait", TITLE, "wait (%)")
        self.setFixedHeight(STRIP_PX)
        self.per_step = add_line(self, "per step: wait / step time")
        self.line = add_line(self, "this window: wait / wall time")
        self.final = add_level(self, "result")
        self.top: float | None = None  # the y range's top after the last refresh (percent)
        self._colors: PlotColors | None = None
        self.export_hooks.append(self._time_label)
        self._time_label(False)

    def _time_label(self, on: bool) -> None:
        """The time axis's title: in an export; on screen the four charts above say it."""
        self.plot.setLabel("bottom", TIME_LABEL if on else None)
        self.plot.getAxis("bottom").showLabel(on)

    def set_colors(self, colors: PlotColors) -> None:
        super().set_colors(colors)
        self._colors = colors
        self.full_strength(False)
        self.line.setPen(pg.mkPen(colors.median, width=2.5))
        self.final.setPen(pg.mkPen(colors.limit, width=1.5, style=pg.QtCore.Qt.DashLine))
        self.final.label.setColor(colors.limit)
        backdrop = pg.mkColor(colors.background)
        backdrop.setAlpha(200)
        self.final.label.fill = pg.mkBrush(backdrop)  # readable over the per-step shares

    def full_strength(self, on: bool) -> None:
        """The per-step shares lighter on screen, in their own colour in an exported file."""
        c = self._colors
        if c is not None:
            color = c.measured if on else faded(c.measured, c.background)
            self.per_step.setPen(pg.mkPen(color, width=1))

    def begin(self, caption: str, shown: bool) -> None:
        """A new run: empty, and shown when the run loads its data (a folder, CIFAR-10)."""
        self.top = None
        self.per_step.setData([], [])
        self.line.setData([], [])
        self.final.hide()
        self.set_caption(caption)
        self.setVisible(shown)

    def refresh(self, series: RunSeries) -> None:
        """Redraw from the series (percent); shown from the first step that waited at all."""
        if not series.has_waits:
            return
        self.show()
        share = series.wait_share.values * 100
        self.per_step.setData(series.wait_t.values, share)
        self.line.setData(series.wait_window_t.values, series.wait_window.values * 100)
        recent = np.concatenate([share[-RECENT:], series.wait_window.values[-RECENT:] * 100])
        top = float(np.nanpercentile(recent, 98)) if np.isfinite(recent).any() else 0.0
        self.top = min(100.0, max(TOP_AT_LEAST, top * 1.15))

    def end(self, result: dict[str, Any]) -> None:
        """The result's share of the measured time, and what it means."""
        fraction = result.get("input_wait_fraction")
        if fraction is None:
            return
        set_level(self.final, fraction * 100, f"result {fraction:.1%} ({verdict(fraction)})")
