"""Chart: one exportable pyqtgraph chart (title, plot with labelled axes, legend, caption row),
the base of every chart in the app, and the items the live plots add to one: a line, a
labelled level, a result's level named in the legend (gui/common/chart_legend.py).

Every chart's legend is a row of its own under the plots (never on the data), the caption the
row under it. The mouse wheel scrolls the page a chart sits in; Ctrl+wheel zooms the chart.
Right-click > Reset view (or reset_view()) gives every axis back its range; an owner that
sets ranges itself (a live run's, a bar chart's) listens to `view_reset` and sets them again.
Level and mark labels are kept apart (gui/common/chart_labels.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QFont, QFontMetrics, QTextOption, QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QGraphicsItem,
)

from gui.common import chart_labels
from gui.common.chart_axis import ChartAxis
from gui.common.chart_legend import KeyedLevel, LegendRow
from gui.common.theme import PlotColors

TIME_LABEL = "time since warm-up began (s)"
CAPTION_MIN_WIDTH = 120.0
TITLE_POINTS = (11, 10, 9, 8)  # a title's sizes, largest first (fit_titles)
TITLE_MARGIN_PX = 16  # a title label's width beyond its text's


class Caption(pg.LabelItem):
    """A caption row that wraps to the chart's width. pyqtgraph's LabelItem makes its text's
    width its minimum, so a long caption (model, device, price) would widen the chart, and
    two charts side by side the whole window."""

    def __init__(self, text: str = " ", **args: object) -> None:
        super().__init__(text, **args)
        option = QTextOption(Qt.AlignmentFlag.AlignHCenter)
        option.setWrapMode(QTextOption.WrapMode.WordWrap)
        self.item.document().setDefaultTextOption(option)

    def updateMin(self) -> None:  # noqa: N802 (pyqtgraph's name)
        width = max(self.rect().width(), CAPTION_MIN_WIDTH)
        if self.item.textWidth() != width:
            self.item.setTextWidth(width)
            self.item.setPos(0, 0)  # the text spans the row now and centres itself
        height = self.itemRect().height()
        self.setMinimumWidth(CAPTION_MIN_WIDTH)
        self.setMinimumHeight(height)
        self._sizeHint = {
            Qt.SizeHint.MinimumSize: (CAPTION_MIN_WIDTH, height),
            Qt.SizeHint.PreferredSize: (CAPTION_MIN_WIDTH, height),
            Qt.SizeHint.MaximumSize: (-1, -1),
            Qt.SizeHint.MinimumDescent: (0, 0),
        }
        self.updateGeometry()


class Chart(pg.GraphicsLayoutWidget):
    """One exportable chart: title, plot with axis labels and units, the legend in a row under
    the plot, and a caption row."""

    view_reset = Signal()  # after Reset view: owners that set ranges set them again

    def __init__(self, name: str, title: str, left_label: str, legend_columns: int = 2) -> None:
        super().__init__()
        self.name = name
        self.setObjectName(f"{name}_chart")
        self.plot: pg.PlotItem = self.add_plot(row=0, col=0, title=title)
        self.plot.setLabel("left", left_label)
        self.plot.setLabel("bottom", TIME_LABEL)
        for axis in ("left", "bottom"):
            item = self.plot.getAxis(axis)
            item.enableAutoSIPrefix(False)  # "(x0.001)" or "ks" help nobody reading dollars
            # Every redraw of a curve repaints the whole plot, axes included; cached, an axis
            # is drawn again only when its range or style changes (milliseconds saved a frame).
            item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setDownsampling(auto=True, mode="peak")
        self.plot.setClipToView(True)
        self.legend = LegendRow(legend_columns)
        self.plot.legend = self.legend  # named items added to the plot get an entry here
        self.caption = Caption("", size="8pt")
        self.caption_on_screen = True
        self._caption_place = (2, 1)  # row, colspan
        # Called with True before an export and False after: an owner's lines drawn lighter
        # on screen are drawn at full strength in a file.
        self.export_hooks: list[Callable[[bool], None]] = []
        self.place_legend(row=1)
        self.setMinimumHeight(150)
        self.labels = chart_labels.Labels(self, self.view_boxes, self.is_closed)
        self.adopt(self.plot)

    def add_plot(
        self, row: int, col: int, title: str | None = None, axes: dict[str, ChartAxis] | None = None
    ) -> pg.PlotItem:
        """A plot in the chart's layout, each axis a ChartAxis (an opaque grid under the data)
        unless `axes` names its own; the right and top ones hidden until an owner shows them
        (a cost axis: their grid is on with the others)."""
        given = axes or {}
        sides = ("left", "bottom", "right", "top")
        plot = self.addPlot(
            row=row, col=col, title=title, axisItems={s: ChartAxis(s) for s in sides} | given
        )
        for side in ("right", "top"):
            if side not in given:
                plot.hideAxis(side)
        return plot

    @property
    def export_item(self) -> pg.GraphicsLayout:
        """What an export draws: title, axes, curves, legend and caption."""
        return self.ci

    def place_legend(self, row: int, colspan: int = 1, columns: int | None = None) -> None:
        """Put the legend in row `row` (under the plots) and the caption in the row after it,
        both `colspan` columns wide."""
        for item in (self.legend, self.caption):
            if item in self.ci.items:
                self.ci.removeItem(item)
        if columns is not None:
            self.legend.setColumnCount(columns)
        self.ci.addItem(self.legend, row=row, col=0, colspan=colspan)
        self.ci.layout.setAlignment(self.legend, Qt.AlignmentFlag.AlignHCenter)
        self._caption_place = (row + 1, colspan)
        self._show_caption(self.caption_on_screen)

    def _show_caption(self, shown: bool) -> None:
        if shown and self.caption not in self.ci.items:
            row, colspan = self._caption_place
            self.ci.addItem(self.caption, row=row, col=0, colspan=colspan)
        elif not shown and self.caption in self.ci.items:
            self.ci.removeItem(self.caption)
        self.caption.setVisible(shown)

    def set_caption_on_screen(self, shown: bool) -> None:
        """Show the caption under the chart, or only in exports (where several charts on one
        page say the same thing, once is enough on screen)."""
        self.caption_on_screen = shown
        self._show_caption(shown)

    @contextmanager
    def exporting(self) -> Iterator[None]:
        """The chart as a file shows it: caption shown, the owners' export styles on."""
        self._show_caption(True)
        for hook in self.export_hooks:
            hook(True)
        try:
            yield
        finally:
            for hook in self.export_hooks:
                hook(False)
            self._show_caption(self.caption_on_screen)
            self.labels.request()

    def set_caption(self, text: str) -> None:
        self.caption.setText(text, size="8pt")

    def set_colors(self, colors: PlotColors) -> None:
        self.setBackground(colors.background)
        for plot in (item for item in self.ci.items if isinstance(item, pg.PlotItem)):
            for side in ("left", "bottom", "right", "top"):
                axis = plot.getAxis(side)
                if isinstance(axis, ChartAxis):
                    axis.set_backdrop(colors.background)
        for axis in ("left", "bottom"):
            ax = self.plot.getAxis(axis)
            ax.setPen(colors.foreground)
            ax.setTextPen(colors.foreground)
        # A label set again re-lays the chart out (11-19 ms of the GUI thread at each run's
        # start): only one whose colour changes is set.
        title = self.plot.titleLabel
        if not _same_color(title.opts.get("color"), colors.foreground):
            title.setText(title.text, color=colors.foreground)
            self.fit_titles()
        if not _same_color(self.caption.opts.get("color"), colors.foreground):
            self.caption.setText(self.caption.text, color=colors.foreground, size="8pt")
        for _, label in self.legend.items:  # entries already there keep their old colour
            if not _same_color(label.opts.get("color"), colors.foreground):
                label.setText(label.text, color=colors.foreground)
        self.legend.setLabelTextColor(colors.foreground)  # for entries added later

    # the view ------------------------------------------------------------------------------

    def adopt(self, plot: pg.PlotItem) -> None:
        """A plot of the chart (its first, or one an owner adds): Reset view first in its
        right-click menu, its labels kept apart, its title fitted to its width."""
        self.labels.watch(plot)
        plot.geometryChanged.connect(self.fit_titles)
        menu = plot.vb.menu
        action = QAction("Reset view", menu)
        action.setToolTip("Give every axis of this chart back its range")
        action.triggered.connect(self.reset_view)
        menu.insertAction(menu.actions()[0] if menu.actions() else None, action)
        menu.insertSeparator(menu.actions()[1])

    def is_closed(self) -> bool:
        """Whether pyqtgraph has closed the chart (and cleared its scene)."""
        return bool(getattr(self, "closed", False))

    def view_boxes(self) -> list[pg.ViewBox]:
        """Every view of the chart: each plot's, and views laid over one (a right axis's)."""
        boxes = [item for item in self.ci.scene().items() if isinstance(item, pg.ViewBox)]
        return [vb for vb in boxes if vb.getViewWidget() is self] or [self.plot.vb]

    def reset_view(self) -> None:
        """Every axis back to its data (then the owner's own ranges, through view_reset)."""
        for vb in self.view_boxes():
            vb.enableAutoRange(x=True, y=True)
            vb.autoRange()
        self.view_reset.emit()
        self.labels.request()

    def fit_titles(self) -> None:
        """Each plot's title in the largest size (11 to 8 pt) that fits its width: a title cut
        short ("Cost to accuracy per batch s") says less than a smaller one."""
        if "ci" not in vars(self) or self.is_closed():
            return  # a resize while pyqtgraph builds the widget, or after it closed it
        # A title's text is its plot's least width: a long one makes the layout wider than
        # the view, which cuts it. The plot's room is its width less that overflow.
        overflow = max(self.ci.geometry().width() - self.viewport().width(), 0.0)
        for plot in (item for item in self.ci.items if isinstance(item, pg.PlotItem)):
            label = plot.titleLabel
            room = label.width() - overflow - TITLE_MARGIN_PX
            if not label.isVisible() or not label.text or room <= 0:
                continue
            text = re.sub(r"<[^>]+>", "", label.text)
            font = QFont(label.item.font())
            for points in TITLE_POINTS:
                font.setPointSizeF(points)
                if QFontMetrics(font).horizontalAdvance(text) <= room:
                    break
            if label.opts.get("size") != f"{points}pt":
                label.setText(label.text, size=f"{points}pt")

    def wheelEvent(self, ev: QWheelEvent) -> None:  # noqa: N802 (Qt's name)
        """Ctrl+wheel zooms the chart; the wheel alone scrolls the page it sits in."""
        if ev.modifiers() & Qt.KeyboardModifier.ControlModifier:
            super().wheelEvent(ev)
            ev.accept()
            return
        area = self.parentWidget()
        while area is not None and not isinstance(area, QAbstractScrollArea):
            area = area.parentWidget()
        if area is None:
            ev.ignore()
            return
        # Handed to the page's scroll area at once (an ignored event goes up to it only when
        # the window system sent it; this way it scrolls the same from any sender).
        QApplication.sendEvent(area.viewport(), ev.clone())
        ev.accept()


