"""What a chart's label keeps off, and what a place costs it (gui/common/chart_labels.py places
the labels by this): the labels placed before it, the chart's labelled lines, the curves its
owner guards, and the edges of its plot. All in scene coordinates (pixels).

A place costs, in this order: being cut by its plot's edge; the area it shares with labels
placed before it; the horizontal lines it crosses (a dashed result or total through a text reads
as a strike-through); and last, but for a horizontal line's label (which stays by its line
rather), the vertical lines and guarded curves it crosses. A place that costs nothing is free.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF

from gui.common.plot_ranges import item_data

GAP_PX = 2.0  # labels closer than this count as touching
Cost = tuple[bool, float, int, int]  # cut by the edge, overlap (px²), levels crossed, others


def padded(rect: QRectF) -> QRectF:
    return rect.adjusted(-GAP_PX, -GAP_PX, GAP_PX, GAP_PX)


def overlap(rect: QRectF, others: list[QRectF]) -> float:
    """The area `rect` shares with `others` (px²)."""
    total = 0.0
    for other in others:
        cut = rect.intersected(other)
        total += max(cut.width(), 0.0) * max(cut.height(), 0.0)
    return total


def crosses_curve(rect: QRectF, curve: pg.GraphicsObject) -> bool:
    """Whether a curve (a line through its points, x increasing: time) passes through `rect`
    (scene coordinates): some value it takes across the rect's width lies in its height."""
    vb = curve.getViewBox()
    x, y = item_data(curve)
    if vb is None or not curve.isVisible() or not len(x):
        return False
    area = vb.mapSceneToView(rect).boundingRect()  # in the curve's own units
    left, right = area.left(), area.right()
    first, last = np.searchsorted(x, [left, right])
    edges = np.interp([left, right], x, y, left=np.nan, right=np.nan)
    values = np.concatenate([y[first:last], edges])
    values = values[np.isfinite(values)]
    return bool(len(values)) and values.min() <= area.bottom() and values.max() >= area.top()


class Room:
    """What the labels of one chart keep off while they are placed, one after another."""

    def __init__(self, lines: list[pg.InfiniteLine], curves: list[pg.GraphicsObject]) -> None:
        self.taken: list[QRectF] = []  # the labels placed so far, padded
        self.rows: dict[pg.InfiniteLine, float] = {}  # horizontal lines: their scene y
        self.columns: dict[pg.InfiniteLine, float] = {}  # vertical lines: their scene x
        for line in lines:
            at = line.getViewBox().mapViewToScene(QPointF(line.value(), line.value()))
            if line.angle % 180 == 0:
                self.rows[line] = at.y()
            else:
                self.columns[line] = at.x()
        self.curves = curves

    def take(self, rect: QRectF) -> None:
        self.taken.append(padded(rect))

    def cost(
        self, rect: QRectF, inside: QRectF | None, own: object = None, level: bool = False
    ) -> Cost:
        """What `rect` costs a label inside the plot `inside`: the label of line `own`, if any;
        a horizontal line's (`level`) stays by its line before it keeps off vertical lines and
        curves, and is judged without them."""
        outside = inside is not None and not inside.contains(rect)
        shared = overlap(rect, self.taken)
        levels = sum(1 for y in self.rows.values() if rect.top() < y < rect.bottom())
        others = 0
        if not level:
            others = sum(
                1
                for line, x in self.columns.items()
                if line is not own and rect.left() < x < rect.right()
            )
            if not (outside or shared or levels):  # the curves only where the rest is free
                others += sum(1 for curve in self.curves if crosses_curve(rect, curve))
        return outside, shared, levels, others

    def tops_near(self, line_y: float, height: float) -> list[float]:
        """Where a label `height` px high may put its top to stay by a horizontal line at
        `line_y`: beside the line (above, then below), else just clear of a label or a line
        already there, nearest the line first."""
        clear = 0.1 * height  # a label's gap from a line, as its anchors 1.1 and -0.1 leave
        tops = [line_y - height - clear, line_y + clear]
        for box in self.taken:
            tops += [box.top() - height, box.bottom()]
        for y in self.rows.values():
            tops += [y - height - clear, y + clear]
        distance = {top: abs(top + height / 2 - line_y) for top in tops}
        return sorted(set(tops), key=lambda top: (round(distance[top], 3), top > line_y))
