"""Axis ranges that follow a live run in jumps, so that the axes redraw rarely.

An axis whose range changes repaints its ticks and labels, which costs milliseconds a plot on a
software-rendered display, and pyqtgraph's auto-range changes the x range on every redraw of a
growing curve. Here the time axis grows by half again when the data reaches its end, a y axis
grows with headroom when the data leaves it and shrinks only when the data uses less than half
of it, and a plot stops following once the user zooms or pans it (Reset view, in the plot's
right-click menu, brings it back). A selected result's level widens the range to hold it.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg

MIN_SPAN_S = 2.0  # the time axis starts this long
GROWTH = 1.5  # new time span / time reached
HEADROOM = 1.3  # new y top / the data's top when the data leaves the range
SHRINK_BELOW = 0.5  # shrink once the data's top is under this fraction of the range


class FollowRange:
    """Ranges of one plot (from zero up) that follow its data in jumps."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.following = True
        self.x_end = 0.0
        self.y_top = 0.0
        plot.vb.sigRangeChangedManually.connect(self._stop_following)

    def _stop_following(self, *_: object) -> None:
        self.following = False

    def reset(self) -> None:
        self.following = True
        self.x_end = 0.0
        self.y_top = 0.0
        self.plot.enableAutoRange(x=False, y=False)

    def follow_x(self, latest_s: float, final: bool = False) -> None:
        """Keep 0..latest_s in view; at the end of a run, fit it."""
        if not self.following or not math.isfinite(latest_s):
            return
        if final:
            self.x_end = max(latest_s * 1.02, 1e-3)
        elif self.x_end == 0.0 or latest_s > self.x_end:
            self.x_end = max(MIN_SPAN_S, latest_s * GROWTH)
        else:
            return
        self.plot.setXRange(0.0, self.x_end, padding=0)

    def follow_y(self, top: float, final: bool = False) -> None:
        """Keep 0..top in view; at the end of a run, fit it."""
        if not self.following or not math.isfinite(top) or top <= 0:
            return
        if final:
            self.y_top = top * 1.1
        elif top > self.y_top or top < self.y_top * SHRINK_BELOW:
            self.y_top = top * HEADROOM
        else:
            return
        self.plot.setYRange(0.0, self.y_top, padding=0)

    def include_y(self, value: float) -> None:
        """Grow the y range to hold `value` (a selected result's level), following or not."""
        if not math.isfinite(value) or value <= 0 or value * 1.02 <= self.y_top:
            return
        self.y_top = value * HEADROOM
        self.plot.setYRange(0.0, self.y_top, padding=0)


def data_end(plot: pg.PlotItem) -> float:
    """The largest x of the plot's curves and points (0 when none): where its data ends."""
    ends = [0.0]
    for item in plot.listDataItems():
        x, _ = item.getData()
        if x is not None and len(x) and np.isfinite(x).any():
            ends.append(float(np.nanmax(x)))
    return max(ends)
