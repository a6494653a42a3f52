"""Labels that keep apart: one rule places every label of a chart, so none prints over another,
over a line, or off its plot.

A chart holds labels of four kinds: those of horizontal lines (a result, a device's total, a
past run overlaid), which slide along their line and stay beside it, above or below, or as near
it as labels and lines already there allow; those of vertical lines (a phase, a sweep's cheapest
batch), which slide up and down theirs, right or left of it; a point's label (a peak's value),
above or below its point or raised clear of the curves around it; and hints in an empty plot, up
or down from its middle. Free labels stay where their owner put them. After every change that
can move one (new data, a range, a size, an export's layout) the free ones are taken as they
are, then the horizontal lines' labels from the top line down, the points', the vertical lines'
and the hints', each at the first of its places that is free, else at the one that costs least
(gui/common/label_room.py: the plot's edge, other labels, lines, the data under it); a
horizontal line's label, beside its line where the least data lies under it (_place_level).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

import pyqtgraph as pg
from PySide6.QtCore import QObject, QRectF, QTimer

from gui.common.data_grid import DataGrid
from gui.common.label_room import Cost, Room

# Places along a horizontal line: (position along it, the label's horizontal anchor).
ALONG = (
    (0.03, 0.0),
    (0.97, 1.0),
    (0.5, 0.5),
    (0.28, 0.0),
    (0.72, 1.0),
    (0.15, 0.0),
    (0.85, 1.0),
)
# Heights along a vertical line, top first; at each, right of the line, then left of it.
UP = (0.92, 0.8, 0.68, 0.56, 0.44, 0.32, 0.2, 0.08)
HINT_HEIGHTS = (0.5, 0.3, 0.7, 0.15, 0.85)  # a hint's places, from the top of its view
# A point's label's vertical anchors: above the point, below it, then a row further off at a
# time, above first (clear of curves that run just above the point), in label heights.
POINT_ANCHORS = (1.1, -0.1, 2.25, -1.25, 3.4, -2.4, 4.55, -3.55)
# A level's label stays where it is while the data under it is at most this times the least.
STEADY = 1.25
MARGIN_PX = 1.0  # around a label's text (Qt's 4 px made a label 22 px high, a fifth of a plot)
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


def _choose(
    places: Sequence[P], rect_at: Callable[[P], QRectF], cost: Callable[[QRectF], Cost]
) -> P:
    """The first of `places` where the item's box (`rect_at`) costs nothing, else the cheapest."""
    best: tuple[Cost, P] | None = None
    for place in places:
        score = cost(rect_at(place))
        if not any(score):
            return place
        if best is None or score < best[0]:
            best = (score, place)
    assert best is not None
    return best[1]


def _steady(clear: list[tuple[float, Place]], now: tuple[float, tuple[float, float]]) -> Place:
    """The clear place with the least data under it; the label's place now while that has
    at most STEADY more (a live plot's new points would otherwise move it about)."""
    least, best = min(clear, key=lambda c: c[0])
    (p_now, (x_now, y_now)) = now
    for covered, (p, (x, y)) in clear:
        here = p == p_now and x == x_now and abs(y - y_now) < 0.05  # the line moved a little
        if here and covered <= least * STEADY + 1.0:
            return (p, (x, y))
    return best


def _box(item: pg.TextItem) -> QRectF:
    """The label's box in the scene now (a TextItem sets its scale when painted: before that,
    after the view's range or size changed, its box is stale)."""
    item.updateTransform()
    return item.sceneBoundingRect()


def _tighten(item: pg.TextItem) -> None:
    """A label's text with MARGIN_PX around it (its backdrop no wider than that)."""
    document = item.textItem.document()
    if document.documentMargin() != MARGIN_PX:
        document.setDocumentMargin(MARGIN_PX)
        item.updateTextPos()


