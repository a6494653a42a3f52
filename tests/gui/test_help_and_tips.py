"""Help for a new user: every form field of the window says what it is for in a tooltip, Help >
User guide shows the guide in a window of the app, and the status line ends in "…" with the
whole text in its tooltip."""

from __future__ import annotations

from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QLineEdit,
    QRadioButton,
)

from engine.core import paths
from gui.common.elided_label import ElidedLabel
from tests.gui.helpers import show_tab

FIELDS = (QLineEdit, QComboBox, QAbstractSpinBox, QCheckBox, QRadioButton)


def test_every_form_field_has_a_tooltip(window):
    for title in window.pages:  # each page builds its form when first shown
        show_tab(window, title)
    fields = [w for kind in FIELDS for w in window.findChildren(kind)]
    # A combo box's or spin box's own line edit is part of it, not a field.
    fields = [w for w in fields if not isinstance(w.parent(), QComboBox | QAbstractSpinBox)]
    assert len(fields) > 40  # the panel's and every page's
    missing = [
        f"{type(w).__name__} {w.objectName() or w.text()}" for w in fields if not w.toolTip()
    ]
    assert missing == []


class Opened(QObject):
    """Where the desktop was asked to open a file (Qt's own hook for a URL scheme)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


def test_f1_shows_the_guide_inside_the_app(qtbot, window):
    """Issue 38: Help > User guide handed the file to xdg-open, and did nothing on a desktop
    with no program for .md files. It shows the bundled guide in a window of the app."""
    opened = Opened()  # the desktop is never asked to open the guide
    QDesktopServices.setUrlHandler("file", opened, "open")
    try:
        guide = next(a for a in window.findChildren(QAction) if a.text() == "&User guide")
        assert guide.shortcut() == QKeySequence(QKeySequence.StandardKey.HelpContents)  # F1
        guide.trigger()
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert opened.urls == []
    viewer = window.guide
    assert viewer is not None
    qtbot.waitExposed(viewer)
    assert viewer.isVisible() and viewer.windowTitle() == "epochcost user guide"
    source = paths.docs() / "desktop-app.md"
    assert viewer.browser.source().toLocalFile() == str(source)
    text = viewer.browser.toPlainText()
    assert text.startswith("The desktop app")  # the heading, read as Markdown, not "# The"
    assert "The Run tab" in text and "**" not in text
    # a link to another doc opens in the same window, and Back returns
    viewer.browser.setSource(viewer.browser.source().resolved(QUrl("pricing.md")))
    assert viewer.browser.source().toLocalFile() == str(paths.docs() / "pricing.md")
    assert viewer.browser.isBackwardAvailable()
    viewer.browser.backward()
    assert viewer.browser.source().toLocalFile() == str(source)
    # asked again: the same window
    guide.trigger()
    assert window.guide is viewer


def test_the_bundles_ship_the_guide():
    """Both bundles (build.spec, full and slim) carry docs/, which the guide reads."""
    spec = (paths.docs().parent / "build.spec").read_text(encoding="utf-8")
    assert 'tree(ROOT / "docs", "docs")' in spec
    assert "QtWidgets" not in spec.split("EXCLUDES = [")[1].split("]")[0]  # QTextBrowser's


def test_the_status_line_elides_and_keeps_the_whole_text_in_its_tooltip(qtbot):
    label = ElidedLabel()
    qtbot.addWidget(label)
    label.resize(120, 20)
    label.show()
    text = "Finished: 2,425.7 samples/s (± 93.9%) · epoch 20.6 s · $0.00515 per epoch · peak mem"
    label.setText(text)
    assert label.text() == text and label.toolTip() == text
    shown = label.elided()
    assert shown.endswith("…") and len(shown) < len(text)
    label.resize(2000, 20)
    assert label.elided() == text
