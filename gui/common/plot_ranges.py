"""Axis ranges that follow a live run in jumps, so that the axes redraw rarely.

An axis whose range changes repaints its ticks and labels, which costs milliseconds a plot on a
software-rendered display, and pyqtgraph's auto-range changes the x range on every redraw of a
growing curve. Here the time axis grows by half again when the data reaches its end, a y axis
grows with headroom when the data leaves it and shrinks only when the data uses less than half
of it, and a plot stops following once the user zooms or pans it (Reset view, in the plot's
right-click menu, brings it back). A selected result's level widens the range to hold it.
What a range holds is everything drawn (data_top reads every curve's data whole, not the part
drawn in the view), and an axis with nothing to hold yet starts at 0 (start_empty).
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

    def follow_x(self, latest_s: float, final: bool = False) -> bool:
        """Keep 0..latest_s in view; at the end of a run, fit it. True: the range moved."""
        if not self.following or not math.isfinite(latest_s):
            return False
        if final:
            self.x_end = max(latest_s * 1.02, 1e-3)
        elif self.x_end == 0.0 or latest_s > self.x_end:
            self.x_end = max(MIN_SPAN_S, latest_s * GROWTH)
        else:
            return False
        self.plot.setXRange(0.0, self.x_end, padding=0)
        return True

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

    def start_empty(self) -> None:
        """An axis with nothing to hold yet spans 0 to 1 (pyqtgraph's own range of an empty
        view is centred on 0: -0.5 GiB of memory)."""
        if self.y_top == 0.0:
            self.plot.setYRange(0.0, 1.0, padding=0)

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


def item_data(item: pg.GraphicsObject) -> tuple[np.ndarray, np.ndarray]:
    """All of a curve's, band's or point set's data (x, y), whatever part of it is drawn (a
    plot that clips to its view draws only what is in it)."""
    if isinstance(item, pg.ScatterPlotItem):
        return item.data["x"], item.data["y"]
    x, y = getattr(item, "xData", None), getattr(item, "yData", None)
    if x is None or y is None:
        return np.empty(0), np.empty(0)
    return np.asarray(x, dtype=float), np.asarray(y, dtype=float)


def data_top(view: pg.PlotItem | pg.ViewBox) -> float:
    """The largest finite y of every curve, band and point set shown in a plot or a view (0
    when none): what its y range must hold."""
    vb = view.vb if isinstance(view, pg.PlotItem) else view
    tops = [0.0]
    for item in vb.addedItems:
        drawn = hasattr(item, "implements") and item.implements("plotData")
        if not drawn or not item.isVisible():
            continue
        _, y = item_data(item)
        if len(y) and np.isfinite(y).any():
            tops.append(float(np.nanmax(np.where(np.isfinite(y), y, np.nan))))
    return max(tops)
