"""The main window: composes the panels and wires their signals. Behaviour lives in them."""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTabWidget,
)

from engine.measure.devices import Device, list_devices
from engine.process.launcher import WorkerSpec
from gui.common import activity, settings, theme
from gui.common.activity import Activity
from gui.common.gui_thread_gc import GuiThreadCollector
from gui.common.lazy_store import open_store
from gui.common.results_panel import ResultsPanel
from gui.pages.base import Page, PageContext
from gui.pages.plan.page import PlanPage
from gui.pages.run.page import RunPage
from gui.panel.panel import ConfigPanel
from gui.shell.error_path import ErrorReporter
from gui.shell.menus import CHART_TITLES, Handlers, build_menus
from gui.shell.page_tabs import PageTabs

if TYPE_CHECKING:
    from engine.results.store import Store
    from gui.common.catalog_source import CatalogSource
    from gui.pages.run.plots import LivePlots
    from gui.shell.guide import GuideWindow
    from gui.shell.report_export import ReportExport
    from gui.shell.settings_dialog import SettingsDialog


class MainWindow(QMainWindow):
    _store_imported = Signal()
    _left_over = Signal(str)  # a half-made environment removed at start (engine/envs/leftovers.py)

    def __init__(
        self,
        prefs: settings.Settings | None = None,
        store: Callable[[], Store] = open_store,
        spec: WorkerSpec | None = None,
        devices: list[Device] | None = None,
    ) -> None:
        super().__init__()
        # Python's collector runs here, never on a job's thread (gui/common/gui_thread_gc.py).
        self._collector = GuiThreadCollector(self)
        self.setWindowTitle("epochcost")
        self.setAcceptDrops(True)
        self.prefs = prefs or settings.Settings()
        self.reporter = ErrorReporter(self)
        self.activity = Activity(self)
        self.panel = ConfigPanel(
            devices if devices is not None else list_devices(),
            interpreters=self.prefs.interpreters(),
            prefs=self.prefs,
            spec_for=lambda framework: self.controller.spec_for(framework),
        )
        theme_name = self.prefs.text(settings.THEME, "system")
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        self.results = ResultsPanel(store)
        self.context = PageContext(
            prefs=self.prefs,
            panel=self.panel,
            results=self.results,
            activity=self.activity,
            store=store,
            spec_for=lambda framework: self.controller.spec_for(framework),
            colors=theme.apply(app, theme_name),
            show_details=self.reporter.show,
            run_message=lambda text, level: self.message_bar.show_message(text, level),
            follow_run=lambda config, where: self.run_page.follow(config, where),
            run_event=lambda event: self.run_page.show_event(event),
        )
        self.run_page = RunPage(self.context, spec)
        # The Run tab's parts the window shows or routes to (its status line, its messages).
        self.controller = self.run_page.controller
        self.status = self.run_page.status
        self.message_bar = self.run_page.message_bar

        # One tab per question; the configuration on the left and the results table below
        # serve them all (a tab reads the panel's config and follows the table's selection).
        self.tabs = QTabWidget()
        self.tabs.setObjectName("tabs")
        self.tabs.setDocumentMode(True)
        self._add_pages()
        self.right = QSplitter(Qt.Orientation.Vertical)
        self.right.addWidget(self.tabs)
        self.right.addWidget(self.results)
        self.right.setStretchFactor(0, 3)
        self.right.setStretchFactor(1, 1)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.addWidget(self.panel)  # its fields scroll, its Run button stays below
        self.split.addWidget(self.right)
        self.split.setStretchFactor(1, 1)
        self.setCentralWidget(self.split)
        self.statusBar().addWidget(self.status, 1)
        self.menu_actions = build_menus(self.menuBar(), self._handlers())
        self.menu_actions.themes.get(theme_name, self.menu_actions.themes["system"]).setChecked(
            True
        )
        self._wire()
        self._restore()
        # The table loads once the window has painted (reading the store imports pandas,
        # see gui/common/lazy_store.py), so the window shows without waiting for it.
        self._table_loaded = False
        self.guide: GuideWindow | None = None  # Help > User guide, made when first asked for
        self.installEventFilter(self)
        self._store_imported.connect(self._load_table)
        self._left_over.connect(self._say_left_over)

    @property
    def plots(self) -> LivePlots:
        """The Run tab's plots (built once the window has painted, or when first asked for)."""
        return self.run_page.plots

    def _add_pages(self) -> None:
        """One tab per page, Run first; a page is a Page of its own package. Compare, Sweep
        and Accuracy are built when first shown (gui/shell/page_tabs.py)."""
        ctx = self.context
        self.pages = PageTabs(self.tabs)
        self.pages.add("Run", self.run_page, scrolled=False)
        self.pages.add_lazy("Compare", lambda: _compare_page(ctx, self.panel.price.source))
        self.pages.add_lazy("Sweep", lambda: _sweep_page(ctx))
        self.pages.add_lazy("Accuracy", lambda: _accuracy_page(ctx))
        self.pages.add("Plan", PlanPage(ctx))

    def show_page(self, title: str) -> Page:
        """Make the tab `title` current and return its page (pages build when first shown)."""
        self.tabs.setCurrentIndex(self.pages.index(title))
        return self.pages[title]

    def _handlers(self) -> Handlers:
        """What the menus' items do."""
        return Handlers(
            open_result=self.open_result_dialog,
            export_chart=self.export_chart_dialog,
            copy_chart=self.copy_chart,
            export_csv=self.export_csv_dialog,
            export_report=self.export_report_dialog,
            settings=self.show_settings,
            quit=self.close,
            run=self.panel.request_run,
            cancel=self.panel.cancel_requested.emit,
            set_theme=self.set_theme,
            user_guide=self.show_user_guide,
            about=self.show_about,
        )

    def _wire(self) -> None:
        self.panel.run_requested.connect(self.run_page.start_run)
        self.panel.cancel_requested.connect(self.controller.cancel)
        self.panel.buttons_changed.connect(self._update_actions)
        self.panel.picker.checking_changed.connect(
            lambda checking: self.activity.set(activity.CHECK, checking)
        )
        # While a run, a sweep or a study measures, the panel's settings are in use.
        self.activity.changed.connect(lambda: self.panel.set_running(self.activity.measuring))
        self.controller.store_failed.connect(
            lambda text, details: self.reporter.report("A result was not stored", text, details)
        )
        self.results.selection_changed.connect(
            lambda _: self.run_page.show_overlays(self.results.selected_results())
        )
        self.panel.environment.requested.connect(self.make_environment)
        self.panel.profiles.message.connect(self.message_bar.show_message)
        self.panel.profiles.reload()  # a damaged profiles file is said once it can be
        self.results.message.connect(self.message_bar.show_message)
        self.panel.picker.message.connect(self.message_bar.show_message)
        self.panel.price.source.message.connect(self.message_bar.show_message)
        self.results.open_requested.connect(self.open_result_dialog)
        self.results.export_requested.connect(self.export_csv_dialog)

    def _restore(self) -> None:
        self.panel.restore(self.prefs.mapping(settings.FORM))
        geometry = self.prefs.blob(settings.GEOMETRY)
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1280, 860)
        for key, splitter in (
            (settings.SPLITTER, self.split),
            (settings.SPLITTER + "_v", self.right),
        ):
            state = self.prefs.blob(key)
            if state is not None:
                splitter.restoreState(state)

    def _update_actions(self) -> None:
        self.menu_actions.run.setEnabled(self.panel.run_button.isEnabled())
        self.menu_actions.cancel.setEnabled(self.panel.cancel_button.isEnabled())

    def set_theme(self, name: str) -> None:
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        self.context.colors = theme.apply(app, name)
        for page in self.pages.built():  # one built later takes the colours then
            page.set_colors(self.context.colors)
        self.prefs.set(settings.THEME, name)

    # File menu -----------------------------------------------------------------------------

    def open_result_dialog(self) -> None:
        folder = self.prefs.text(settings.LAST_FOLDER, str(Path.home()))
        files, _ = QFileDialog.getOpenFileNames(self, "Open result", folder, "Results (*.json)")
        if files:
            self.prefs.set(settings.LAST_FOLDER, str(Path(files[0]).parent))
            self.results.import_files([Path(f) for f in files])

    def export_chart_dialog(self, name: str) -> None:
        """File > Export chart: one of the Run tab's charts."""
        self.run_page.export_chart_dialog(name)

    def export_chart(self, name: str, path: Path) -> Path | None:
        return self.run_page.export_chart(name, path)

    def copy_chart(self, name: str) -> None:
        self.run_page.copy_chart(name)
        self.statusBar().showMessage(f"{CHART_TITLES[name]} chart copied", 3000)

    def export_report_dialog(self) -> Path | None:
        """File > Export report: the selected runs (else the Run tab's) as one HTML file."""
        return self.report.dialog()

    def export_csv_dialog(self) -> None:
        stamp = _dt.date.today().isoformat()
        name = f"epochcost-results-{stamp}.csv"
        path = self.run_page.ask_save_path("Export results", name, "CSV (*.csv)")
        if path is not None:
            self.export_csv(path)

    def export_csv(self, path: Path) -> Path | None:
        """Past runs as CSV; the Run tab's message bar says how it went."""
        return self.run_page.report_saved(lambda: self.results.export_csv(path))

    @functools.cached_property
    def report(self) -> ReportExport:
        """File > Export report's exporter, made when first asked for (not at the start)."""
        from gui.shell.report_export import ReportExport

        return ReportExport(self.results, self.run_page, self.panel)

    def show_settings(self) -> SettingsDialog:
        """File > Settings (window-modal; it applies on OK)."""
        from gui.shell.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.prefs.interpreters(), self)
        dialog.accepted.connect(lambda: self.set_interpreters(dialog.interpreters()))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def make_environment(self, framework: str) -> SettingsDialog:
        """The panel's "Make a … environment for this machine…": File > Settings, making it there
        (its progress under its button; OK keeps the environment for the framework's runs)."""
        dialog = self.show_settings()
        dialog.make_environment(framework)
        return dialog

    def set_interpreters(self, chosen: dict[str, str]) -> None:
        """Each framework's worker Python: kept, offered in the form, used by the next run."""
        try:
            self.prefs.set_interpreters(chosen)
        except OSError as exc:  # StoreError: the data folder cannot be written
            self.message_bar.show_message(f"The choice could not be kept: {exc}", "error")
        self.controller.interpreters = dict(chosen)  # the Run tab's, which every tab asks
        self.panel.set_interpreters(chosen)

    def show_user_guide(self) -> GuideWindow | None:
        """Help > User guide (F1): docs/desktop-app.md in a window of the app (one, brought
        forward again); where the docs are missing, the message bar says where they were
        looked for."""
        from gui.shell.guide import GuideWindow, guide_path

        guide = guide_path()
        if not guide.is_file():
            self.message_bar.show_message(f"The user guide is not at {guide}.", "error")
            return None
        if self.guide is None:
            self.guide = GuideWindow(guide, self)
        self.guide.show()
        self.guide.activateWindow()  # brings it forward where it was open already
        return self.guide

    def show_about(self) -> None:
        from gui.shell import about

        QMessageBox.about(self, "About epochcost", about.about_html())

    # Window ------------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        files = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if files:
            event.acceptProposedAction()
            self.results.import_files(files)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self and event.type() == QEvent.Type.Paint and not self._table_loaded:
            self._table_loaded = True
            self.removeEventFilter(self)
            # Import the store's pandas on a helper thread, so the window stays responsive
            # (it takes half a second or more); the table fills when it is there.
            threading.Thread(target=self._import_store, name="epochcost-store", daemon=True).start()
        return False

    def _import_store(self) -> None:
        import engine.results.store  # noqa: F401

        with contextlib.suppress(RuntimeError):  # the window may be gone by now
            self._store_imported.emit()  # queued to the GUI thread
        # What an epochcost killed while it made an environment left: removed, and said.
        from engine.envs import leftovers

        said = leftovers.clear()
        with contextlib.suppress(RuntimeError):
            if said:
                self._left_over.emit(" ".join(line[0].upper() + line[1:] + "." for line in said))

    @Slot(str)  # emitted on the import thread, likewise
    def _say_left_over(self, text: str) -> None:
        self.message_bar.show_message(text, "info")

    @Slot()  # emitted on the import thread: a real slot receives it safely
    def _load_table(self) -> None:
        if self.results.model.frame is None:  # unless something loaded it already
            self.results.refresh()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        for page in self.pages.built():  # each stops and reaps its workers and jobs
            page.shutdown()
        self.panel.shutdown()  # and a model file check's
        from gui.shell.settings_dialog import SettingsDialog

        for dialog in self.findChildren(SettingsDialog):  # its interpreter checks, likewise
            dialog.shutdown()
        self.prefs.set(settings.FORM, self.panel.state())
        self.prefs.set(settings.GEOMETRY, self.saveGeometry())
        self.prefs.set(settings.SPLITTER, self.split.saveState())
        self.prefs.set(settings.SPLITTER + "_v", self.right.saveState())
        self.prefs.sync()
        self._collector.stop()  # the jobs have ended: the automatic collector may run again
        event.accept()


def _sweep_page(ctx: PageContext) -> Page:
    from gui.pages.sweep.page import SweepPage

    return SweepPage(ctx)


def _accuracy_page(ctx: PageContext) -> Page:
    from gui.pages.accuracy.page import AccuracyPage

    return AccuracyPage(ctx)


def _compare_page(ctx: PageContext, source: CatalogSource) -> Page:
    from gui.pages.compare.page import ComparePage

    return ComparePage(ctx, source)
