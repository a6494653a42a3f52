"""Labels that keep apart: a chart's level, mark and free labels never print over each other.

A chart holds labels of three kinds: those of horizontal lines (a result, a device's total, a
past run overlaid), which can slide along their line; those of vertical lines (a phase, a
sweep's cheapest batch), which can slide up and down theirs; and free labels (a peak's value,
a hint in an empty plot), which stay where their owner put them. After every change that can
move one (new data, a range, a size, an export's layout) the free ones are taken as they are
and each line's label goes to the first of its places that touches no label placed before it
and stays inside its plot; where none is free, the place that overlaps least.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

import pyqtgraph as pg
from PySide6.QtCore import QObject, QRectF, QTimer

# Places along a horizontal line: (position along it, the label's horizontal anchor); at
# each, above the line, then below it.
ALONG = ((0.03, 0.0), (0.97, 1.0), (0.5, 0.5), (0.28, 0.0), (0.72, 1.0))
# Heights along a vertical line, top first; at each, right of the line, then left of it.
UP = (0.92, 0.8, 0.68, 0.56, 0.44, 0.32, 0.2, 0.08)
HINT_HEIGHTS = (0.5, 0.3, 0.7, 0.15, 0.85)  # a hint's places, from the top of its view
GAP_PX = 2.0  # labels closer than this count as touching
Place = tuple[float, tuple[float, float]]  # position along the line, the label's anchor
P = TypeVar("P")


def _visible(item: pg.GraphicsObject) -> bool:
    return item.isVisible() and item.scene() is not None


def _text(item: pg.TextItem) -> str:
    return item.textItem.toPlainText().strip()


def _in_view(line: pg.InfiniteLine, vb: pg.ViewBox) -> bool:
    (x0, x1), (y0, y1) = vb.viewRange()
    value = float(line.value())
    low, high = (y0, y1) if line.angle % 180 == 0 else (x0, x1)
    return min(low, high) <= value <= max(low, high)


def _settle(
    places: Sequence[P], put: Callable[[P], QRectF], cost: Callable[[QRectF], tuple[bool, float]]
) -> QRectF:
    """Put an item at each of `places` in turn (`put` returns its box there): the first where
    it costs nothing (inside, over nothing) keeps it, else the cheapest. Its box."""
    best: tuple[tuple[bool, float], P] | None = None
    for place in places:
        rect = put(place)
        score = cost(rect)
        if not any(score):
            return rect
        if best is None or score < best[0]:
            best = (score, place)
    assert best is not None
    return put(best[1])


def _box(item: pg.TextItem) -> QRectF:
    """The label's box in the scene now (a TextItem sets its scale when painted: before that,
    after the view's range or size changed, its box is stale)."""
    item.updateTransform()
    return item.sceneBoundingRect()


def _padded(rect: QRectF) -> QRectF:
    return rect.adjusted(-GAP_PX, -GAP_PX, GAP_PX, GAP_PX)


def _overlap(rect: QRectF, others: list[QRectF]) -> float:
    total = 0.0
    for other in others:
        cut = rect.intersected(other)
        total += max(cut.width(), 0.0) * max(cut.height(), 0.0)
    return total


