"""The Sweep tab: throughput, memory fill and the cost of an epoch across batch sizes, or
across another axis (a study, gui/pages/sweep/study_pane.py, its chart's x axis the axis).

The page adds the batch sizes (or the max-fit search) to the panel's settings and hands the
engine.sweep.runner.Sweep to its SweepController (gui/pages/sweep/controller.py), which runs it;
the page shows, in the widgets its body lays out (gui/pages/sweep/body.py): points and verdicts
(engine.sweep.summary) appear as trials end, each stored with the sweep's group id. Cancel
keeps the finished points. A sweep and a single run never measure at once: they would share
the device and spoil the timings.
Under the table, a stored scaling study's efficiency against processes (sweep/scaling.py).
"""

from __future__ import annotations

import datetime as _dt
import sqlite3
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QVBoxLayout

from engine.core.errors import ConfigError
from engine.core.events import Phase, Step
from engine.measure.config import RunConfig
from engine.results import report
from engine.sweep.events import (
    SearchFinished,
    SweepEvent,
    SweepFinished,
    TrialFinished,
    TrialProgress,
    TrialStarted,
)
from engine.sweep.summary import SearchOutcome, SweepSummary
from gui.common import activity, export
from gui.common.background import JobError
from gui.pages.base import Page, PageContext
from gui.pages.sweep.body import SweepBody
from gui.pages.sweep.controller import SweepController
from gui.pages.sweep.study_pane import StudyPane
from gui.pages.sweep.text import caption, count, notes_text, verdict_marks, verdict_text

if TYPE_CHECKING:
    from engine.sweep.runner import Sweep

READY = "Ready: set the batch sizes (or Find max batch) and press Start sweep"
READY_STUDY = "Ready: set the values and press Start sweep (each a run at the panel's batch size)"