def add_line(chart: Chart, name: str | None = None) -> pg.PlotDataItem:
    item = pg.PlotDataItem(name=name, connect="finite")
    chart.plot.addItem(item)
    return item


def add_level(chart: Chart, label: str) -> pg.InfiniteLine:
    # The label starts near the left edge (anchored by its left side: a centred one ran off
    # the plot on a narrow chart), below the line or above it near the top of the view.
    options = {"position": 0.03, "anchors": [(0, 0), (0, 1)]}
    line = pg.InfiniteLine(angle=0, movable=False, label=label, labelOpts=options)
    line.hide()
    chart.plot.addItem(line, ignoreBounds=True)
    return line


def set_level(line: pg.InfiniteLine, value: float, text: str) -> None:
    """Show a level line at `value`, labelled `text`. Shown first: a hidden line's label
    ignores new values and formats (pyqtgraph's InfLineLabel skips them while hidden), so a
    line set while hidden would show only its first label."""
    line.show()
    line.setValue(value)
    line.label.setFormat(text)


def add_keyed_level(chart: Chart, waiting: str, lines: int = 1) -> KeyedLevel:
    """A result's level on the chart's plot, named in its legend (KeyedLevel)."""
    line = KeyedLevel(chart.legend, waiting, lines)
    chart.plot.addItem(line, ignoreBounds=True)
    return line


def legend_below(chart: Chart, columns: int = 2, row: int = 1) -> LegendRow:
    """The chart's legend in row `row` under its plots, `columns` entries a line, the caption
    in the row after it."""
    chart.place_legend(row, columns=columns)
    return chart.legend


def _same_color(given: object, wanted: str) -> bool:
    """Whether a label's colour (as pyqtgraph keeps it: the text given, or a QColor) is
    `wanted`."""
    return given is not None and pg.mkColor(given) == pg.mkColor(wanted)
