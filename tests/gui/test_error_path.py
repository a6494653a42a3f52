"""One error path: unexpected exceptions and run failures reach the same dialog and the log
file in the data folder; a failed run is a sentence in the window, its details a click away."""

from __future__ import annotations

import sys
import threading

from PySide6.QtWidgets import QMessageBox

from engine.core.events import Failed
from gui.common.log import log_path


def raise_and_report(reporter, message: str) -> None:
    try:
        raise RuntimeError(message)
    except RuntimeError:
        reporter.handle_exception(*sys.exc_info())


def test_an_unexpected_exception_is_logged_and_shown_in_one_dialog(window, qtbot):
    raise_and_report(window.reporter, "first surprise")
    qtbot.waitUntil(
        lambda: window.reporter.dialog is not None and window.reporter.dialog.isVisible()
    )
    dialog = window.reporter.dialog
    assert "RuntimeError: first surprise" in dialog.informativeText()
    assert str(log_path()) in dialog.informativeText()
    assert "Traceback" in dialog.detailedText()
    raise_and_report(window.reporter, "second surprise")
    qtbot.waitUntil(lambda: "second surprise" in dialog.informativeText())
    assert window.reporter.dialog is dialog  # added to it, not a second window
    log = log_path().read_text()
    assert "first surprise" in log and "second surprise" in log and "Traceback" in log
    dialog.done(QMessageBox.StandardButton.Close)


def test_an_exception_in_another_thread_reaches_the_dialog_on_the_gui_thread(
    window, qtbot, monkeypatch
):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    window.reporter.install()

    def boom() -> None:
        raise ValueError("from a helper thread")

    t = threading.Thread(target=boom)
    t.start()
    t.join()
    qtbot.waitUntil(
        lambda: window.reporter.dialog is not None and window.reporter.dialog.isVisible()
    )
    assert "ValueError: from a helper thread" in window.reporter.dialog.informativeText()
    window.reporter.dialog.done(QMessageBox.StandardButton.Close)


def test_a_failed_run_is_a_message_in_the_window_with_details_on_request(window, qtbot):
    failure = Failed(
        run_id="r1",
        kind="framework",
        message="RuntimeError: mat1 and mat2 shapes cannot be multiplied",
        traceback='Traceback (most recent call last):\n  File "model.py", line 3\nRuntimeError',
    )
    window.controller.run_failed.emit(failure, "The framework failed: RuntimeError: shapes.")
    assert window.message_bar.isVisible() and window.message_bar.level == "error"
    assert "Traceback" not in window.message_bar.text.text()
    assert window.reporter.dialog is None  # no dialog unless asked for
    assert "mat1 and mat2" in log_path().read_text()
    window.message_bar.details_button.click()
    qtbot.waitUntil(
        lambda: window.reporter.dialog is not None and window.reporter.dialog.isVisible()
    )
    assert 'File "model.py", line 3' in window.reporter.dialog.detailedText()
    window.reporter.dialog.done(QMessageBox.StandardButton.Close)
