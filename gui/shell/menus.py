"""The menu bar: File, Run, View, Help, with the shortcuts a desktop user expects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QActionGroup, QKeySequence

from gui.common import theme

if TYPE_CHECKING:
    from gui.shell.main_window import MainWindow

CHART_TITLES = {
    "throughput": "Throughput",
    "memory": "Memory fill",
    "cost": "Projected cost",
    "flops": "Achieved FLOP rate",
}


@dataclass(frozen=True)
class Actions:
    open_result: QAction
    export_csv: QAction
    run: QAction
    cancel: QAction
    quit: QAction
    themes: dict[str, QAction]


def build_menus(w: MainWindow) -> Actions:
    bar = w.menuBar()
    file = bar.addMenu("&File")
    open_result = file.addAction("&Open result…", w.open_result_dialog)
    open_result.setShortcut(QKeySequence.StandardKey.Open)
    export = file.addMenu("&Export chart")
    copy = file.addMenu("&Copy chart to clipboard")
    for name, title in CHART_TITLES.items():
        export.addAction(f"{title}…", lambda n=name: w.export_chart_dialog(n))
        copy.addAction(title, lambda n=name: w.copy_chart(n))
    export_csv = file.addAction("Export results as &CSV…", w.export_csv_dialog)
    report = file.addAction("Export &report (HTML)…", w.export_report_dialog)
    report.setToolTip("The selected past runs (or the Run tab's) as one HTML file to print")
    file.addSeparator()
    settings = file.addAction("&Settings…", w.show_settings)
    settings.setShortcut(QKeySequence("Ctrl+,"))
    quit_ = file.addAction("&Quit", w.close)
    quit_.setShortcut(QKeySequence.StandardKey.Quit)

    run_menu = bar.addMenu("&Run")
    run = run_menu.addAction("&Start", w.panel.request_run)
    run.setShortcut(QKeySequence("Ctrl+R"))
    cancel = run_menu.addAction("&Cancel", w.panel.cancel_requested.emit)
    cancel.setShortcut(QKeySequence("Esc"))
    cancel.setEnabled(False)

    view = bar.addMenu("&View")
    theme_menu = view.addMenu("&Theme")
    group = QActionGroup(w)
    themes = {}
    for name in theme.THEMES:
        action = theme_menu.addAction(name.capitalize(), lambda n=name: w.set_theme(n))
        action.setCheckable(True)
        group.addAction(action)
        themes[name] = action

    help_ = bar.addMenu("&Help")
    guide = help_.addAction("&User guide", w.show_user_guide)
    guide.setShortcut(QKeySequence.StandardKey.HelpContents)
    guide.setToolTip("The desktop app's guide (docs/desktop-app.md), with the other docs")
    help_.addAction("&About epochcost", w.show_about)
    return Actions(open_result, export_csv, run, cancel, quit_, themes)
