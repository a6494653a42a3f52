"""How the Compare page's table and charts share a window: the table over the charts in a
splitter that fits the tab (the first chart on the first screen at 1280x860), and the bars
chart showing as many machines as its height has room for.

A page sits in its tab's scroll area (gui/shell/page_tabs.py), which makes it as tall as its
parts prefer once a word-wrapped label (the heading, the notes) is among them: the table's and
the charts' preferred heights pushed the charts below the window's edge. The body prefers its
smallest height instead, so the page fits the window and scrolls only below that; the table
keeps five rows and its notes, the charts take the larger share of the rest. On screen a
chart's tab names it and the heading says what was measured, so its title and caption are drawn
in files only (the caption is its tooltip here): the plot has their room.
"""

from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QSplitter, QWidget

from gui.pages.compare.charts import MAX_BARS, CompareChart

SHARES = (2, 3)  # the table's and the charts' shares of the body's height, beyond their least
FEWEST_BARS = 3  # on a chart squeezed below that many lines, the bars crowd
BAR_GAP_PX = 3  # between two machines' names on the bars' axis


class TablePart(QWidget):
    """The table with its notes and buttons under it. Its least height holds the table's
    least (five rows) and the notes wrapped at its width: Qt's least height of a widget never
    asks its word-wrapped labels, so the splitter squeezed the notes over the table."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().minimumSizeHint()
        layout = self.layout()
        if layout is None or not layout.hasHeightForWidth():
            return hint
        return QSize(hint.width(), max(hint.height(), layout.minimumHeightForWidth(self.width())))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # the notes wrap anew: the splitter asks the least again


class Body(QSplitter):
    """The table over the charts; it prefers its least height (the module's docstring)."""

    def __init__(self, table: QWidget, charts: QWidget) -> None:
        super().__init__(Qt.Orientation.Vertical)
        self.setObjectName("compare_body")
        self.addWidget(table)
        self.addWidget(charts)
        self.setChildrenCollapsible(False)
        self.setSizes(list(SHARES))  # weights: the room beyond each part's least, shared so

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(super().sizeHint().width(), self.minimumSizeHint().height())


def title_in_files(chart: CompareChart) -> None:
    """The chart's title in a file only: on screen its tab names it, and the plot takes the
    room (pyqtgraph's setTitle(None) hides the title and keeps its text)."""
    plot = chart.plot
    plot.setTitle(None)
    chart.export_hooks.append(lambda on: plot.setTitle(plot.titleLabel.text if on else None))


def bars_for(chart: pg.PlotItem) -> int:
    """How many bars a plot's height holds with each machine's name readable beside its bar."""
    line = QFontMetrics(chart.getAxis("left").font()).height() + BAR_GAP_PX
    return max(FEWEST_BARS, min(MAX_BARS, int(chart.vb.height() // line)))


class FittedBars:
    """The bars chart's machine count: what its height holds on screen (redrawn by `draw`
    when a resize changes it), all MAX_BARS in an exported file, which has room for them."""

    def __init__(self, chart: CompareChart, draw: Callable[[], None]) -> None:
        self.chart = chart
        self.count = FEWEST_BARS
        self._exporting = False
        self._redraw = QTimer(chart, singleShot=True, interval=0)  # after the layout settles
        self._redraw.timeout.connect(draw)
        self._draw = draw
        chart.plot.vb.sigResized.connect(self._resized)
        chart.export_hooks.append(self._export)

    def fit(self) -> int:
        """The count to draw now (and remember)."""
        self.count = MAX_BARS if self._exporting else bars_for(self.chart.plot)
        return self.count

    def _resized(self, _vb: pg.ViewBox) -> None:
        if not self._exporting and bars_for(self.chart.plot) != self.count:
            self._redraw.start()

    def _export(self, exporting: bool) -> None:
        self._exporting = exporting
        self._draw()
