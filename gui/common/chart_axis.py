"""ChartAxis: the axis of every chart's plot, its grid lines opaque and under the data.

pyqtgraph draws a grid as the axis's ticks stretched across the plot, in the axis's pen made
see-through (alpha 0.15 of it and less), over the data. Translucent lines cost a
software-rendered display (Xvfb, a remote desktop) dearly: a live chart's paint after its
ranges moved took 9.8-13.9 ms (median of 60), against 4.6-4.7 ms with the same lines opaque
(benchmarks/chart_paint.py, RESULTS.md, issue 42). Here each grid line is drawn in the colour
it had over the chart's background, opaque, and the axis goes under the plot's view, so that
a curve is drawn over the grid, never cut by it.

Its tick labels are engine/core/ticks.py's, as the HTML report's charts are: one form along a
level of ticks (pyqtgraph's own read "5e-05" beside "0.0001").
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPen

from engine.core.ticks import tick_text
from gui.common.theme import blend

# Under the plot's view (pyqtgraph's ViewBox sits at -100) and a view laid over it (an overlay
# for a right axis at -101): the grid is drawn first, the data over it.
GRID_Z = -110.0
AXIS_Z = 0.5  # pyqtgraph's place for an axis without a grid


class ChartAxis(pg.AxisItem):
    """An axis whose grid lines are opaque and drawn under the data, its tick labels in one
    form along a level (tick_text)."""

    def __init__(self, orientation: str, **kwargs: Any) -> None:
        super().__init__(orientation, **kwargs)
        self._backdrop = QColor("#ffffff")

    def set_backdrop(self, color: str) -> None:
        """The chart's background: the colour a grid line is mixed with."""
        if QColor(color) != self._backdrop:
            self._backdrop = QColor(color)
            self.picture = None  # drawn again with the new mix
            self.update()

    def setGrid(self, grid: int | float | bool) -> None:  # noqa: N802 (pyqtgraph's name)
        super().setGrid(grid)
        self.setZValue(AXIS_Z if grid is False else GRID_Z)

    def tickStrings(  # noqa: N802 (pyqtgraph's name)
        self, values: list[float], scale: float, spacing: float
    ) -> list[str]:
        if self.logMode:
            return list(super().tickStrings(values, scale, spacing))
        return tick_text([v * scale for v in values], spacing * scale)

    def generateDrawSpecs(self, p: Any) -> Any:  # noqa: N802 (pyqtgraph's name)
        specs = super().generateDrawSpecs(p)
        if specs is None or self.grid is False:
            return specs
        axis_spec, tick_specs, text_specs = specs
        ticks = [(opaque(pen, self._backdrop), p1, p2) for pen, p1, p2 in tick_specs]
        return axis_spec, ticks, text_specs


def opaque(pen: QPen, backdrop: QColor) -> QPen:
    """`pen` in the colour its see-through colour shows over `backdrop`, opaque."""
    color = pen.color()
    if color.alphaF() >= 1.0:
        return pen
    out = QPen(pen)
    out.setColor(blend(color, backdrop, color.alphaF()))
    return out
