"""What a chart's label keeps off, and what a place costs it (gui/common/chart_labels.py places
the labels by this): the labels placed before it, the chart's labelled lines, the curves its
owner guards, and the edges of its plot. All in scene coordinates (pixels).

A place costs, in this order: being cut by its plot's edge; the area it shares with labels
placed before it; the horizontal lines it crosses (a dashed result or total through a text reads
as a strike-through); and last, the data it covers: the vertical lines and curves it crosses,
or, for a horizontal line's label (which stays by its line first: it only slides along it or
steps beside it), how many of the plot's data points lie under it, so that a result's figure
sits where the per-step points around that result are fewest. A place that costs nothing is
free.
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


class Data:
    """One curve or point set of a plot, read once for a round of placing (its view, its
    points, and whether it is a line through them, x increasing: time)."""

    def __init__(self, item: pg.GraphicsObject) -> None:
        self.vb = item.getViewBox()
        x, y = item_data(item)
        log = item.opts.get("logMode") if isinstance(item, pg.PlotDataItem) else None
        with np.errstate(divide="ignore", invalid="ignore"):  # where it draws them: log10
            self.x = np.log10(x) if log and log[0] else x
            self.y = np.log10(y) if log and log[1] else y
        x = self.x
        self.line = not isinstance(item, pg.ScatterPlotItem) and bool(np.all(np.diff(x) >= 0))

    def _area(self, rect: QRectF) -> QRectF:
        return self.vb.mapSceneToView(rect).boundingRect()  # in the data's own units

    def crosses(self, rect: QRectF) -> bool:
        """Whether the data passes through `rect` (scene coordinates): a line, some value it
        takes across the rect's width lies in its height; points, one lies in it."""
        if self.vb is None or not len(self.x):
            return False
        if not self.line:
            return self.points_in(rect) > 0
        area = self._area(rect)
        left, right = area.left(), area.right()
        first, last = np.searchsorted(self.x, [left, right])
        edges = np.interp([left, right], self.x, self.y, left=np.nan, right=np.nan)
        values = np.concatenate([self.y[first:last], edges])
        values = values[np.isfinite(values)]
        return bool(len(values)) and values.min() <= area.bottom() and values.max() >= area.top()

    def points_in(self, rect: QRectF) -> int:
        """How many of the data's points lie in `rect` (scene coordinates)."""
        if self.vb is None or not len(self.x):
            return 0
        area = self._area(rect)
        x, y = self.x, self.y
        if self.line:  # x sorted: only the points across the rect's width are looked at
            first, last = np.searchsorted(x, [area.left(), area.right()])
            x, y = x[first:last], y[first:last]
        inside = (x >= area.left()) & (x <= area.right())
        inside &= (y >= area.top()) & (y <= area.bottom())
        return int(np.count_nonzero(inside))

    def covered(self, rect: QRectF) -> int:
        """What a horizontal line's label at `rect` costs this data: the points under it, and
        one more where the line between them crosses it."""
        return self.points_in(rect) + int(self.line and self.crosses(rect))


class Room:
    """What the labels of one chart keep off while they are placed, one after another."""

    def __init__(self, lines: list[pg.InfiniteLine], curves: list[Data]) -> None:
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
        a horizontal line's (`level`) is judged by the data points it covers, not by the
        vertical lines (its places all lie by its line)."""
        outside = inside is not None and not inside.contains(rect)
        shared = overlap(rect, self.taken)
        levels = sum(1 for y in self.rows.values() if rect.top() < y < rect.bottom())
        free = not (outside or shared or levels)  # the data only where the rest is free
        if level:
            covered = sum(data.covered(rect) for data in self.curves) if free else 0
            return outside, shared, levels, covered
        crossed = [x for line, x in self.columns.items() if line is not own]
        others = sum(1 for x in crossed if rect.left() < x < rect.right())
        if free:
            others += sum(1 for data in self.curves if data.crosses(rect))
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