class Labels:
    """The labels of one chart, kept apart (request() after a change; separate() at once).

    It is given what it reads of the chart, not the chart: `owner`, the chart widget that
    owns its timer; `view_boxes`, every view of the chart whose lines have labels; `closed`,
    true once pyqtgraph has cleared the chart's scene. The chart calls watch() for its plots.
    """

    def __init__(
        self,
        owner: QObject,
        view_boxes: Callable[[], list[pg.ViewBox]],
        closed: Callable[[], bool],
    ) -> None:
        self._view_boxes = view_boxes
        self._closed = closed
        self.free: list[pg.TextItem] = []
        self.hints: list[pg.TextItem] = []
        self.points: list[pg.TextItem] = []
        self._timer = QTimer(owner)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.separate)

    def watch(self, plot: pg.PlotItem | pg.ViewBox) -> None:
        """Separate again when this plot's range or size changes."""
        vb = plot.vb if isinstance(plot, pg.PlotItem) else plot
        vb.sigRangeChanged.connect(self.request)
        vb.sigResized.connect(self.request)

    def add_free(self, item: pg.TextItem) -> None:
        """A label that stays where its owner puts it (the others keep off it)."""
        self.free.append(item)

    def add_point(self, item: pg.TextItem) -> None:
        """A point's label (a peak's value): above the point, or below it where that is
        taken; its owner keeps its horizontal anchor."""
        self.points.append(item)

    def add_hint(self, item: pg.TextItem) -> None:
        """A line of text in an empty plot (a child of its view, centred by anchor (0.5,
        0.5)): it goes up or down from the middle to keep off the lines' labels."""
        self.hints.append(item)

    def request(self, *_: object) -> None:
        self._timer.start()

    # what there is --------------------------------------------------------------------------

    def lines(self) -> Iterator[pg.InfiniteLine]:
        """The chart's labelled lines that show."""
        for vb in self._view_boxes():
            vb.prepareForPaint()  # a new range reaches the scene at the next paint: now
            for item in vb.childGroup.childItems():
                label = getattr(item, "label", None)
                if not isinstance(item, pg.InfiniteLine) or label is None:
                    continue
                if _visible(item) and label.isVisible() and _text(label):
                    if _in_view(item, vb):
                        label.setOpacity(1.0)
                        yield item
                    else:  # its line is off the plot: so is its label (not hidden: a hidden
                        label.setOpacity(0.0)  # InfLineLabel ignores new values)

    def boxes(self) -> list[tuple[str, QRectF]]:
        """Every shown label's text and box, in scene coordinates (what a test checks)."""
        lines = list(self.lines())  # first: the views' transforms are brought up to date
        out = [(_text(t), _box(t)) for t in self._shown()]
        out += [(_text(line.label), _box(line.label)) for line in lines]
        return out

    # placing --------------------------------------------------------------------------------

    def separate(self) -> None:
        self._timer.stop()
        if self._closed():  # pyqtgraph has cleared the chart's scene
            return
        lines = list(self.lines())  # first: the views' transforms are brought up to date
        placed = [_padded(_box(t)) for t in self.free if _visible(t) and _text(t)]
        # Levels first (they have fewer places), then the vertical marks, then the hints.
        lines.sort(key=lambda line: (line.angle % 180 != 0, line.value()))
        levels = [line for line in lines if line.angle % 180 == 0]
        for line in levels:
            placed.append(_padded(self._place(line, placed)))
        for point in self.points:
            if _visible(point) and _text(point):
                placed.append(_padded(self._place_point(point, placed)))
        for line in lines[len(levels) :]:
            placed.append(_padded(self._place(line, placed)))
        for hint in self.hints:
            if _visible(hint) and _text(hint):
                placed.append(_padded(self._place_hint(hint, placed)))

    def _shown(self) -> list[pg.TextItem]:
        return [t for t in (*self.free, *self.points, *self.hints) if _visible(t) and _text(t)]

    def _place_point(self, point: pg.TextItem, placed: list[QRectF]) -> QRectF:
        x = point.anchor.x()

        def put(y: float) -> QRectF:
            point.setAnchor((x, y))
            return _box(point)

        # above, clear of the point; below
        return _settle((1.1, -0.1), put, lambda rect: (False, _overlap(rect, placed)))

    def _place_hint(self, hint: pg.TextItem, placed: list[QRectF]) -> QRectF:
        view = hint.parentItem()
        width, height = view.boundingRect().width(), view.boundingRect().height()

        def put(fraction: float) -> QRectF:
            hint.setPos(width / 2, height * fraction)
            return _box(hint)

        return _settle(HINT_HEIGHTS, put, lambda rect: (False, _overlap(rect, placed)))

    def _place(self, line: pg.InfiniteLine, placed: list[QRectF]) -> QRectF:
        label = line.label
        view = label.getViewBox()
        inside = view.sceneBoundingRect() if view is not None else None
        if line.angle % 180 == 0:
            places = [(p, (x, y)) for p, x in ALONG for y in (1.1, -0.1)]  # clear of the line
        else:
            side = label.anchors[0][0]
            places = [(h, (x, 0.5)) for h in UP for x in (side, 1.0 - side)]

        def put(place: Place) -> QRectF:
            self._put(label, place)
            return _box(label)

        def cost(rect: QRectF) -> tuple[bool, float]:
            outside = inside is not None and not inside.contains(rect)
            return outside, _overlap(rect, placed)

        return _settle(places, put, cost)

    @staticmethod
    def _put(label: pg.TextItem, place: Place) -> None:
        """Put the label at (position along its line, its anchor)."""
        position, anchor = place
        anchors = [anchor, anchor]
        if label.orthoPos != position or label.anchors != anchors:
            label.anchors = anchors
            label.setPosition(position)  # updates the label's place and anchor
