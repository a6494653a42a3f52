"""The legend row under a chart's plots (never on the data), and the level lines named in it
instead of labelled on the plot (a result's figure: KeyedLevel)."""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsSceneMouseEvent, QSizePolicy


class LegendRow(pg.LegendItem):
    """A legend in a row of its own under the plot, entries side by side, so that it never
    covers the data (pyqtgraph's sits in a corner of the view). A wide entry (a KeyedLevel's:
    a result's figure) takes a row of its own at the end, its text across every column: in
    one column it widened that column past the chart's edge."""

    def __init__(self, columns: int) -> None:
        super().__init__(colCount=columns, labelTextSize="8pt")
        # Scaled with the chart when exported, as Chart does with its legend.
        self.setFlag(self.GraphicsItemFlag.ItemIgnoresTransformations, False)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def addItem(self, item: pg.GraphicsObject, name: str) -> None:  # noqa: N802 (pyqtgraph's)
        super().addItem(item, name)
        self._place_all()

    def removeItem(self, item: object) -> None:  # noqa: N802 (pyqtgraph's name)
        super().removeItem(item)
        self._place_all()

    def _place_all(self) -> None:
        """Every entry placed again in order, the wide ones last (pyqtgraph's grid keeps the
        hole a removed entry leaves, and puts a new one after it)."""
        for i in range(self.layout.count() - 1, -1, -1):
            self.layout.removeAt(i)
        wide = [(s, label) for s, label in self.items if getattr(s.item, "wide", False)]
        for sample, label in self.items:
            if (sample, label) not in wide:
                self._addItemToLayout(sample, label)
        row = self.layout.rowCount()
        for n, (sample, label) in enumerate(wide):
            self.layout.addItem(sample, row + n, 0, alignment=Qt.AlignmentFlag.AlignVCenter)
            self.layout.addItem(label, row + n, 1, 1, self.columnCount * 2 - 1)
        self.rowCount = row + len(wide)
        self.updateSize()

    def updateSize(self) -> None:  # noqa: N802 (pyqtgraph's name)
        """The entries' size is this item's size hint: the chart's layout places it."""
        self.layout.invalidate()
        self.updateGeometry()

    def mouseDragEvent(self, ev: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        ev.ignore()  # laid out, not dragged about


class KeyedLevel(pg.InfiniteLine):
    """A level line named by an entry in its chart's legend row instead of a label on the plot:
    a result's figure, whose run's data can fill the whole plot around it, where no place
    beside the line is free and a label would print over the data. show_at() draws and names
    it; clear() hides it. `legend` is the chart's (the owner adds the line to the view it reads
    on).

    The entry keeps its row while it waits for a result (`waiting`, no line drawn beside it),
    `lines` lines high whatever the text: a row that came and went with each result laid the
    chart out again, its plot resized and repainted, at a run's start and end (10 ms more of
    the GUI thread each, benchmarks/RESULTS.md, issue 42). listed(False) takes it out (the
    input wait's, on a run without an input pipeline); `listed` False starts it out."""

    def __init__(
        self, legend: pg.LegendItem, waiting: str, lines: int = 1, listed: bool = True
    ) -> None:
        self.key = pg.PlotDataItem()  # stands for the line in the legend: the line's pen
        self.key.wide = True  # a row of its own (LegendRow)
        super().__init__(angle=0, movable=False)
        self.label = None  # as a level line without one (gui/common/chart_labels.py)
        self.legend = legend
        self.waiting, self.lines = waiting, lines
        self.text = ""
        self.hide()
        self.listed(listed)

    def setPen(self, *args: object, **kwargs: object) -> None:  # noqa: N802 (pyqtgraph's name)
        super().setPen(*args, **kwargs)
        self.key.setPen(self.pen)

    def listed(self, on: bool) -> None:
        """The entry in the legend (waiting, or with the figure it names), or not."""
        entry = self._entry()
        if on and entry is None:
            self.legend.addItem(self.key, self._html(self.text or self.waiting))
            self._entry()[0].setVisible(bool(self.text))  # type: ignore[index]
        elif not on and entry is not None:
            self.legend.removeItem(self.key)

    def show_at(self, value: float, text: str) -> None:
        """The line at `value`, named `text` in the legend; a second line after a newline (a
        figure's interval)."""
        self.show()
        self.setValue(value)
        self.text = text
        self._say(text, sample=True)

    def clear(self) -> None:
        self.hide()
        self.text = ""
        self._say(self.waiting, sample=False)

    def _say(self, text: str, sample: bool) -> None:
        entry = self._entry()
        if entry is None:
            return
        shown = self._html(text)
        if entry[1].text != shown:
            entry[1].setText(shown)
        entry[0].setVisible(sample)

    def _entry(self) -> tuple[pg.GraphicsWidget, pg.LabelItem] | None:
        return next(((s, label) for s, label in self.legend.items if s.item is self.key), None)

    def _html(self, text: str) -> str:
        """`text` as the legend's label shows it, padded to `lines` lines."""
        rows = text.split("\n")
        rows += ["\u00a0"] * (self.lines - len(rows))
        return "<br>".join(html.escape(row, quote=False) for row in rows)
