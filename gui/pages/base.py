"""What every tab shares: the context it is given, and the Page base.

A page receives a PageContext (the configuration panel, the Past runs table, the settings, the
store, how to start a worker, the Activity, the theme's colours, the Run tab's message line and
plots for a measurement another tab starts)
instead of the main window, so it depends on what it uses and on no other page. The Page base
gives each tab its message bar, save dialogs that remember the folder, chart and table exports
that say where they saved or why not, the theme's colours, and a shutdown for the window's
close.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QFileDialog, QWidget

from gui.common import export, settings
from gui.common.activity import Activity
from gui.common.message_bar import MessageBar
from gui.common.results_panel import ResultsPanel
from gui.common.theme import PlotColors
from gui.panel.panel import ConfigPanel

if TYPE_CHECKING:
    from engine.core.events import Event
    from engine.measure.config import RunConfig
    from engine.process.launcher import WorkerSpec
    from engine.results.store import Store
    from gui.common.chart import Chart


@dataclass
class PageContext:
    prefs: settings.Settings
    panel: ConfigPanel  # the run settings on the left, which every tab reads
    results: ResultsPanel  # Past runs, whose selection Compare and Plan follow
    activity: Activity  # whether something measures, and what
    store: Callable[[], Store]  # opens the results store
    spec_for: Callable[[str], WorkerSpec]  # how a framework's worker starts (File > Settings)
    colors: PlotColors  # the theme's plot colours now (the window keeps it current)
    show_details: Callable[[str, str, str], None]  # (title, text, details): a details dialog
    # (text, level): a line on the Run tab's message bar, where a measurement another tab
    # starts says how it goes (the Compare tab's cloud run); nowhere by default.
    run_message: Callable[[str, str], None] = lambda text, level: None
    # (config, where): the Run tab's plots follow a run measured elsewhere (a cloud run), whose
    # engine events then go to run_event; nowhere by default.
    follow_run: Callable[[RunConfig, str], None] = lambda config, where: None
    run_event: Callable[[Event], None] = lambda event: None


class Page(QWidget):
    """A tab. A subclass fills `charts` (name -> Chart) and may override table_frame(),
    nothing_to_export(), set_colors() and shutdown()."""

    export_size: tuple[int, int] | None = None  # a chart's size in an exported file
    details_title = "Details"

    def __init__(self, ctx: PageContext, object_name: str = "") -> None:
        super().__init__()
        if object_name:
            self.setObjectName(object_name)
        self.ctx = ctx
        self.prefs = ctx.prefs
        self.charts: dict[str, Chart] = {}
        self.message_bar = MessageBar()
        self.message_bar.details_requested.connect(
            lambda text, details: ctx.show_details(self.details_title, text, details)
        )

    # Exports -------------------------------------------------------------------------------

    def ask_save_path(self, title: str, name: str, filters: str) -> Path | None:
        """A save dialog that starts in the last folder used and remembers the chosen one."""
        start = Path(self.prefs.text(settings.LAST_FOLDER, str(Path.home()))) / name
        chosen, _ = QFileDialog.getSaveFileName(self, title, str(start), filters)
        if not chosen:
            return None
        self.prefs.set(settings.LAST_FOLDER, str(Path(chosen).parent))
        return Path(chosen)

    def export_chart_dialog(self, name: str) -> Path | None:
        stamp = _dt.date.today().isoformat()
        path = self.ask_save_path(
            f"Export {self.charts[name].plot.titleLabel.text or 'chart'}",
            f"epochcost-{name.replace('_', '-')}-{stamp}.png",
            "PNG image (*.png);;SVG drawing (*.svg)",
        )
        return None if path is None else self.export_chart(name, path)

    def export_chart(self, name: str, path: Path) -> Path | None:
        """Write chart `name` as PNG or SVG (by the suffix); the message bar says how it went."""
        return self.report_saved(
            lambda: export.export_chart(self.charts[name].export_item, path, self.export_size)
        )

    def export_csv(self, path: Path) -> Path | None:
        """Write the page's table as CSV; the message bar says how it went."""
        return self.report_saved(lambda: export.write_csv(self.table_frame(), path))

    def table_frame(self) -> Any:
        """The page's table as a DataFrame; ExportError when there is none yet."""
        raise export.ExportError("this tab has no table to export")

    def nothing_to_export(self) -> str:
        """Why there is nothing to export yet ('' when there is)."""
        return ""

    def report_saved(self, write: Callable[[], Path]) -> Path | None:
        """Run `write` (it returns the file it wrote); the message bar says where, or why not."""
        reason = self.nothing_to_export()
        if reason:
            self.message_bar.show_message(reason, "error")
            return None
        try:
            out = write()
        except (export.ExportError, OSError) as exc:  # OSError: StoreError, the file and why
            self.message_bar.show_message(f"Export failed: {exc}", "error")
            return None
        self.message_bar.show_message(f"Saved {out}", "info")
        return out

    # Window --------------------------------------------------------------------------------

    def set_colors(self, colors: PlotColors) -> None:
        """The theme changed: re-colour the charts."""
        for chart in self.charts.values():
            chart.set_colors(colors)

    def shutdown(self) -> None:
        """The window closes: stop and wait for anything this page started."""
