"""Help > User guide (F1): the bundled docs/desktop-app.md, shown in a window of the app.

The guide is read from engine.core.paths.docs() (the checkout's docs/, or the bundle's copy:
build.spec ships the folder in both bundles) and drawn by Qt's own Markdown reader, so it shows
on a desktop with no program registered for .md files (xdg-open has none on many Linux
desktops). Links to the other docs open in the same window (Back returns); web links open in
the browser.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from engine.core import paths

USER_GUIDE = "desktop-app.md"  # in engine.core.paths.docs()


def guide_path() -> Path:
    return paths.docs() / USER_GUIDE


class GuideWindow(QDialog):
    """A non-modal window that reads the docs folder's Markdown pages, starting at the guide."""

    def __init__(self, guide: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("epochcost user guide")
        self.setObjectName("user_guide")
        self.resize(900, 700)
        self.browser = QTextBrowser(objectName="guide_text")
        self.browser.setOpenExternalLinks(True)  # http(s) links: the system's browser
        self.browser.setSearchPaths([str(guide.parent)])
        self.where = QLabel(objectName="guide_file")
        back = QPushButton("Back")
        home = QPushButton("Guide")
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        row = QHBoxLayout()
        row.addWidget(back)
        row.addWidget(home)
        row.addWidget(self.where, 1)
        row.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addLayout(row)
        self.browser.backwardAvailable.connect(back.setEnabled)
        self.browser.sourceChanged.connect(self._shown)
        back.clicked.connect(self.browser.backward)
        home.clicked.connect(self.browser.home)
        close.rejected.connect(self.close)
        back.setEnabled(False)
        # A .md source is read as Markdown (QTextBrowser goes by the suffix); relative links
        # and images resolve against the docs folder.
        self.browser.setSource(QUrl.fromLocalFile(str(guide)))

    def _shown(self, url: QUrl) -> None:
        self.where.setText(url.toLocalFile() if url.isLocalFile() else url.toString())
