"""Every text field of every tab, typed into keystroke by keystroke as a careless user would,
with a stored result selected, the price rented and owned: nothing raises, no error dialog
opens, and a text that does not read as a number is marked beside its field.

The fields are found, not listed (every visible, editable QLineEdit of the window on each tab),
so a field added later is typed into as well. After each keystroke the field is also left
(editingFinished), as a user may at any moment; after each field its text is put back.
"""

from __future__ import annotations

import sys
import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QMessageBox

from engine.results.store import Store
from gui.common.number_field import InputError, NumberField
from tests.engine.price_results import result
from tests.gui.helpers import show_tab

TEXTS = ("0.7", "0", "-5", "abc", "", "1e309")
TABS = ("Run", "Compare", "Sweep", "Accuracy", "Plan")


@pytest.fixture
def app_with_result(window, monkeypatch):
    """The main window with a stored CPU result selected, errors routed to its dialog."""
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    window.reporter.install()  # an exception anywhere opens the app's one error dialog
    cpu = result(
        run_id="20260101T000000-cpu00001",
        device="cpu",
        device_name=None,
        model="tiny-mlp",
        batch_size=16,
        samples_per_s=5_000.0,
        usd_per_hour=0.9,
        mean_power_w=None,
    )
    Store().add(cpu)
    window.results.refresh(select=cpu["run_id"])
    assert window.results.selected_run_ids() == [cpu["run_id"]]
    return window


def text_fields(window) -> list[QLineEdit]:
    """The text fields a user can type into on the tab shown (the panel's among them)."""
    return [
        f
        for f in window.findChildren(QLineEdit)
        if f.isVisible() and f.isEnabled() and not f.isReadOnly()
    ]


def reads(field: QLineEdit) -> bool:
    """Whether the field's text reads as its number (or numbers); True for a text field."""
    if not isinstance(field, NumberField):
        return True
    try:
        field.values() if field.several else field.spec.parse(field.text())
    except InputError:
        return False
    return True


def marked(window, field: QLineEdit) -> bool:
    """Framed as wrong, or its reason shown under it."""
    name = f"{field.objectName()}_error"
    said = any(label.isVisible() for label in window.findChildren(QLabel, name))
    return bool(field.property("invalid")) or said


def no_error_dialog(window, where: str) -> None:
    dialog = window.reporter.dialog
    assert dialog is None, f"{where}: {dialog.informativeText()}"
    # The window's message boxes, and any modal one: not QApplication.topLevelWidgets(), whose
    # wrappers of Qt's own passing top-level widgets (popups, tooltips) crashed PySide at times.
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert not boxes and not isinstance(QApplication.activeModalWidget(), QMessageBox), where


def retype(window, qtbot, field: QLineEdit, text: str) -> None:
    """Select all and delete, then type `text` a key at a time, leaving the field after each."""
    name = field.objectName()
    QTest.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(field, Qt.Key.Key_Backspace)
    field.editingFinished.emit()
    no_error_dialog(window, f"{name} emptied")
    for n in range(1, len(text) + 1):
        QTest.keyClicks(field, text[n - 1])
        field.editingFinished.emit()
        no_error_dialog(window, f"{name} typed {text[:n]!r}")
    assert field.text() == text
    if not reads(field):  # a form checks at once, or when the field is left (a timer: soon)
        qtbot.waitUntil(lambda: marked(window, field), timeout=2000)


@pytest.mark.parametrize("mode", ["rented", "owned"])
@pytest.mark.parametrize("tab", TABS)
def test_every_field_takes_every_keystroke_without_an_error_dialog(
    app_with_result, qtbot, tab, mode
):
    window = app_with_result
    price = window.panel.price
    (price.owned_button if mode == "owned" else price.rented_button).setChecked(True)
    if mode == "owned":  # a GTX 1080 Ti at home (the catalog's price and power), a tariff
        owned = price.owned
        owned.hardware.setCurrentIndex(owned.hardware.findData("gpu:GeForce GTX 1080 Ti"))
        owned.edits["usd_per_kwh"].setText("0.3")
    assert window.panel.validate() and window.panel.accepted_price is not None
    show_tab(window, tab)
    fields = text_fields(window)
    assert len(fields) >= 7, [f.objectName() for f in fields]  # the panel's and the tab's
    for field in fields:
        before = field.text()
        for text in TEXTS:
            retype(window, qtbot, field, text)
        retype(window, qtbot, field, before)
    no_error_dialog(window, f"{tab}, {mode}")
