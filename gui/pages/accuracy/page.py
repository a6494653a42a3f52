"""The Accuracy tab: what it costs to train a model to an accuracy, per batch size.

The model, framework, device, precision and price are the configuration panel's
(gui/pages/accuracy/inputs.py); the form (gui/pages/accuracy/form.py) adds the data set and the
goal. The page lays out and shows; its StudyController (gui/pages/accuracy/controller.py) runs
the study: every batch size and repeat in its own worker process on a BackgroundJob
(gui/pages/accuracy/study.py), each result stored under the study id as it ends. The page shows
live learning curves
(gui/pages/accuracy/curves.py), a table per batch size (gui/pages/accuracy/table.py) and the cost
charts (gui/pages/accuracy/cost_charts.py). Cancel stops the run in progress, keeps what ended.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.accuracy.repeats import summarise
from engine.accuracy.study import StudyPlan
from engine.core.errors import ConfigError
from engine.core.events import Eval, Failed, Finished, Phase
from engine.workloads import data
from gui.common import activity, export, settings
from gui.common.background import JobError
from gui.common.number_field import InputError
from gui.common.theme import PlotColors
from gui.pages.accuracy import study as accuracy_study
from gui.pages.accuracy.controller import STOP_TIMEOUT_S, StudyController
from gui.pages.accuracy.cost_charts import CostCharts
from gui.pages.accuracy.curves import LearningCurves
from gui.pages.accuracy.download import DataFolders
from gui.pages.accuracy.form import AccuracyForm
from gui.pages.accuracy.inputs import PANEL_FIELDS, panel_base
from gui.pages.accuracy.table import AccuracyTable
from gui.pages.base import Page, PageContext

CHARTS_MIN_HEIGHT_PX = 340  # the chart tabs: a plot, its axes, legend and caption legible


class AccuracyPage(Page):
    export_size = (900, 560)  # a chart's size in an exported file, as the Run tab's
    details_title = "Study details"

    def __init__(self, ctx: PageContext) -> None:
        super().__init__(ctx, "accuracy_page")
        self.panel = ctx.panel
        self.controller = StudyController(self)
        self.plan_ok = False  # the inputs describe a study that can start

        self.form = AccuracyForm()
        self.folders = DataFolders(self, self.form, self.prefs)  # Browse…, Download…
        self.download = self.folders.download
        self.run_button = QPushButton("Run study", objectName="run_study")
        self.cancel_button = QPushButton("Cancel", objectName="cancel_study")
        self.progress = QProgressBar(objectName="study_progress")
        self.progress.setFormat("%v of %m runs")
        self.progress.hide()  # until a study starts
        self.status = QLabel(wordWrap=True, objectName="study_status")
        self.curves = LearningCurves(ctx.colors)
        self.costs = CostCharts(ctx.colors)
        self.charts = {**self.curves.charts, **self.costs.charts}
        self.table_box = AccuracyTable()
        self.table = self.table_box.model
        self._build()
        self._wire()
        self.form.restore(self.prefs.mapping(settings.ACCURACY_FORM))
        self.validate()

    # Layout ------------------------------------------------------------------------------

    def _build(self) -> None:
        left = QWidget()
        column = QVBoxLayout(left)
        heading = QLabel(
            "<b>Cost to accuracy</b> of the model, device and price set on the left: each "
            "batch size trains to the goal, repeated.",
            wordWrap=True,
        )
        column.addWidget(heading)
        column.addWidget(self.form)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button, 1)
        buttons.addWidget(self.cancel_button)
        column.addLayout(buttons)
        column.addWidget(self.progress)
        column.addWidget(self.status)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(left)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(160)  # it scrolls; the window may be narrow
        scroll.setMaximumWidth(440)

        # Two charts a tab, side by side: four in a grid leave each too small to read
        # beside the form at the window's usual size.
        self.chart_tabs = QTabWidget(objectName="accuracy_charts")
        self.chart_tabs.setDocumentMode(True)
        # Never squashed (a message above takes its height from the page, which then scrolls).
        self.chart_tabs.setMinimumHeight(CHARTS_MIN_HEIGHT_PX)
        for title, pair in (("Learning curves", self.curves.charts), ("Cost", self.costs.charts)):
            tab = QWidget()
            row = QHBoxLayout(tab)
            row.setContentsMargins(0, 0, 0, 0)
            for chart in pair.values():
                row.addWidget(chart)
            self.chart_tabs.addTab(tab, title)
        self.export_button = QToolButton(objectName="export_chart")
        self.export_button.setText("Export chart…")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.export_button)
        for name, chart in self.charts.items():
            menu.addAction(
                f"{chart.plot.titleLabel.text}…", lambda n=name: self.export_chart_dialog(n)
            )
        self.export_button.setMenu(menu)
        corner = QWidget()  # beside the charts it exports, clear of the window's edge
        corner_row = QHBoxLayout(corner)
        corner_row.setContentsMargins(0, 0, 8, 2)
        corner_row.addWidget(self.export_button)
        self.chart_tabs.setCornerWidget(corner)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.chart_tabs)
        right.addWidget(self.table_box)
        right.setStretchFactor(0, 4)
        right.setStretchFactor(1, 1)

        body = QSplitter(Qt.Orientation.Horizontal)
        body.addWidget(scroll)
        body.addWidget(right)
        body.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.message_bar)
        layout.addWidget(body, 1)

    def _wire(self) -> None:
        self.form.changed.connect(self.validate)
        self.panel.validity_changed.connect(self.validate)
        self.ctx.activity.changed.connect(self._update_buttons)
        self.controller.study_event.connect(self._on_event)
        self.controller.stored.connect(self._on_stored)
        self.controller.ended.connect(self._on_ended)
        self.run_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.panel.cancel_requested.connect(self.cancel)  # its Cancel is enabled during a study
        self.table_box.csv_button.clicked.connect(self.export_csv_dialog)
        self.folders.status.connect(self.status.setText)
        self.folders.message.connect(self.message_bar.show_message)
        self.folders.running_changed.connect(self._update_buttons)

    def set_colors(self, colors: PlotColors) -> None:
        if colors != self.curves.colors:
            self.curves.set_colors(colors)
            self.costs.set_colors(colors)
            results = self.controller.results
            self.costs.show_summaries(summarise(results))
            self.costs.show_runs(results, *self.controller.projections)

    # Validation --------------------------------------------------------------------------

    def validate(self) -> StudyPlan | None:
        """The study the inputs describe, or None with each reason shown beside its field."""
        values, panel_errors = self.panel.values()
        try:
            plan: StudyPlan | None = self.form.plan(panel_base(values, panel_errors))
            errors: dict[str, str] = {}
        except ConfigError as exc:
            plan, errors = None, {exc.field: exc.message}
            errors.update(self._form_text_errors(values, panel_errors))
        self.form.show_errors(errors)
        try:
            self.form.show_dataset(data.describe(self.form.dataset_spec))
        except ConfigError:
            self.form.show_dataset(None)
        self.plan_ok = plan is not None
        self._update_buttons()
        return plan

    def _form_text_errors(self, values: dict[str, Any], wrong: dict[str, str]) -> dict[str, str]:
        """The form's text that does not read, found while the panel holds a mistake (so that
        each is marked at once, not after the panel is fixed)."""
        base = {k: values[k] for k in PANEL_FIELDS if k in values and k not in wrong}
        try:
            self.form.plan(base)
        except InputError as exc:
            return {exc.field: exc.message}
        except ConfigError:  # about the panel's fields: said once they read
            pass
        return {}

    def _update_buttons(self) -> None:
        running = self.controller.running
        other = self.ctx.activity.reason(besides=activity.STUDY)
        busy = running or bool(other) or self.download.running
        self.run_button.setEnabled(self.plan_ok and not busy)
        self.run_button.setToolTip(other)
        self.cancel_button.setEnabled(running)

    # Study -------------------------------------------------------------------------------

    def start(self) -> bool:
        """Start the study the form describes; False (with a message) when it cannot."""
        if self.controller.running or self.ctx.activity.busy(besides=activity.STUDY):
            return False
        plan = self.validate()
        if plan is None:
            self.message_bar.show_message(
                "The study cannot start: fix the field marked in red.", "error"
            )
            return False
        self.message_bar.dismiss()
        self.prefs.set(settings.ACCURACY_FORM, self.form.state())
        base = plan.base
        text = caption(plan, self.panel.device.currentText())
        self.curves.begin(plan.batch_sizes, plan.repeats, base.target_accuracy, text)
        self.chart_tabs.setCurrentIndex(0)
        self.costs.begin(plan.batch_sizes, base.usd_per_hour is not None, text)
        self.table.clear()
        self.progress.setRange(0, len(plan.configs()))
        self.progress.setValue(0)
        self.progress.show()
        self.status.setText("Starting the first worker…")
        spec = self.ctx.spec_for(base.framework)  # the framework's chosen Python
        self.controller.start(plan, self.ctx.store, spec)
        self._set_running(True)
        return True

    def cancel(self) -> None:
        if self.controller.cancel():
            self.status.setText("Cancelling: the run in progress stops, finished runs stay…")

    def _set_running(self, running: bool) -> None:
        self.form.set_running(running)
        self.ctx.activity.set(activity.STUDY, running)  # the study's settings stay as started
        self._update_buttons()

    def _on_event(self, item: Any) -> None:
        """Show an event of the study's runs (the controller has counted it)."""
        runs = self.controller.runs_started
        if isinstance(item, Eval):
            self.curves.add(item)
            self.status.setText(
                f"Run {runs} of {self.progress.maximum()}: batch "
                f"{item.batch_size}, repeat {item.repeat + 1} · iteration {item.iteration:,} · "
                f"accuracy {item.accuracy:.1%} · training {item.train_seconds:.1f} s"
            )
        elif isinstance(item, Phase) and item.phase != "measuring":
            self.status.setText(
                f"Run {runs} of {self.progress.maximum()}: {item.phase} {item.detail}".strip()
            )
        elif isinstance(item, Finished):
            self.curves.mark_point(item.result)
        elif isinstance(item, Failed) and item.kind not in ("cancelled", "config"):
            batch = f"Batch {item.batch_size}: " if item.batch_size else ""
            self.message_bar.show_message(
                f"{batch}{item.kind}: {item.message}", "error", item.traceback
            )

    def _on_stored(self, _result: dict[str, Any]) -> None:
        results = self.controller.results
        summaries = summarise(results)
        self.table.set_summaries(summaries)
        self.costs.show_summaries(summaries)
        self.costs.show_runs(results)
        self.progress.setValue(len(results))
        self.ctx.results.refresh()

    def _on_ended(self, outcome: Any) -> None:
        """The study's thread has ended: say how it went."""
        plan = self.controller.plan
        self.curves.end()
        self._set_running(False)
        if isinstance(outcome, accuracy_study.StudyDone):
            self.costs.show_runs(self.controller.results, *self.controller.projections)
            assert plan is not None
            self.message_bar.show_message(*accuracy_study.done_message(plan, outcome.outcome))
        elif isinstance(outcome, accuracy_study.StudyRefused):
            self.message_bar.show_message(f"The settings were refused: {outcome.message}")
        elif isinstance(outcome, JobError):
            self.message_bar.show_message(
                f"The study stopped: {outcome.message}", "error", outcome.details
            )
        self.status.setText(f"Study {plan.study_id}" if plan else "")

    # Exports -----------------------------------------------------------------------------

    def export_csv_dialog(self) -> None:
        stamp = _dt.date.today().isoformat()
        path = self.ask_save_path("Export table", f"epochcost-accuracy-{stamp}.csv", "CSV (*.csv)")
        if path is not None:
            self.export_csv(path)

    def table_frame(self) -> Any:
        if self.table.frame is None:
            raise export.ExportError("no study to export yet: run one first")
        return self.table.frame

    # Window ------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.controller.running

    def shutdown(self) -> None:
        """Stop the study and any download, and wait for them (window close)."""
        self.controller.shutdown()
        self.download.stop(STOP_TIMEOUT_S)
        self.curves.timer.stop()
        self.prefs.set(settings.ACCURACY_FORM, self.form.state())


def caption(plan: StudyPlan, device_label: str) -> str:
    """The lines under every chart: what trained where, to what, at which price, when."""
    c = plan.base
    price = c.price.describe() if c.price else "no price"
    goal = (
        f"to {c.target_accuracy:.1%}"
        if c.target_accuracy is not None
        else f"until stable (±{c.band * 100:g} pt, {c.patience} evals)"
    )
    dataset = Path(c.dataset).name if c.dataset not in data.BUILTIN else c.dataset
    # Short lines: a chart is half the page wide, and a chart's caption does not wrap.
    return "<br>".join(
        (
            f"{c.model} · {c.framework} · {c.precision} · {plan.repeats} repeat(s)",
            device_label,
            f"{dataset} · {goal}",
            f"{price} · {_dt.date.today().isoformat()} · epochcost",
        )
    )
