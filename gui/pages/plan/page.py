"""The Plan tab: what a training run of any size would take and cost, from its FLOPs.

The form (gui/pages/plan/form.py) says what is trained, on what, at which MFU;
gui/pages/plan/inputs.py makes
the plan with the engine's functions (the figures of `epochcost plan`); the answer shows every
figure beside what it rests on, and a chart and a table compare every catalog GPU. Planning is
arithmetic (a few milliseconds), so it is made again on the GUI thread a moment after each
change: the short delay keeps "110e" on the way to "110e6" from flashing a message.

The page builds itself when first shown: the window opens without importing the planner or
loading the catalog (engine.plan.targets imports pandas), so the tab costs the window's start
nothing.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.core.errors import ConfigError
from gui.common import export, theme
from gui.pages.base import Page, PageContext

if TYPE_CHECKING:
    from gui.pages.plan.answer import PlanAnswer
    from gui.pages.plan.chart import PlanChart
    from gui.pages.plan.form import PlanForm
    from gui.pages.plan.inputs import FormValues, Plan, Sources
    from gui.pages.plan.table import PlanTableModel
    from gui.panel.price_widget import OwnedChoice

DELAY_MS = 150
FORM_WIDTH_PX = 380


def load_sources() -> Sources:
    from engine.plan import presets as plan_presets
    from engine.pricing import catalog
    from gui.pages.plan.inputs import Sources

    return Sources(catalog.load(), plan_presets.load_presets(), plan_presets.load_runs_tables())


def price_dates(plan: Plan, sources: Sources) -> str:
    """When the catalog prices the chart's bars rest on were taken, by cloud (short)."""
    gpus = {r.gpu for r, _ in plan.comparison if r.usd_ondemand is not None}
    dates: dict[str, set[str]] = {}
    for i in sources.catalog.select():
        if i.gpu_spec in gpus:
            # "undated; inferred >=2025-06" -> ">=2025-06"; asides in parentheses left out
            date = re.sub(r"\s*\(.*?\)", "", i.price_date).removeprefix("undated; inferred ")
            date = date.split(";")[0]
            dates.setdefault(date or "undated", set()).add(i.cloud)
    listed = "; ".join(f"{', '.join(sorted(c))} {d}" for d, c in sorted(dates.items()))
    return f"prices: cheapest catalog offer per GPU, dated {listed}"


def chart_caption(plan: Plan, sources: Sources) -> str:
    from gui.pages.plan.chart import caption

    i = plan.inputs
    what = f"{i.preset.name}: " if i.preset else ""
    u = i.utilisation
    basis = (
        f"MFU {u.mfu:.0%} {'measured' if u.measured else 'assumed'} on every GPU, "
        f"{i.options.precision} dense peak, perfect scaling"
    )
    what += f"{i.compute.flops:.3g} FLOPs, {plan.row.count} GPU{'s' if plan.row.count > 1 else ''}"
    return caption(what, basis, price_dates(plan, sources))


def with_panel_owned(values: FormValues, choice: OwnedChoice | None) -> FormValues:
    """The form's values with the panel's owned set-up where left empty: tariff, lifetime, use,
    rest of system, PSU and grid region always, the purchase price when the planned GPU is the
    panel's (the device watts are the planned GPU's own)."""
    if choice is None:
        return values
    o = choice.owned
    fill = {
        name: f"{getattr(o, name):g}"
        for name in (
            *("usd_per_kwh", "lifetime_years", "hours_per_day"),
            *("psu_efficiency", "rest_of_system_w"),
        )
    }
    if values.gpu == choice.hardware:
        fill["purchase_usd"] = f"{o.purchase_usd:g}"
    if choice.grid_region:
        fill["region"] = choice.grid_region
    empty = {k: v for k, v in fill.items() if not getattr(values, k).strip()}
    return dataclasses.replace(values, **empty)


