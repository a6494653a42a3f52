"""The menu bar: File, Run, View, Help, with the shortcuts a desktop user expects.

The menus are built from what each item does (`Handlers`, callables the window passes in),
never from the window itself: this module knows the items, their shortcuts and tooltips, and
nothing of the widgets behind them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenuBar

from gui.common import theme

CHART_TITLES = {
    "throughput": "Throughput",
    "memory": "Memory fill",
    "cost": "Projected cost",
    "flops": "Achieved FLOP rate",
}  # the throughput chart carries the input wait (right axis) for a run that loads its data


@dataclass(frozen=True)
class Handlers:
    """What each menu item does. The chart items take a chart's name (a key of
    CHART_TITLES), the theme items a theme's name (one of gui.common.theme.THEMES)."""

    open_result: Callable[[], object]
    export_chart: Callable[[str], object]
    copy_chart: Callable[[str], object]
    export_csv: Callable[[], object]
    export_report: Callable[[], object]
    settings: Callable[[], object]
    quit: Callable[[], object]
    run: Callable[[], object]
    cancel: Callable[[], object]
    set_theme: Callable[[str], object]
    user_guide: Callable[[], object]
    about: Callable[[], object]


@dataclass(frozen=True)
class Actions:
    """The menu items the window enables, checks or a test triggers."""

    open_result: QAction
    export_csv: QAction
    run: QAction
    cancel: QAction
    quit: QAction
    themes: dict[str, QAction]


def build_menus(bar: QMenuBar, do: Handlers) -> Actions:
    """Fill `bar` with the app's menus, each item calling its handler in `do`."""
    file = bar.addMenu("&File")
    open_result = file.addAction("&Open result…", do.open_result)
    open_result.setShortcut(QKeySequence.StandardKey.Open)
    export = file.addMenu("&Export chart")
    copy = file.addMenu("&Copy chart to clipboard")
    for name, title in CHART_TITLES.items():
        export.addAction(f"{title}…", lambda n=name: do.export_chart(n))
        copy.addAction(title, lambda n=name: do.copy_chart(n))
    export_csv = file.addAction("Export results as &CSV…", do.export_csv)
    report = file.addAction("Export &report (HTML)…", do.export_report)
    report.setToolTip("The selected past runs (or the Run tab's) as one HTML file to print")
    file.addSeparator()
    settings = file.addAction("&Settings…", do.settings)
    settings.setShortcut(QKeySequence("Ctrl+,"))
    quit_ = file.addAction("&Quit", do.quit)
    quit_.setShortcut(QKeySequence.StandardKey.Quit)

    run_menu = bar.addMenu("&Run")
    run = run_menu.addAction("&Start", do.run)
    run.setShortcut(QKeySequence("Ctrl+R"))
    cancel = run_menu.addAction("&Cancel", do.cancel)
    cancel.setShortcut(QKeySequence("Esc"))
    cancel.setEnabled(False)

    view = bar.addMenu("&View")
    theme_menu = view.addMenu("&Theme")
    group = QActionGroup(bar)
    themes = {}
    for name in theme.THEMES:
        action = theme_menu.addAction(name.capitalize(), lambda n=name: do.set_theme(n))
        action.setCheckable(True)
        group.addAction(action)
        themes[name] = action

    help_ = bar.addMenu("&Help")
    guide = help_.addAction("&User guide", do.user_guide)
    guide.setShortcut(QKeySequence.StandardKey.HelpContents)
    guide.setToolTip("The desktop app's guide (docs/desktop-app.md), with the other docs")
    help_.addAction("&About epochcost", do.about)
    return Actions(open_result, export_csv, run, cancel, quit_, themes)