def _inside(item: pg.GraphicsObject) -> QRectF | None:
    view = item.getViewBox()
    return view.sceneBoundingRect() if view is not None else None


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
        """A point's label (a peak's value): above the point, below it, or raised above it
        (POINT_ANCHORS); its owner keeps its horizontal anchor."""
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
        for item in (*self._shown(), *(line.label for line in lines)):
            _tighten(item)
        room = Room(lines, [DataGrid(item) for item in self._data()])
        for item in self.free:
            if _visible(item) and _text(item):
                room.take(_box(item))
        # The horizontal lines' labels first (from the top line down: each has room above),
        # then the points', the vertical lines' (they have more places), the hints'.
        levels = sorted(room.rows, key=room.rows.__getitem__)
        for line in levels:
            room.take(self._place_level(line, room))
        for point in self.points:
            if _visible(point) and _text(point):
                room.take(self._place_point(point, room))
        for line in sorted(room.columns, key=room.columns.__getitem__):
            room.take(self._place_mark(line, room))
        for hint in self.hints:
            if _visible(hint) and _text(hint):
                room.take(self._place_hint(hint, room))

    def _data(self) -> list[pg.GraphicsObject]:
        """The curves and point sets the labels keep off: every one the chart's views show."""
        return [
            item
            for vb in self._view_boxes()
            for item in vb.addedItems
            if hasattr(item, "implements") and item.implements("plotData") and _visible(item)
        ]

    def _shown(self) -> list[pg.TextItem]:
        return [t for t in (*self.free, *self.points, *self.hints) if _visible(t) and _text(t)]

    @staticmethod
    def _settle(
        places: Sequence[P], put: Callable[[P], QRectF], cost: Callable[[QRectF], Cost]
    ) -> QRectF:
        """Put the item at the place _choose picks (`put` moves it there, returns its box)."""
        return put(_choose(places, put, cost))

    def _place_point(self, point: pg.TextItem, room: Room) -> QRectF:
        x = point.anchor.x()  # the owner's: the label whole inside the plot

        def put(y: float) -> QRectF:
            point.setAnchor((x, y))
            return _box(point)

        inside = _inside(point)
        return self._settle(POINT_ANCHORS, put, lambda rect: room.cost(rect, inside))

    def _place_hint(self, hint: pg.TextItem, room: Room) -> QRectF:
        view = hint.parentItem()
        width, height = view.boundingRect().width(), view.boundingRect().height()

        def put(fraction: float) -> QRectF:
            hint.setPos(width / 2, height * fraction)
            return _box(hint)

        inside = _inside(hint)
        return self._settle(HINT_HEIGHTS, put, lambda rect: room.cost(rect, inside))

    def _place_mark(self, line: pg.InfiniteLine, room: Room) -> QRectF:
        label = line.label
        side = label.anchors[0][0]
        places = [(h, (x, 0.5)) for h in UP for x in (side, 1.0 - side)]

        def put(place: Place) -> QRectF:
            self._put(label, place)
            return _box(label)

        inside = _inside(label)
        return self._settle(places, put, lambda rect: room.cost(rect, inside, own=line))

    def _place_level(self, line: pg.InfiniteLine, room: Room) -> QRectF:
        """A horizontal line's label: its places are worked out from its size (the label is
        moved once), at each height by its line (Room.tops_near), nearest first, every
        position along it. At the nearest heights with a place clear of the edge, the labels
        and the lines (above and below the line are as near; below, only clear of the room
        above the lines lower down), the clear place with the least data under it (the first
        of ALONG's, above before below, among equals; its place now, while not much worse:
        _steady); with none anywhere, the cheapest place."""
        label = line.label
        size = _box(label).size()
        width, height = size.width(), size.height()
        inside = _inside(label)
        y = room.rows[line]
        if inside is None or height <= 0:
            return _box(label)

        def rect_at(place: Place) -> QRectF:
            p, (x, anchor_y) = place
            left = inside.left() + p * inside.width() - x * width
            return QRectF(left, y - anchor_y * height, width, height)

        # Heights as near as each other (above the line and below it) are weighed together.
        tops = room.tops_near(y, height)
        nearness = [round(abs(top + height / 2 - y), 1) for top in tops]
        # Below its line, a label keeps out of the room above the lines lower down (from
        # a label's height above each to the line): their labels come later and go there first.
        later = [(row - 1.1 * height, row) for row in room.rows.values() if row > y + 1.0]
        now = (label.orthoPos, (float(label.anchors[0][0]), float(label.anchors[0][1])))
        cheapest: tuple[Cost, Place] | None = None
        clear: list[tuple[float, Place]] = []
        for i, top in enumerate(tops):
            keeps_room = top < y or all(top + height <= lo or top >= hi for lo, hi in later)
            for p, x in ALONG:
                place = (p, (x, (y - top) / height))
                score = room.cost(rect_at(place), inside, level=True)
                if keeps_room and not any(score[:3]):
                    clear.append((score[3], place))
                elif cheapest is None or score < cheapest[0]:
                    cheapest = (score, place)
            if clear and (i + 1 == len(tops) or nearness[i + 1] != nearness[i]):
                self._put(label, _steady(clear, now))
                return _box(label)
        if cheapest is not None:
            self._put(label, cheapest[1])
        return _box(label)

    @staticmethod
    def _put(label: pg.TextItem, place: Place) -> None:
        """Put the label at (position along its line, its anchor)."""
        position, anchor = place
        anchors = [anchor, anchor]
        if label.orthoPos != position or label.anchors != anchors:
            label.anchors = anchors
            label.setPosition(position)  # updates the label's place and anchor