class PlanPage(Page):
    def __init__(self, ctx: PageContext) -> None:
        super().__init__(ctx, "plan_page")
        self.results = ctx.results
        self.colors = ctx.colors
        self.plan: Plan | None = None
        self.selected: dict[str, Any] | None = None
        self.sources: Sources | None = None
        self._timer = QTimer(self, singleShot=True, interval=DELAY_MS)
        self._timer.timeout.connect(self.update_plan)
        self._column = QVBoxLayout(self)
        layout = self._column
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.message_bar)
        self.results.selection_changed.connect(self._selection_changed)
        self.panel = ctx.panel  # its owned price fills the electricity left empty here
        ctx.panel.price_changed.connect(self._timer.start)  # only prices that passed

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        self.ensure_built()
        super().showEvent(event)

    def ensure_built(self) -> None:
        """Load the catalog and presets and lay out the page (once), then plan."""
        if self.sources is not None:
            return
        self.sources = load_sources()
        self._build(self.sources)
        self._selection_changed()
        self.update_plan()

    def _build(self, sources: Sources) -> None:
        from gui.pages.plan.answer import PlanAnswer
        from gui.pages.plan.chart import PlanChart
        from gui.pages.plan.form import PlanForm
        from gui.pages.plan.table import PlanTableModel

        self.form: PlanForm = PlanForm(sources)
        self.answer: PlanAnswer = PlanAnswer()
        self.chart: PlanChart = PlanChart()
        self.table_model: PlanTableModel = PlanTableModel()
        self.table = QTableView(objectName="plan_table")
        self.table.setModel(self.table_model)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.headline = QLabel(wordWrap=True, objectName="plan_headline")
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.views = QTabWidget(objectName="plan_views")
        self.views.setDocumentMode(True)
        self.views.addTab(self._scrolled(self.answer), "Figures and what they rest on")
        # Its rows keep a line of text high, so that with many GPUs it scrolls.
        chart = QScrollArea(objectName="plan_chart_scroll")
        chart.setWidget(self.chart)
        chart.setWidgetResizable(True)
        chart.setFrameShape(QScrollArea.Shape.NoFrame)
        chart.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.views.addTab(chart, "Chart across hardware")
        self.views.addTab(self.table, "Table across hardware")
        self.export_chart_button = QPushButton("Export chart…")
        self.export_csv_button = QPushButton("Export table CSV…")
        self.export_chart_button.clicked.connect(lambda: self.export_chart_dialog("plan"))
        self.export_csv_button.clicked.connect(self.export_csv_dialog)
        self.form.changed.connect(self._timer.start)
        form = self._scrolled(self.form)
        form.setMaximumWidth(FORM_WIDTH_PX)
        self._column.addWidget(self._split(form, self._right()), 1)
        self.charts = {"plan": self.chart}
        self.chart.set_colors(self.colors)

    def _scrolled(self, widget: QWidget) -> QScrollArea:
        scroll = QScrollArea()
        scroll.setWidget(widget)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(widget.sizeHint().width() + 24)
        return scroll

    def _right(self) -> QWidget:
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.export_chart_button)
        buttons.addWidget(self.export_csv_button)
        right = QWidget()
        layout = QVBoxLayout(right)
        layout.setContentsMargins(4, 0, 0, 0)
        layout.addWidget(self.headline)
        layout.addWidget(self.views, 1)
        layout.addLayout(buttons)
        return right

    def _split(self, left: QWidget, right: QWidget) -> QSplitter:
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        return split

    # planning -------------------------------------------------------------------------------

    def _selection_changed(self, *_: Any) -> None:
        chosen = self.results.selected_results(limit=1)
        self.selected = chosen[0] if chosen else None
        if self.sources is not None:
            self.form.set_result(self.selected)
            self._timer.start()

    def update_plan(self) -> Plan | None:
        """Plan from the form now; a mistake gets its message and clears the figures."""
        self._timer.stop()
        if self.sources is None:
            return None
        from gui.pages.plan.inputs import make_plan

        try:
            values = with_panel_owned(self.form.values(), self.panel.accepted_owned)
            plan = make_plan(values, self.sources, self.selected)
        except ConfigError as exc:
            self._refuse(exc)
            return None
        self.plan = plan
        self.form.mark(None)
        if self.message_bar.level == "error":
            self.message_bar.dismiss()
        from engine.plan.report import comparison_rows
        from gui.pages.plan.answer import headline
        from gui.pages.plan.inputs import form_rows

        self.headline.setText(headline(plan))
        self.answer.show_plan(plan)
        self.table_model.set_rows(form_rows(comparison_rows(plan.comparison)), plan.row.gpu)
        self.chart.show_rows(plan.comparison, plan.row.gpu, chart_caption(plan, self.sources))
        self._set_exports(True)
        return plan

    def _refuse(self, exc: ConfigError) -> None:
        from gui.pages.plan.inputs import FIELD_LABELS, form_words

        self.plan = None
        label = FIELD_LABELS.get(exc.field, exc.field)
        self.message_bar.show_message(f"{label}: {form_words(exc.message)}", "error")
        self.form.mark(exc.field)
        from gui.pages.plan.answer import headline

        self.headline.setText(headline(None))
        self.answer.show_plan(None)
        self.table_model.set_rows([], "")
        self.chart.clear_rows()
        self._set_exports(False)

    def _set_exports(self, enabled: bool) -> None:
        self.export_chart_button.setEnabled(enabled)
        self.export_csv_button.setEnabled(enabled)

    # exports --------------------------------------------------------------------------------

    def export_csv_dialog(self) -> None:
        name = f"epochcost-plan-{_dt.date.today().isoformat()}.csv"
        path = self.ask_save_path("Export plan table", name, "CSV (*.csv)")
        if path is not None:
            self.export_csv(path)

    def nothing_to_export(self) -> str:
        return "Nothing to export: the inputs give no plan" if self.plan is None else ""

    def export_chart(self, name: str, path: Path) -> Path | None:
        """The chart (both panels and the caption) as PNG or SVG, by the suffix."""
        if self.plan is None:
            return self.report_saved(lambda: path)  # says there is nothing to export
        copy = self.chart.export_copy()
        try:
            return self.report_saved(lambda: export.export_chart(copy.export_item, path))
        finally:
            copy.deleteLater()

    def table_frame(self) -> Any:
        """The comparison table, raw numbers, with the assumptions every row shares."""
        return self._frame()

    def _frame(self) -> Any:
        import pandas as pd

        from engine.plan.report import assumptions, comparison_rows
        from gui.pages.plan.inputs import form_rows

        assert self.plan is not None
        shared = assumptions(self.plan.inputs)
        rows = form_rows(comparison_rows(self.plan.comparison))
        for row in rows:
            row["notes"] = "; ".join(row["notes"])
            for key in ("compute", "precision", "mfu", "power", "runs_table", "scaling"):
                row[f"assumed_{key}"] = shared[key]
        return pd.DataFrame(rows)

    # theme ----------------------------------------------------------------------------------

    def set_colors(self, colors: theme.PlotColors) -> None:
        self.colors = colors
        super().set_colors(colors)
