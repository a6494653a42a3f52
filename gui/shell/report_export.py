"""File > Export report: the HTML report of `epochcost report` (engine/results/html_report.py)
for the runs selected in Past runs (else the run on the Run tab), at the panel's price, with
the panel's owned hardware for the break-even. The Run tab's message bar says where it went."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.core.errors import StoreError
from engine.pricing.comparison import CompareOptions, measured_elsewhere
from engine.results import html_report
from engine.results.files import write_text
from gui.common import export

if TYPE_CHECKING:
    from gui.shell.main_window import MainWindow

NOTHING = "Select runs in Past runs (or finish a run) to put them in a report."


def chosen_results(w: MainWindow) -> list[dict[str, Any]]:
    """The selected past runs (up to 20), else the Run tab's finished run, else none."""
    selected = w.results.selected_results(limit=20)
    if selected:
        return selected
    shown = w.run_page.finished_result
    return [shown] if shown else []


def report_html(w: MainWindow, results: list[dict[str, Any]]) -> str:
    """The report of `results` priced as the panel says."""
    panel = w.panel
    choice = panel.price.owned_choice()
    options = CompareOptions(owned=choice.owned if choice else None)
    listing = w.results.model.frame
    runs = html_report.comparisons(
        [panel.priced(r) for r in results],
        panel.price.source.get(),
        options,
        (lambda r: measured_elsewhere(listing, r)) if listing is not None else None,
    )
    return html_report.render(runs, options)


def export_report(w: MainWindow, path: Path) -> Path | None:
    results = chosen_results(w)

    def write() -> Path:
        if not results:
            raise export.ExportError(NOTHING)
        try:
            return write_text(path, report_html(w, results))
        except StoreError as exc:
            raise export.ExportError(exc.message) from None

    return w.run_page.report_saved(write)


def export_report_dialog(w: MainWindow) -> Path | None:
    if not chosen_results(w):
        w.run_page.message_bar.show_message(NOTHING, "info")
        return None
    name = f"epochcost-report-{_dt.date.today().isoformat()}.html"
    path = w.run_page.ask_save_path("Export report", name, "HTML report (*.html)")
    if path is None:
        return None
    if path.suffix.lower() not in (".html", ".htm"):
        path = path.with_name(path.name + ".html")
    return export_report(w, path)
