"""A message strip above the plots: run failures and user mistakes, said in a sentence, with
the technical details one click away (never a traceback in the user's face).

In a page's layout it takes its room from what is under it; `float_over(host)` lays it over
the top of `host` instead, so that a message coming and going resizes nothing (the Run tab:
its four live charts, resized and repainted in one task of 67-70 ms when a run's warning
showed, benchmarks/RESULTS.md, issue 42).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QWidget,
)

from gui.common.theme import blend

MAX_LINES = 2  # a longer message scrolls within the bar: the plots under it keep their room

# Tints over the window's own colour (legible in light and dark): (red, green, blue, alpha) of
# the tint, and the border's colour. The background is made opaque, the tint blended with the
# window's colour, so that a bar laid over a chart hides what is under it.
TINTS: dict[str, tuple[tuple[int, int, int, float], str]] = {
    "error": ((208, 68, 55, 0.18), "#d04437"),
    "warning": ((224, 160, 32, 0.20), "#c08a10"),
    "info": ((61, 127, 196, 0.16), "#3d7fc4"),
}
FLOAT_MARGIN = 6  # px between a floating bar and its host's edges


def style(level: str, window: QColor) -> str:
    """The bar's style sheet for `level` over the window colour `window`."""
    (red, green, blue, alpha), border = TINTS.get(level, TINTS["info"])
    mixed = blend(QColor(red, green, blue), window, alpha)
    return (
        f"QFrame#message_bar {{ background: rgb({mixed.red()}, {mixed.green()}, {mixed.blue()});"
        f" border: 1px solid {border}; border-radius: 4px; }}"
    )


class MessageBar(QFrame):
    details_requested = Signal(str, str)  # text, details

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("message_bar")
        # Never taller than its lines need (MAX_LINES at most, then it scrolls): a page with
        # room to spare (Compare with nothing to price) must not stretch the bar to fill it.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.level = ""
        self.text = QLabel(wordWrap=True, objectName="message_text")
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = QScrollArea(objectName="message_scroll")
        scroll.setWidget(self.text)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setStyleSheet("background: transparent;")
        scroll.setMaximumHeight(self.fontMetrics().lineSpacing() * MAX_LINES + 12)
        self.text_area = scroll
        self.details_button = QPushButton("Details…")
        close = QPushButton("✕")
        close.setFlat(True)
        close.setToolTip("Dismiss")
        layout = self._box = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.details_button)
        layout.addWidget(close)
        self._details = ""
        self._host: QWidget | None = None
        self.details_button.clicked.connect(
            lambda: self.details_requested.emit(self.text.text(), self._details)
        )
        close.clicked.connect(self.dismiss)
        self.hide()

    def show_message(self, text: str, level: str = "error", details: str = "") -> None:
        self.level = level
        self.text.setText(text)
        self._details = details
        self.details_button.setVisible(bool(details))
        self.setStyleSheet(style(level, self.palette().color(QPalette.ColorRole.Window)))
        self.show()
        if self._host is not None:
            self._place()

    def dismiss(self) -> None:
        self.level = ""
        self.hide()

    def float_over(self, host: QWidget) -> None:
        """Lie over the top of `host` (the module's docstring), across its width, as tall as
        the message's lines (MAX_LINES at most), and follow its size."""
        self._host = host
        self.setParent(host)
        self.hide()
        host.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._host and event.type() == QEvent.Type.Resize and self.isVisible():
            self._place()
        return False

    def _place(self) -> None:
        assert self._host is not None
        width = max(self._host.width() - 2 * FLOAT_MARGIN, 0)
        layout = self._box
        self.setGeometry(FLOAT_MARGIN, FLOAT_MARGIN, width, self.sizeHint().height())
        layout.activate()  # the text's width known, its lines are
        lines = self.text.heightForWidth(self.text_area.viewport().width())
        inner = max(
            min(lines, self.text_area.maximumHeight()), self.details_button.sizeHint().height()
        )
        margins = layout.contentsMargins()
        self.resize(width, inner + margins.top() + margins.bottom())
        self.raise_()