class SweepPage(Page):
    running_changed = Signal(bool)  # False only once the job's thread (and worker) has ended
    details_title = "Sweep details"

    def __init__(self, ctx: PageContext) -> None:
        super().__init__(ctx, "sweep_page")
        self.panel = ctx.panel
        self.controller = SweepController(self)
        self._current = ""  # what the sweep does now, as the status line says it

        self.study = StudyPane(ctx, self)
        body = SweepBody(ctx, self.study)  # its widgets and layout (gui/pages/sweep/body.py)
        self.form, self.status, self.verdicts = body.form, body.status, body.verdicts
        self.start_button, self.cancel_button = body.start_button, body.cancel_button
        self.chart_button, self.csv_button = body.chart_button, body.csv_button
        self.chart, self.scaling = body.chart, body.scaling
        self.model, self.table = body.model, body.table
        self.views, self.tables = body.views, body.tables
        self.charts = {"sweep": self.chart, "scaling": self.scaling.chart, **self.study.charts}
        self.status.setText(READY)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message_bar)
        body.lay_out(layout)

        self.clock = QTimer(self)
        self.clock.setInterval(1000)
        self.clock.timeout.connect(self._show_status)
        self.controller.sweep_event.connect(self._on_event)
        self.controller.ended.connect(self._on_ended)
        self.study.controller.study_event.connect(self._on_study_event)
        self.study.controller.ended.connect(self._on_study_ended)
        self.form.axis.currentIndexChanged.connect(lambda _: self._show_axis())
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.chart_button.clicked.connect(self._export_chart)
        self.csv_button.clicked.connect(self.export_csv_dialog)
        self.form.changed.connect(self._update_buttons)
        ctx.activity.changed.connect(self._update_buttons)
        self.panel.buttons_changed.connect(self._update_buttons)
        self.panel.device.currentIndexChanged.connect(lambda _: self.form.set_cpu(self._on_cpu()))
        self.panel.cancel_requested.connect(self.cancel)  # its Cancel stops a sweep too
        self.form.set_cpu(self._on_cpu())
        self._set_exports_enabled(False)
        self._update_buttons()  # built while something measures: its Start waits

    # ---- state -----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.controller.running or self.study.running

    def _show_axis(self) -> None:
        """The batch sweep's chart, table and verdicts, or the last study's."""
        batch = self.form.axis_name == "batch"
        for stack in (self.views, self.tables):
            stack.setCurrentIndex(0 if batch else 1)
        sweep, study = self.controller.summary, self.study.controller.summary
        if batch:
            self.verdicts.setText(verdict_text(sweep) + notes_text(sweep) if sweep else "")
        else:
            self.verdicts.setText(self.study.verdicts(study, notes=True) if study else "")
        self._set_exports_enabled(bool((self.model if batch else self.study.model).rowCount()))
        self._show_status()

    def _on_cpu(self) -> bool:
        """Whether the panel's device is the CPU (where the memory limit applies)."""
        panel = self.panel
        wanted = panel.device.currentData()
        device = next((d for d in panel.devices if d.id == wanted), None)
        if device is None and panel.devices:
            device = panel.devices[0]
        return device is None or device.kind == "cpu"

    def _update_buttons(self) -> None:
        busy = self.ctx.activity.reason(besides=activity.SWEEP)
        ready = self.form.ready and self.panel.config is not None
        self.start_button.setEnabled(ready and not self.running and not busy)
        self.start_button.setToolTip(
            f"{busy}: both would share the machine"
            if busy
            else ""
            if self.panel.config is not None
            else "Fix the run settings on the left first"
        )
        self.cancel_button.setEnabled(self.running)

    def _set_exports_enabled(self, enabled: bool) -> None:
        self.chart_button.setEnabled(enabled)
        self.csv_button.setEnabled(enabled)

    # ---- start, cancel, stop ---------------------------------------------------------------

    def start(self) -> bool:
        """Start a sweep with the panel's run settings; False, with a message, if it cannot."""
        config = None if self.running else self._checked_config()
        if config is None:
            return False
        device = self.panel.device.currentText()
        try:
            if self.form.axis_name == "batch":
                self._begin(self._new_sweep(config))
            else:  # a study over another axis: the pane makes, runs and shows it
                assert self.form.study_inputs is not None
                self.study.start(config, self.form.study_inputs, device)
        except ConfigError as exc:
            self._tell(str(exc))
            return False
        except (sqlite3.Error, OSError) as exc:
            self._tell(f"The results database could not be opened: {exc}")
            return False
        self.message_bar.dismiss()
        self.verdicts.clear()
        self._set_exports_enabled(False)
        self._set_running(True)
        return True

    def _checked_config(self) -> RunConfig | None:
        """The panel's run settings when a sweep may start now; None, with a message, if not."""
        busy = self.ctx.activity.reason(besides=activity.SWEEP)
        if busy:
            self._tell(f"{busy}; start the sweep once it has ended.")
            return None
        config = self.panel.config
        if config is None:
            wrong = ", ".join(self.panel.errors) or "the run settings"
            self._tell(f"Fix the run settings on the left first ({wrong}).")
            return None
        if not self.form.validate():
            self._tell(self.form.describe_errors())
            return None
        return config

    def _new_sweep(self, config: RunConfig) -> Sweep:
        """The batch sweep the form describes (ConfigError, sqlite3.Error, OSError: not)."""
        inputs = self.form.inputs
        assert inputs is not None
        # Here, not at the top: engine.sweep.runner imports the store's pandas, which the window
        # loads after its first paint (gui/common/lazy_store.py).
        from engine.sweep.runner import Sweep

        config = config.with_changes(memory_limit_bytes=inputs.memory_limit_bytes)
        # Each trial's worker starts as a single run's would: the framework's chosen Python.
        spec = self.ctx.spec_for(config.framework)
        return Sweep(config, inputs.plan, store=self.ctx.store(), spec=spec)

    def _begin(self, sweep: Sweep) -> None:
        self._current = "starting"
        self.chart.reset(sweep.plan.batch_sizes or (sweep.plan.start,))
        self.chart.set_priced(sweep.config.usd_per_hour is not None)
        self.chart.set_caption(caption(sweep.config, self.panel.device.currentText()))
        self.model.clear()
        self.controller.start(sweep)

    def cancel(self) -> None:
        """Stop the sweep; the finished points stay (measured, stored and on the chart)."""
        if self.controller.cancel() or self.study.controller.cancel():
            self._current = "cancelling"
            self.cancel_button.setEnabled(False)
            self._show_status()

    def shutdown(self) -> None:
        """Stop the sweep and wait for its thread and worker (the window is closing)."""
        self.controller.shutdown()
        self.study.controller.shutdown()

    def _set_running(self, running: bool) -> None:
        self.form.set_running(running)
        self.ctx.activity.set(activity.SWEEP, running)  # no other measurement meanwhile
        if running:
            self.clock.start()
        else:
            self.clock.stop()
        self._update_buttons()
        self._show_status()
        self.running_changed.emit(running)

    # ---- events ----------------------------------------------------------------------------

    def _on_event(self, event: SweepEvent) -> None:
        """Show an event of the sweep running now (the controller has kept it)."""
        if isinstance(event, TrialStarted):
            self._current = f"trial {event.index}: batch {event.batch_size} ({event.role})"
            self.chart.show_running(event.batch_size)
        elif isinstance(event, TrialProgress):
            self._on_progress(event)
        elif isinstance(event, TrialFinished) and event.trial is not None:
            self.chart.show_running(None)
            self._current = "starting the next trial"
            self._show_points(self.controller.summary_so_far())
            if event.trial.result is not None:  # stored by the sweep before it said so
                self.ctx.results.refresh()
        elif isinstance(event, SearchFinished):
            self._show_points(self.controller.summary_so_far())
        elif isinstance(event, SweepFinished):
            self._show_points(event.summary)
        self._show_status()

    def _on_study_event(self, event: Any) -> None:
        """Show an event of the study running now (the pane draws it)."""
        summary = self.study.on_event(event)
        if summary is not None:
            self.verdicts.setText(self.study.verdicts(summary, notes=False))
            self._set_exports_enabled(bool(summary.points))
        self._show_status()

    def _on_study_ended(self, outcome: Any) -> None:
        """The study's thread and worker have ended: say how it went."""
        self.study.ended()
        self._set_running(False)
        said = self.study.outcome_message(outcome)
        if said is not None:
            self._tell(*said)
        if self.study.controller.summary is not None:
            self.verdicts.setText(self.study.verdicts(self.study.controller.summary, notes=True))

    def _on_progress(self, event: TrialProgress) -> None:
        head = self._current.split(" · ")[0]
        if isinstance(event.event, Phase):
            self._current = f"{head} · {event.event.phase}"
        elif isinstance(event.event, Step):
            kind = "measuring" if event.event.measured else "warm-up"
            done = event.event.index + event.event.steps  # the steps since the last event
            self._current = f"{head} · {kind} step {done}"

    def _show_points(self, summary: SweepSummary) -> None:
        search = summary.search or SearchOutcome()
        self.chart.show_points(summary.points)
        self.chart.show_verdicts(
            summary.cheapest_batch,
            summary.knee_batch,
            search.max_fit_batch,
            search.recommended_batch,
        )
        self.model.set_points(summary.points, verdict_marks(summary))
        self.verdicts.setText(verdict_text(summary))
        self._set_exports_enabled(bool(summary.points))

    def _on_ended(self, outcome: Any) -> None:
        """The sweep's thread and worker have ended: say how it went."""
        self._current = ""
        self.chart.show_running(None)
        self._set_running(False)
        self._report(outcome)

    def _report(self, outcome: Any) -> None:
        if isinstance(outcome, JobError):
            self._tell(f"The sweep stopped on an error: {outcome.message}", details=outcome.details)
            return
        if not isinstance(outcome, SweepSummary):
            return  # the window is closing
        kept = len([p for p in outcome.points if p.status != "skipped"])
        if outcome.status == "cancelled":
            points = count(kept, "finished point")
            self._tell(f"Sweep cancelled; kept {points}.", level="info")
        elif outcome.error is not None:
            self._tell(f"The sweep stopped: {outcome.error.get('message')}")
        elif not outcome.any_fit:
            self._tell("No batch size trained: every one tried was out of memory or failed.")
        self.verdicts.setText(verdict_text(outcome) + notes_text(outcome))

    def _tell(self, text: str, level: str = "error", details: str = "") -> None:
        self.message_bar.show_message(text, level, details)

    def _show_status(self) -> None:
        c = self.controller
        if self.form.axis_name != "batch":  # (the axis is fixed while anything runs)
            self.status.setText(self.study.status_text() or READY_STUDY)
        elif c.running:
            elapsed = report.duration(c.elapsed_s)
            done = count(len([t for t in c.trials if t.status != "skipped"]), "trial")
            self.status.setText(f"{self._current} · {done} done · {elapsed} elapsed")
        elif c.summary is not None:
            s = c.summary
            done = count(len([t for t in s.trials if t.status != "skipped"]), "trial")
            self.status.setText(f"Sweep {s.status}: {done} in {report.duration(s.seconds)}")
        else:
            self.status.setText(READY)

    # ---- exports ---------------------------------------------------------------------------

    def _export_chart(self) -> None:
        self.export_chart_dialog("sweep" if self.views.currentIndex() == 0 else "study")

    def export_csv_dialog(self) -> None:
        name = f"epochcost-sweep-{_dt.date.today().isoformat()}.csv"
        path = self.ask_save_path("Export sweep points", name, "CSV (*.csv)")
        if path is not None:
            self.export_csv(path)

    def table_frame(self) -> Any:
        """The points: one row per batch size (or value of the study's axis), raw numbers, and
        the verdict column."""
        if self.tables.currentIndex() == 1:
            frame = self.study.table_frame()
            if frame is None:
                raise export.ExportError("no points yet")
            return frame
        frame = self.model.frame
        if frame is None:
            raise export.ExportError("no points yet")
        verdicts = [self.model.marks.get(int(b), "") for b in frame["batch_size"]]
        return frame.assign(verdict=verdicts)
