"""A message strip above the plots: run failures and user mistakes, said in a sentence, with
the technical details one click away (never a traceback in the user's face)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QWidget,
)

MAX_LINES = 2  # a longer message scrolls within the bar: the plots under it keep their room

# Tinted backgrounds with the palette's own text colour stay legible in light and dark.
STYLES = {
    "error": "QFrame#message_bar { background: rgba(208, 68, 55, 0.18);"
    " border: 1px solid #d04437; border-radius: 4px; }",
    "warning": "QFrame#message_bar { background: rgba(224, 160, 32, 0.20);"
    " border: 1px solid #c08a10; border-radius: 4px; }",
    "info": "QFrame#message_bar { background: rgba(61, 127, 196, 0.16);"
    " border: 1px solid #3d7fc4; border-radius: 4px; }",
}


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
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.details_button)
        layout.addWidget(close)
        self._details = ""
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
        self.setStyleSheet(STYLES.get(level, STYLES["info"]))
        self.show()

    def dismiss(self) -> None:
        self.level = ""
        self.hide()
