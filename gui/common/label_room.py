"""What a chart's label keeps off, and what a place costs it (gui/common/chart_labels.py places
the labels by this): the labels placed before it, the chart's labelled lines, the data its
chart plots, and the edges of its plot. All in scene coordinates (pixels).

A place costs, in this order: being cut by its plot's edge; the area it shares with labels
placed before it; the horizontal lines it crosses (a dashed result or total through a text reads
as a strike-through); and last, the data it covers: the vertical lines and curves it crosses,
or, for a horizontal line's label (which stays by its line first: it only slides along it or
steps beside it), how much of the plot's data lies under it (gui/common/data_grid.py: by its
ink), so that a result's figure sits where the per-step rates around it are fewest. A place that
costs nothing is free.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF

from gui.common.data_grid import DataGrid

GAP_PX = 2.0  # labels closer than this count as touching
Cost = tuple[bool, float, int, float]  # cut by the edge, overlap (px²), levels crossed, others


def padded(rect: QRectF) -> QRectF:
    return rect.adjusted(-GAP_PX, -GAP_PX, GAP_PX, GAP_PX)


def overlap(rect: QRectF, others: list[QRectF]) -> float:
    """The area `rect` shares with `others` (px²)."""
    total = 0.0
    for other in others:
        cut = rect.intersected(other)
        total += max(cut.width(), 0.0) * max(cut.height(), 0.0)
    return total


class Room:
    """What the labels of one chart keep off while they are placed, one after another."""

    def __init__(self, lines: list[pg.InfiniteLine], curves: list[DataGrid]) -> None:
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
        a horizontal line's (`level`) is judged by how much data it covers, not by the
        vertical lines (its places all lie by its line)."""
        outside = inside is not None and not inside.contains(rect)
        shared = overlap(rect, self.taken)
        levels = sum(1 for y in self.rows.values() if rect.top() < y < rect.bottom())
        free = not (outside or shared or levels)  # the data only where the rest is free
        if level:
            covered = sum(data.count(rect) for data in self.curves) if free else 0.0
            return outside, shared, levels, covered
        crossed = [x for line, x in self.columns.items() if line is not own]
        others = sum(1 for x in crossed if rect.left() < x < rect.right())
        if free:
            others += sum(1 for data in self.curves if data.count(rect))
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
