"""Charts before pyqtgraph: the window paints first, and pyqtgraph (about a third of a second to
import) loads after.

PlotFrames stands where a grid of charts will be until they are built: each chart's frame
(background, title, axes box) in the same grid, at the same size, so the swap for the real
charts changes no layout (the ticks, grid and legends fill in). `painted` fires once, after its
first paint: the owner builds the charts then. import_pyqtgraph() is the app's first import of
pyqtgraph (a normal import, which PyInstaller's analysis follows).
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QGridLayout, QWidget

from gui.common.theme import PlotColors

# pyqtgraph's RawImageWidget, which the app never uses, imports CUDA's Python bindings at
# pyqtgraph's import where they are installed (torch brings them): 90 ms, measured with
# -X importtime. While pyqtgraph is imported, a None in sys.modules makes that import fail, as
# where they are not installed; the entry goes again afterwards, so that anything later in the
# process imports them as usual.
_UNUSED = "cuda.bindings"


def import_pyqtgraph() -> None:
    if "pyqtgraph" in sys.modules or _UNUSED in sys.modules:
        return
    sys.modules[_UNUSED] = None  # type: ignore[assignment]
    try:
        import pyqtgraph  # noqa: F401
    finally:
        del sys.modules[_UNUSED]


class PlotFrames(QWidget):
    """Placeholder for `titles` charts in a grid of `columns` (the real grid's margins and
    spacing: none and the style's)."""

    painted = Signal()  # once, after the first paint

    def __init__(self, name: str, titles: list[str], colors: PlotColors, columns: int = 2) -> None:
        super().__init__()
        self.setObjectName(f"{name}_frames")
        self.colors = colors
        self._painted = False
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        self.frames = [_Frame(title, colors) for title in titles]
        for i, frame in enumerate(self.frames):
            grid.addWidget(frame, i // columns, i % columns)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        if not self._painted:
            self._painted = True
            QTimer.singleShot(0, self.painted.emit)  # once this paint is on screen


class _Frame(QWidget):
    """One chart's frame: its background, its title and its plot's box, where the chart
    draws them."""

    def __init__(self, title: str, colors: PlotColors) -> None:
        super().__init__()
        self.title = title
        self.colors = colors
        self.setMinimumHeight(150)  # as a Chart

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(self.colors.background))
        fg = QColor(self.colors.foreground)
        font = QFont(self.font())
        font.setPointSize(11)
        painter.setFont(font)
        painter.setPen(fg)
        box = QRectF(62, 40, max(self.width() - 71, 1), max(self.height() * 0.6 - 40, 1))
        painter.drawText(
            QRectF(box.left(), 10, box.width(), 28), Qt.AlignmentFlag.AlignCenter, self.title
        )
        fg.setAlpha(90)
        painter.setPen(QPen(fg, 1))
        painter.drawRect(box)
