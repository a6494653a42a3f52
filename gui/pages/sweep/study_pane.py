"""The Sweep tab's view of a study over an axis other than batch size: it makes the
engine.study.study.Study from the panel's run settings and the form's values, runs it on its
StudyController, and shows it: the study chart (x axis = the axis), beside it for a power-limit
study the time-against-energy chart, and the points table with the axis's value column. The
body (body.py) lays these out; the page (page.py) starts, cancels and says how a study ended in
its message bar.

A power-limit or precision study on a GPU priced as owned hardware prices each point with the
power that point drew (engine/study/owned.py): what trading a limit or a precision is about.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QHBoxLayout, QWidget

from engine.core.errors import ConfigError
from engine.core.events import Phase, Step
from engine.measure.config import RunConfig
from engine.results import report
from engine.study.axes import AXES
from engine.study.events import PointFinished, PointProgress, PointStarted, StudyFinished
from engine.study.summary import StudySummary
from gui.common.background import JobError
from gui.pages.base import PageContext
from gui.pages.sweep.form import StudyInputs
from gui.pages.sweep.study_chart import StudyChart
from gui.pages.sweep.study_controller import StudyController
from gui.pages.sweep.study_table import StudyPointsModel, StudyTable
from gui.pages.sweep.text import (
    count,
    in_gui_words,
    study_caption,
    study_marks,
    study_notes_text,
    study_verdict_text,
)
from gui.pages.sweep.tradeoff import TradeoffChart

if TYPE_CHECKING:
    from engine.study.study import Study

OWN_POWER_AXES = ("power-limit", "precision")  # each point priced at its own measured power


class StudyPane(QObject):
    def __init__(self, ctx: PageContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.controller = StudyController(self)
        self.chart = StudyChart()
        self.tradeoff = TradeoffChart()
        for chart in (self.chart, self.tradeoff):
            chart.set_colors(ctx.colors)
        self.tradeoff.hide()
        self.charts = {"study": self.chart, "tradeoff": self.tradeoff}
        self.view = QWidget(objectName="study_view")
        row = QHBoxLayout(self.view)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.chart, 2)
        row.addWidget(self.tradeoff, 1)
        self.model = StudyPointsModel(AXES["precision"]())
        self.table = StudyTable(self.model)
        self.current = ""  # what the study does now, as the status line says it

    @property
    def running(self) -> bool:
        return self.controller.running

    def new_study(self, config: RunConfig, inputs: StudyInputs) -> Study:
        """The study the form and the panel describe; ConfigError when it cannot run here (a
        power-limit study on the CPU), sqlite3.Error or OSError when the store cannot open."""
        from engine.study.study import Study  # here: it loads the store (see lazy_store.py)

        axis = AXES[inputs.axis]()
        config = config.with_changes(memory_limit_bytes=inputs.memory_limit_bytes)
        price, basis = self._owned_price(config, inputs.axis)
        try:
            return Study(
                config,
                axis,
                inputs.values,
                store=self.ctx.store(),
                spec=self.ctx.spec_for(config.framework),
                price_point=price,
                price_basis=basis,
            )
        except ConfigError as exc:  # said in the tab's words ("the Device on the left")
            raise ConfigError(exc.field, in_gui_words(exc.message)) from None

    def _owned_price(self, config: RunConfig, axis: str) -> tuple[Any, str]:
        """Each point's $/epoch owned, at its own measured power (a GPU's study of power limits
        or precisions priced as owned); (None, "") otherwise: the run's price."""
        owned = self.ctx.panel.accepted_owned
        if owned is None or axis not in OWN_POWER_AXES or config.device == "cpu":
            return None, ""
        from engine.pricing.owning import FIELDS
        from engine.study.owned import owned_epoch_price

        figures = {name: getattr(owned.owned, name, None) for name in FIELDS}
        figures["power_w"] = None  # each point's own
        return owned_epoch_price(figures, self.ctx.panel.price.source.get())

    def start(self, config: RunConfig, inputs: StudyInputs, device: str) -> None:
        """Make the study (new_study's errors) and run it; `device`: the panel's, in words."""
        study = self.new_study(config, inputs)
        shown = [study.axis.show(v) for v in study.values]
        words = study_caption(study.config, device, study.axis.name, shown)
        self.current = "starting"
        self.chart.begin(study.axis, study.values)
        priced = study.config.usd_per_hour is not None or study.price_point is not None
        self.chart.set_priced(priced)
        self.chart.set_caption(words)
        self.tradeoff.setVisible(study.axis.name == "power-limit")
        self.tradeoff.reset()
        self.tradeoff.set_caption(words)
        self.model.set_axis(study.axis)
        self.model.clear()
        self.controller.start(study)

    def on_event(self, event: Any) -> StudySummary | None:
        """Show an event of the study running now; the summary so far when it changed."""
        if isinstance(event, PointStarted):
            value = self.chart.axis.show(event.value) if self.chart.axis else event.value
            self.current = f"point {event.index}: {value}"
            self.chart.show_running(event.value)
        elif isinstance(event, PointProgress):
            head = self.current.split(" · ")[0]
            if isinstance(event.event, Phase):
                self.current = f"{head} · {event.event.phase}"
            elif isinstance(event.event, Step):
                kind = "measuring" if event.event.measured else "warm-up"
                self.current = f"{head} · {kind} step {event.event.index + event.event.steps}"
        elif isinstance(event, PointFinished):
            self.chart.show_running(None)
            self.current = "starting the next point"
            if event.point is not None and event.point.result is not None:
                self.ctx.results.refresh()  # stored by the study before it said so
            return self.show(self.controller.summary_so_far())
        elif isinstance(event, StudyFinished) and isinstance(event.summary, StudySummary):
            return self.show(event.summary)
        return None

    def show(self, summary: StudySummary) -> StudySummary:
        self.chart.show_points(summary)
        self.tradeoff.show_points(summary)
        self.model.set_points(summary.points, study_marks(summary))
        return summary

    def ended(self) -> None:
        self.current = ""
        self.chart.show_running(None)

    def status_text(self) -> str:
        """The status line: what runs now, or how the last study ended."""
        c = self.controller
        if c.running:
            done = count(len(c.points), "point")
            return f"{self.current} · {done} done · {report.duration(c.elapsed_s)} elapsed"
        s = c.summary
        if s is None:
            return ""
        done = count(len([p for p in s.points if p.ok]), "point")
        return f"{s.label[:1].upper()}{s.label[1:]} study {s.status}: {done} measured in " + (
            report.duration(s.seconds)
        )

    def outcome_message(self, outcome: Any) -> tuple[str, str, str] | None:
        """(text, level, details) for the message bar when the study ended, None if fine."""
        if isinstance(outcome, JobError):
            return f"The study stopped on an error: {outcome.message}", "error", outcome.details
        if not isinstance(outcome, StudySummary):
            return None  # the window is closing
        machine = outcome.error is not None and outcome.error.get("kind") == "machine"
        if outcome.status == "cancelled" and not machine:
            return (
                f"Study cancelled; kept {count(len(outcome.points), 'finished point')}.",
                ("info"),
                "",
            )
        if outcome.error is not None:
            return f"The study stopped: {outcome.error.get('message')}", "error", ""
        if not outcome.measured:
            return (
                "No value was measured: each was refused or failed (the table says why).",
                ("error"),
                "",
            )
        return None

    def verdicts(self, summary: StudySummary, notes: bool) -> str:
        return study_verdict_text(summary) + (study_notes_text(summary) if notes else "")

    def table_frame(self) -> Any:
        """The points: one row per value, raw numbers, and the verdict column."""
        frame = self.model.frame
        if frame is None:
            return None
        return frame.assign(verdict=[self.model.mark(v) for v in frame["value"]])
