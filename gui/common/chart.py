"""Chart: one exportable pyqtgraph chart (title, plot with labelled axes, legend, caption row),
the base of every chart in the app, and the two items the live plots add to one."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSceneMouseEvent, QSizePolicy

from gui.common.theme import PlotColors

TIME_LABEL = "time since warm-up began (s)"
CAPTION_MIN_WIDTH = 120.0


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
    """One exportable chart: title, plot with axis labels and units, and a caption row."""

    def __init__(self, name: str, title: str, left_label: str) -> None:
        super().__init__()
        self.name = name
        self.setObjectName(f"{name}_chart")
        self.plot: pg.PlotItem = self.addPlot(row=0, col=0, title=title)
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
        self.legend = self.plot.addLegend(offset=(-8, 8))
        # pyqtgraph's legend ignores transformations (to keep its size while the view zooms);
        # the view never scales a chart here, but an export does: a 1600 px PNG would shrink
        # the legend to a corner. Scaled with the rest, it reads as it does on screen.
        self.legend.setFlag(self.legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
        self.caption = Caption("", size="8pt")
        self.addItem(self.caption, row=1, col=0)
        self.setMinimumHeight(150)

    @property
    def export_item(self) -> pg.GraphicsLayout:
        """What an export draws: title, axes, curves, legend and caption."""
        return self.ci

    def set_caption(self, text: str) -> None:
        self.caption.setText(text, size="8pt")

    def set_colors(self, colors: PlotColors) -> None:
        self.setBackground(colors.background)
        for axis in ("left", "bottom"):
            ax = self.plot.getAxis(axis)
            ax.setPen(colors.foreground)
            ax.setTextPen(colors.foreground)
        self.plot.titleLabel.setText(self.plot.titleLabel.text, color=colors.foreground)
        self.caption.setText(self.caption.text, color=colors.foreground, size="8pt")
        self.legend.setLabelTextColor(colors.foreground)
        for _, label in self.legend.items:  # entries already there keep their old colour
            label.setText(label.text, color=colors.foreground)
        backdrop = pg.mkColor(colors.background)
        backdrop.setAlpha(200)
        self.legend.setBrush(pg.mkBrush(backdrop))


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


class LegendRow(pg.LegendItem):
    """A legend in a row of its own under the plot, entries side by side, so that it never
    covers the data (pyqtgraph's sits in a corner of the view)."""

    def __init__(self, columns: int) -> None:
        super().__init__(colCount=columns, labelTextSize="8pt")
        # Scaled with the chart when exported, as Chart does with its legend.
        self.setFlag(self.GraphicsItemFlag.ItemIgnoresTransformations, False)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def updateSize(self) -> None:  # noqa: N802 (pyqtgraph's name)
        """The entries' size is this item's size hint: the chart's layout places it."""
        self.layout.invalidate()
        self.updateGeometry()

    def mouseDragEvent(self, ev: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        ev.ignore()  # laid out, not dragged about


def legend_below(chart: Chart, columns: int = 2, row: int = 1) -> LegendRow:
    """Move the chart's legend (and its entries) into a row of its own at `row`, under the
    plots, with the caption in the row after it."""
    old = chart.legend
    legend = LegendRow(columns)
    for sample, label in old.items:
        legend.addItem(sample.item, label.text)
    if old.scene() is not None:
        old.scene().removeItem(old)
    chart.legend = chart.plot.legend = legend
    if chart.caption in chart.ci.items:
        chart.ci.removeItem(chart.caption)
    chart.ci.addItem(legend, row=row, col=0)
    chart.ci.layout.setAlignment(legend, Qt.AlignmentFlag.AlignHCenter)
    chart.ci.addItem(chart.caption, row=row + 1, col=0)
    return legend
