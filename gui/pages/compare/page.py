"""The Compare tab: the selected result's epoch priced on every matching cloud machine and on
the machine it ran on (engine.pricing.compare, the same rows as `epochcost compare`).

It follows the results table: the first selected result is compared. Below the inputs, the
table (cheapest epoch first, every price with its source and date) and three charts: $/epoch by
machine, cost against epoch time, and owning against renting over days for a chosen machine
(laid out to fit the window: layout.py). The table exports as CSV, each chart as PNG or SVG at
one size. Comparing takes a few milliseconds, so it runs on the GUI thread, and only while the
page is on screen. A cloud row offers "Measure on this instance…" ("on these N instances…",
several selected; its context menu, the button under the table): gui/pages/compare/
cloud_action.py.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout

from engine.core.errors import ConfigError
from engine.pricing.breakeven import break_even_against
from engine.pricing.compare import compare
from engine.pricing.compare_rows import CompareOptions, CompareRow, Comparison, measured_elsewhere
from engine.pricing.device import cpu_at_gpu_price, is_cpu
from gui.common import theme
from gui.common.catalog_source import CatalogSource
from gui.pages.base import Page, PageContext
from gui.pages.compare import charts as compare_charts
from gui.pages.compare import text as compare_text
from gui.pages.compare.body import CompareBody
from gui.pages.compare.cloud_action import CloudAction
from gui.pages.compare.model import COLUMNS, frame
from gui.pages.compare.options import CompareInputs
from gui.pages.compare.selection import choose

NO_SELECTION = (
    "Select a result in the table below to price its epoch on cloud machines and on the "
    "machine it ran on."
)
BUY_NEEDS_GPU = (
    "GPUs to buy: this result ran on the CPU, and a CPU's speed says nothing of a GPU's. "
    "Select a result measured on a GPU (File › Open result imports one from another machine), "
    "or measure on the GPU: choose it as the device and press Run."
)
OWN_HINT = (
    "Give your electricity tariff above (and a purchase price where the catalog has no "
    "launch price) to weigh owning the measured machine against renting this one."
)
LOOKED_AT = 20  # selected runs read from the store to find one that finished


class ComparePage(Page):
    export_size = (900, 640)  # a chart's size in a file, whatever its size here

    def __init__(self, ctx: PageContext, source: CatalogSource) -> None:
        super().__init__(ctx, "compare_page")
        self.results = ctx.results
        self.source = source
        self.result: dict[str, Any] | None = None
        self.comparison: Comparison | None = None
        self.caveat: str | None = None  # what the price means, when it is another device's
        self.options = CompareOptions()
        # The selection, the panel's price changed while the page was hidden (showEvent).
        self._stale, self._unpriced = True, False
        self._said = ""  # the message bar's sentence about the selection, if any
        self._undrawn: set[str] = set()  # charts whose tab was hidden at the last draw
        self.heading = QLabel(NO_SELECTION, wordWrap=True, objectName="compare_heading")
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.inputs = CompareInputs()
        self.inputs.hide()
        self.body: QSplitter | None = None  # the table and charts, built when first needed
        self.colors = ctx.colors
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(4, 4, 4, 0)
        self._layout.addWidget(self.message_bar)
        self._layout.addWidget(self.heading)
        self._layout.addWidget(self.inputs)
        self._layout.addStretch(1)

        self.results.selection_changed.connect(self._selection_changed)
        self.inputs.changed.connect(self.update_comparison)
        self.source.message.connect(self.message_bar.show_message)
        if source.last_message is not None:  # said before this page was built
            self.message_bar.show_message(*source.last_message)
        self.source.reloaded.connect(lambda _: self.update_comparison())
        # The panel's price (a profile, typed, owned) prices the selected run here too: each
        # price that passed its checks, never a half-typed mistake.
        ctx.panel.price_changed.connect(self._price_changed)
        self._panel = ctx.panel
        self.cloud = CloudAction(ctx, source, self, self.message_bar.show_message)

    def _price_changed(self) -> None:
        """Priced again, or once shown (on another tab, each price keystroke cost 35-50 ms)."""
        self._unpriced = not self.isVisible()
        if not self._unpriced and self.result is not None and self.result.get("status") == "ok":
            self.set_result(self.result)

    def _build_body(self) -> QSplitter:
        """The table and the three charts (gui/pages/compare/body.py), wired to this page."""
        body = CompareBody(self.colors, self.fontMetrics().height() + 8, self._draw_bars)
        self.model, self.view, self.notes = body.model, body.view, body.notes
        self.measure_button, self.rent, self.chart_tabs = (
            body.measure_button,
            body.rent,
            body.chart_tabs,
        )
        self.bars, self.scatter, self.break_even = body.bars, body.scatter, body.break_even
        self.charts, self.fitted = body.charts, body.fitted
        # Before the stretch that holds the heading up when the body is hidden (a run with
        # nothing to price); while it shows, the body's stretch takes the room.
        self._layout.insertWidget(self._layout.count() - 1, body.splitter, 1)
        self._layout.setStretch(self._layout.count() - 1, 0)
        self.rent.currentIndexChanged.connect(self._draw_break_even)
        body.csv_button.clicked.connect(self.export_csv_dialog)
        self.measure_button.clicked.connect(self.measure_selected)
        body.measure.triggered.connect(self.measure_selected)
        body.chart_button.clicked.connect(lambda: self.export_chart_dialog(self.chart_name()))
        self.chart_tabs.currentChanged.connect(lambda _: self._draw_chart(self.chart_name()))
        return body.splitter

    # following the results table ---------------------------------------------------------

    def _selection_changed(self, _ids: list[str]) -> None:
        self._stale = True
        if self.isVisible():
            self.follow_selection()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        if self._stale:
            self.follow_selection()
        if self._unpriced:
            self._price_changed()

    def follow_selection(self) -> None:
        """Compare the first selected result that finished (selection.py: a failed or
        cancelled run is never the one priced; the rest of a selection is left aside)."""
        self._stale = False
        ids = self.results.selected_run_ids()
        selected = self.results.selected_results(limit=LOOKED_AT) if ids else []
        chosen = choose(selected, self.result)
        before = None if self.result is None else self.result.get("run_id")
        if chosen.result is not self.result:
            self.set_result(chosen.result)
        if chosen.message:
            self.message_bar.show_message(chosen.message, "info")
        elif self.message_bar.isVisible() and self.message_bar.text.text() == self._said:
            self.message_bar.dismiss()  # what it said of the last selection no longer holds
        self._said = chosen.message
        if self.body is not None and (chosen.result or {}).get("run_id") != before:
            self.view.horizontalScrollBar().setValue(0)  # a new run: its Machine column first
            self.view.scrollToTop()

    def set_result(self, result: dict[str, Any] | None) -> None:
        self.result, self._unpriced = result, False  # priced at the panel's price now
        if result is None:
            self._show_empty(NO_SELECTION)
            return
        if result.get("status") != "ok" or not result.get("throughput_samples_per_s"):
            self._show_empty(
                f"Run {result.get('run_id')} ended {result.get('status')}: it has no "
                "throughput, so there is nothing to price. Select a run that finished."
            )
            return
        cat = self.source.get()
        self.inputs.panel_owned = self._panel.accepted_owned
        self.inputs.set_clouds(cat.clouds)
        self.inputs.show_defaults(result, cat)
        self.update_comparison()

    def _show_empty(self, text: str) -> None:
        self.comparison = None
        self.heading.setText(text)
        self.inputs.hide()
        if self.body is not None:
            self.body.hide()

    # comparing -----------------------------------------------------------------------------

    def update_comparison(self) -> None:
        result = self.result
        if result is None or result.get("status") != "ok":
            return
        cat = self.source.get()
        result = self._panel.priced(result)  # at the panel's price, as every tab
        options, _ = self.inputs.options(result, cat)
        # The store brings pandas: imported when a comparison is made, not with the window.
        from engine.results.scaling import efficiency_lookup

        options = replace(options, scaling=efficiency_lookup(result["config"]["model"], cat))
        listing = self.results.model.frame
        runs = [] if listing is None else measured_elsewhere(listing, result)
        try:
            self.comparison = compare(result, cat, options, runs)
        except ConfigError as exc:  # a figure the engine's ranges refuse: said beside it
            self.inputs.show_error(exc)
            return  # the last comparison stays, with the options it was made with
        self.options = options
        if self.body is None:
            self.body = self._build_body()
        self.model.set_frame(frame(self.comparison))
        # The engine's order (cheapest first, spot when asked); a click on a header re-sorts.
        column = [c.key for c in COLUMNS].index(
            "usd_per_epoch_spot" if self.options.spot else "usd_per_epoch"
        )
        self.view.sortByColumn(column, Qt.SortOrder.AscendingOrder)
        keys = [c.key for c in COLUMNS]  # break-even days only mean something when owned
        self.view.setColumnHidden(
            keys.index("break_even_days"), self.options.owned is None and self.options.buy is None
        )
        self.caveat = cpu_at_gpu_price(result, cat)  # a CPU's speed at an owned GPU's price
        self.heading.setText(compare_text.heading(result, self.comparison, self.caveat))
        text, details = compare_text.notes(result, self.comparison, cat, self.options)
        self.notes.setText(text)
        self.notes.setToolTip(details)
        if self.inputs.buy.isChecked() and is_cpu(result):
            self.message_bar.show_message(BUY_NEEDS_GPU, "info")
        self.inputs.show()
        self.body.show()
        self._fill_rent_choices()
        self.draw()

    # measuring on a cloud machine --------------------------------------------------------

    def selected_rows(self) -> list[CompareRow]:
        """The comparison's rows selected in the table, in the table's order."""
        picked = self.view.selectionModel().selectedRows() if self.body is not None else []
        if self.comparison is None:
            return []
        found = []
        for index in sorted(picked, key=lambda i: i.row()):
            r = self.model.record(index.row())
            key = (r["cloud"], r["instance_type"], r["region"], bool(r["local"]))
            found += [
                c
                for c in self.comparison.rows
                if (c.cloud, c.instance_type, c.region, c.local) == key
            ][:1]
        return found

    def selected_row(self) -> CompareRow | None:
        """The first of the selected rows (None: none)."""
        rows = self.selected_rows()
        return rows[0] if rows else None

    def measure_selected(self) -> bool:
        """Measure on this instance… (or on these, several rows selected): the selected
        result's settings on each selected machine, one after another."""
        return self.cloud.offer(self.result, self.selected_rows(), self.options.spot)

    # charts --------------------------------------------------------------------------------

    def draw(self) -> None:
        """The charts drawn anew: the one whose tab shows at once, each other one when its tab
        is shown or it is exported (all three at each price typed took a third of the
        keystroke: benchmarks/RESULTS.md, issue 42)."""
        if self.comparison is None or self.body is None:
            return
        self._undrawn = set(self.charts)
        self._draw_chart(self.chart_name())

    def chart_name(self) -> str:
        """The name of the chart whose tab shows."""
        return list(self.charts)[self.chart_tabs.currentIndex()]

    def _draw_chart(self, name: str) -> None:
        """Chart `name` drawn, unless it is already (draw)."""
        c = self.comparison
        if name not in self._undrawn or c is None:
            return
        self._undrawn.discard(name)
        if name == self.break_even.name:
            self._draw_break_even()
            return
        if name == self.bars.name:
            self._draw_bars()
        else:
            compare_charts.draw_scatter(self.scatter, c.rows, self.options.spot, self.colors)
        caption = compare_text.caption(c, c.rows, self.options, caveat=self.caveat)
        self._set_caption(self.charts[name], caption)

    def _draw_bars(self) -> None:
        """The bars, as many as the chart's height holds (layout.FittedBars)."""
        if self.comparison is not None:
            rows, spot = self.comparison.rows, self.options.spot
            compare_charts.draw_bars(self.bars, rows, spot, self.colors, self.fitted.fit())

    @staticmethod
    def _set_caption(chart: compare_charts.CompareChart, caption: str) -> None:
        chart.set_caption(caption)
        chart.setToolTip(f"<p style='white-space:pre'>{caption}</p>")  # off the screen

    def _fill_rent_choices(self) -> None:
        current = self.rent.currentText()
        self.rent.blockSignals(True)
        self.rent.clear()
        assert self.comparison is not None
        for n, r in enumerate(self.comparison.rows):
            if not r.local and r.throughput_samples_per_s and r.usd_per_hour is not None:
                self.rent.addItem(compare_text.rent_label(r, self.options.spot), n)
        self.rent.setCurrentIndex(max(0, self.rent.findText(current)))
        self.rent.blockSignals(False)

    def rented_row(self) -> CompareRow | None:
        n = self.rent.currentData()
        return None if self.comparison is None or n is None else self.comparison.rows[n]

    def _draw_break_even(self) -> None:
        c, row = self.comparison, self.rented_row()
        if c is None or self.result is None:
            return
        be = None
        if row is not None:
            local = self.result["throughput_samples_per_s"]
            be = break_even_against(
                self.options,
                local,
                row.throughput_samples_per_s,
                row.usd_per_hour or 0.0,
                row.usd_per_hour_spot,
            )
        hint = OWN_HINT
        if self.options.owned is not None and row is None:
            hint = compare_text.nothing_to_rent(self.result, c, self.options)
        name = compare_text.rent_label(row, self.options.spot) if row is not None else ""
        compare_charts.draw_break_even(self.break_even, be, name, self.colors, hint, row)
        shown = [row] if row is not None else []
        caption = compare_text.caption(c, shown, self.options, be, self.caveat)
        self._set_caption(self.break_even, caption)

    # theme and exports ---------------------------------------------------------------------

    def set_colors(self, colors: theme.PlotColors) -> None:
        self.colors = colors
        if self.body is None:
            return
        super().set_colors(colors)
        self.draw()

    def shutdown(self) -> None:
        self.cloud.shutdown()  # a launch still going is torn down before the window goes

    def export_chart(self, name: str, path: Path) -> Path | None:
        self._draw_chart(name)  # not drawn yet while its tab was hidden
        return super().export_chart(name, path)

    def nothing_to_export(self) -> str:
        return "Nothing to export: select a result first." if self.comparison is None else ""

    def table_frame(self) -> Any:
        """The comparison's rows (the columns of `epochcost compare --json`)."""
        assert self.comparison is not None
        return self.comparison.to_frame()

    def export_csv_dialog(self) -> None:
        stamp = _dt.date.today().isoformat()
        path = self.ask_save_path(
            "Export comparison", f"epochcost-compare-{stamp}.csv", "CSV (*.csv)"
        )
        if path is not None:
            self.export_csv(path)
