"""File > Export report: the HTML report of `epochcost report` (engine/results/html_report.py)
for the runs selected in Past runs (else the run on the Run tab), at the panel's price, with
the panel's owned hardware for the break-even. The Run tab's message bar says where it went.

It is given the three parts it reads (Past runs, the Run tab, the configuration panel), not
the window.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

from engine.core.errors import StoreError
from engine.pricing.compare_rows import CompareOptions, measured_elsewhere
from engine.results import data_cost, html_report
from engine.results.files import write_text
from gui.common import export
from gui.common.lazy_store import open_store
from gui.common.results_panel import ResultsPanel
from gui.pages.run.page import RunPage
from gui.panel.panel import ConfigPanel

NOTHING = "Select runs in Past runs (or finish a run) to put them in a report."


class ReportExport:
    """File > Export report over Past runs (`results`), the Run tab (`run_page`: its finished
    run, its save dialog and message bar) and the configuration panel (`panel`: the price and
    the owned hardware)."""

    def __init__(self, results: ResultsPanel, run_page: RunPage, panel: ConfigPanel) -> None:
        self.results = results
        self.run_page = run_page
        self.panel = panel

    def chosen_results(self) -> list[dict[str, Any]]:
        """The selected past runs (up to 20), else the Run tab's finished run, else none."""
        selected = self.results.selected_results(limit=20)
        if selected:
            return selected
        shown = self.run_page.finished_result
        return [shown] if shown else []

    def html(self, results: list[dict[str, Any]]) -> str:
        """The report of `results` priced as the panel says."""
        choice = self.panel.price.owned_choice()
        options = CompareOptions(owned=choice.owned if choice else None)
        listing = self.results.model.frame
        runs = html_report.comparisons(
            [self.panel.priced(r) for r in results],
            self.panel.price.source.get(),
            options,
            (lambda r: measured_elsewhere(listing, r)) if listing is not None else None,
            lambda r: data_cost.synthetic_twin(open_store(), r),  # what loading the data cost
        )
        return html_report.render(runs, options)

    def export(self, path: Path) -> Path | None:
        """The report written to `path`; None (and the message bar says why) if it was not."""
        results = self.chosen_results()

        def write() -> Path:
            if not results:
                raise export.ExportError(NOTHING)
            export.checked_path(path)
            try:
                return write_text(path, self.html(results))
            except StoreError as exc:
                raise export.ExportError(exc.message) from None

        return self.run_page.report_saved(write)

    def dialog(self) -> Path | None:
        """Ask where to save the report (an .html name), then export it there."""
        if not self.chosen_results():
            self.run_page.message_bar.show_message(NOTHING, "info")
            return None
        name = f"epochcost-report-{_dt.date.today().isoformat()}.html"
        path = self.run_page.ask_save_path("Export report", name, "HTML report (*.html)")
        if path is None:
            return None
        if path.suffix.lower() not in (".html", ".htm"):
            path = path.with_name(path.name + ".html")
        return self.export(path)
