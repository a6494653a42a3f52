"""The Sweep tab's body: the form with Start and Cancel beside it, the status line with the
export buttons, the verdicts, and under them the chart and the points table (the batch sweep's,
or in the same place the study's: gui/pages/sweep/study_pane.py) over the scaling study's view.
The page (gui/pages/sweep/page.py) connects the buttons, starts and cancels, and shows here what
a sweep or a study finds."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
)

from gui.pages.base import PageContext
from gui.pages.sweep.chart import SweepChart
from gui.pages.sweep.form import SweepForm
from gui.pages.sweep.scaling import ScalingView
from gui.pages.sweep.study_pane import StudyPane
from gui.pages.sweep.table import PointsTable, SweepPointsModel


class SweepBody:
    """The body's widgets; `lay_out(layout)` puts them in the page's column. In `views` and
    `tables`, index 0 is the batch sweep's chart and table, index 1 the study's."""

    def __init__(self, ctx: PageContext, study: StudyPane) -> None:
        self.study = study
        self.form = SweepForm()
        self.start_button = QPushButton("Start sweep", objectName="start_sweep")
        self.cancel_button = QPushButton("Cancel", objectName="cancel_sweep")
        self.chart_button = QPushButton("Export chart…")
        self.csv_button = QPushButton("Export CSV…")
        self.status = QLabel(objectName="sweep_status")
        self.verdicts = QLabel(objectName="sweep_verdicts", wordWrap=True)
        self.verdicts.setTextFormat(Qt.TextFormat.RichText)
        # The line may be long; it gives way rather than widen the window (the verdicts wrap).
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.chart = SweepChart()
        self.chart.set_colors(ctx.colors)
        self.scaling = ScalingView(ctx.store, ctx.colors)
        self.model = SweepPointsModel()
        self.table = PointsTable(self.model)
        self.views, self.tables = QStackedWidget(), QStackedWidget()

    def lay_out(self, layout: QVBoxLayout) -> None:
        """The inputs, the status line, the verdicts, then the charts and tables (the stretch)."""
        buttons = QVBoxLayout()
        for button in (self.start_button, self.cancel_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        inputs = QHBoxLayout()
        inputs.addWidget(self.form, 1)
        inputs.addLayout(buttons)
        exports = QHBoxLayout()
        exports.addWidget(self.status, 1)
        exports.addWidget(self.chart_button)
        exports.addWidget(self.csv_button)
        for stack, widgets in (
            (self.views, (self.chart, self.study.view)),
            (self.tables, (self.table, self.study.table)),
        ):
            for widget in widgets:
                stack.addWidget(widget)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.views)
        split.addWidget(self.tables)
        split.addWidget(self.scaling)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout.addLayout(inputs)
        layout.addLayout(exports)
        layout.addWidget(self.verdicts)
        layout.addWidget(split, 1)
