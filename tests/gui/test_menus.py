"""Menus and shortcuts: Ctrl+R starts a run, Esc cancels it, Help > About lists versions."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gui.shell import about
from tests.gui.helpers import LONG_FORM, fill_form


def test_ctrl_r_starts_a_run_and_esc_cancels_it(window, qtbot):
    fill_form(window.panel, **LONG_FORM)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    with qtbot.waitSignal(window.controller.running_changed, check_params_cb=bool):
        qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert window.menu_actions.cancel.isEnabled() and not window.menu_actions.run.isEnabled()
    # Cancelled while the worker still imports its framework: it is stopped all the same.
    with qtbot.waitSignal(
        window.controller.running_changed, timeout=5000, check_params_cb=lambda r: not r
    ):
        qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert window.message_bar.text.text().startswith("Cancelled")
    assert window.menu_actions.run.isEnabled()


def test_run_action_follows_the_form_validity(window):
    assert window.menu_actions.run.isEnabled()
    fill_form(window.panel, batch_size="zero")
    assert not window.menu_actions.run.isEnabled()


def test_about_lists_the_versions_without_importing_a_framework():
    found = about.versions()
    for name in ("epochcost", "Python", "Qt", "PySide6", "pyqtgraph"):
        assert found[name]
    assert found.get("torch")  # from package metadata
    html = about.about_html()
    assert f"<td>torch</td><td>{found['torch']}</td>" in html


def test_help_about_shows_the_versions(window, qtbot):
    # The About box's module loads only when it is asked for (the window starts without it).
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    seen: list[str] = []

    def read_and_close() -> None:
        box = QApplication.activeModalWidget()
        seen.append(box.text() if box is not None else "")
        if box is not None:
            box.close()

    QTimer.singleShot(300, read_and_close)
    window.show_about()
    assert seen and seen[0].startswith("<h3>epochcost</h3>") and "<table" in seen[0]
