"""ChartAxis: the axis of every chart's plot, its grid lines opaque and under the data.

pyqtgraph draws a grid as the axis's ticks stretched across the plot, in the axis's pen made
see-through (alpha 0.15 of it and less), over the data. Translucent lines cost a
software-rendered display (Xvfb, a remote desktop) dearly: a live chart's paint after its
ranges moved took 9.8-13.9 ms (median of 60), against 4.6-4.7 ms with the same lines opaque
(benchmarks/chart_paint.py, RESULTS.md, issue 42). Here each grid line is drawn in the colour
it had over the chart's background, opaque, and the axis goes under the plot's view, so that
a curve is drawn over the grid, never cut by it.

Its tick labels take one form along a level of ticks (`tick_text`): pyqtgraph writes a value
under 0.001 or from 10,000 in %g and the others in fixed point, so one axis read "5e-05" beside
"0.0001" (Compare's USD per epoch of a small model) and a throughput axis "800000" beside
"1e+06".
"""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPen

from gui.common.theme import blend

# Under the plot's view (pyqtgraph's ViewBox sits at -100) and a view laid over it (an overlay
# for a right axis at -101): the grid is drawn first, the data over it.
GRID_Z = -110.0
AXIS_Z = 0.5  # pyqtgraph's place for an axis without a grid
# Tick values from here (or a spacing under its inverse) are written in scientific form; the
# thousands are separated on an axis whose labels reach SEPARATED.
SCIENTIFIC_FROM = 1e6
SEPARATED = 10_000


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


def tick_text(values: list[float], spacing: float) -> list[str]:
    """One level of an axis's tick labels in one form: fixed point with the decimals the
    spacing needs ("0.00005", "0.00010"; "0.25", "0.50"), the thousands separated once a label
    reaches SEPARATED ("20,000"); scientific from SCIENTIFIC_FROM, or for a spacing under its
    inverse, with the mantissa digits the spacing needs ("2.5e-07"). Zero is "0" in either
    form. Without a spacing, each value in %g.

    pyqtgraph asks level by level (the major ticks, then the finer levels it has room to label),
    so a finer level may carry a digit more than the major one ("0.0001", "0.00015"): the same
    form, each label as short as its level allows."""
    if not values:
        return []
    step = abs(spacing)
    if not math.isfinite(step) or step == 0:
        return [f"{v:.6g}" for v in values]
    largest = max(abs(v) for v in values)
    last = _last_digit(step)
    if largest >= SCIENTIFIC_FROM or step < 1 / SCIENTIFIC_FROM:
        digits = max(0, _exponent(largest) - last) if largest else 0
        return ["0" if _zero(v, step) else f"{v:.{digits}e}" for v in values]
    group = "," if largest >= SEPARATED else ""
    return [f"{0.0 if _zero(v, step) else v:{group}.{max(0, -last)}f}" for v in values]


def _exponent(value: float) -> int:
    """The power of ten of `value`'s leading digit (0.00005 -> -5, 20,000 -> 4), robust to the
    float noise of a tick computed as a sum (0.30000000000000004)."""
    return math.floor(math.log10(abs(value)) + 1e-9)


def _last_digit(value: float) -> int:
    """The power of ten of `value`'s last significant digit (0.25 -> -2, 20,000 -> 4), to 15
    digits."""
    power = _exponent(value)
    for _ in range(15):
        quotient = abs(value) / 10.0**power
        if abs(quotient - round(quotient)) <= 1e-6 * max(1.0, quotient):
            break
        power -= 1
    return power


def _zero(value: float, step: float) -> bool:
    """A tick at zero, give or take the float noise of its computation (never "-0.00")."""
    return abs(value) < step * 1e-6
