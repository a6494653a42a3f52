"""The window's tabs: Compare, Sweep and Accuracy are built when first shown
(gui/shell/page_tabs.py)."""

from __future__ import annotations

import subprocess
import sys

from gui.common import activity
from gui.pages.accuracy.page import AccuracyPage
from gui.pages.sweep.page import SweepPage
from tests.gui.helpers import show_tab

LATER = ("gui.pages.compare.page", "gui.pages.sweep.page", "gui.pages.accuracy.page")


def test_the_window_shows_without_loading_the_later_pages():
    code = (
        "import os, sys; os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from gui.shell.application import create_app; app = create_app([])\n"
        "from gui.shell.main_window import MainWindow; w = MainWindow(); w.show()\n"
        "app.processEvents()\n"
        f"print([m for m in {LATER!r} if m in sys.modules], flush=True)\n"
        "os._exit(0)\n"  # only the imports matter here, not the teardown
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_later_page_is_built_when_its_tab_is_first_shown(window):
    built = [type(p).__name__ for p in window.pages.built()]
    assert built == ["RunPage", "PlanPage"]
    assert list(window.pages) == ["Run", "Compare", "Sweep", "Accuracy", "Plan"]
    window.tabs.setCurrentIndex(window.pages.index("Accuracy"))  # a click on the tab
    page = window.pages.built()[-2]
    assert isinstance(page, AccuracyPage)
    assert window.tabs.currentWidget().widget() is page  # in the tab's scroll area
    assert window.pages["Accuracy"] is page  # built once
    assert isinstance(show_tab(window, "Sweep"), SweepPage)  # asked for by title


def test_a_page_built_while_a_run_measures_waits_for_it(window):
    window.activity.set(activity.RUN, True)
    page = show_tab(window, "Sweep")
    assert not page.start_button.isEnabled()
    assert page.start_button.toolTip().endswith("both would share the machine")
    window.activity.set(activity.RUN, False)


def test_closing_the_window_stops_only_the_pages_it_built(window):
    show_tab(window, "Sweep")
    window.close()
    assert [type(p).__name__ for p in window.pages.built()] == ["RunPage", "SweepPage", "PlanPage"]


def test_a_page_that_failed_to_build_is_tried_again(qtbot):
    import pytest
    from PySide6.QtWidgets import QTabWidget, QWidget

    from gui.shell.page_tabs import PageTabs

    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    pages = PageTabs(tabs)
    pages.add("A", QWidget())  # type: ignore[arg-type]  # any widget serves here
    tries: list[int] = []

    def factory() -> QWidget:
        tries.append(1)
        if len(tries) == 1:
            raise RuntimeError("the first try fails")
        return QWidget()

    pages.add_lazy("B", factory)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError):
        pages["B"]
    page = pages["B"]
    assert pages["B"] is page and len(tries) == 2
    assert tabs.widget(1).widget() is page
