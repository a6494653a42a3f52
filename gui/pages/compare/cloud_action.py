"""Compare's "Measure on this instance…": from a cloud row to a stored cloud result.

The action plans the launch (gui/pages/compare/cloud_job.py: the run at once, SkyPilot's own check
of it on a background job, since the cloud program takes seconds), shows the estimate and asks for
the dollar figure to be accepted (gui/pages/compare/cloud_dialog.py), launches on a background
job, and says how it goes in the dialog, on the Run tab's message bar (the PageContext's
run_message) and on the Compare tab's; the Run tab's plots follow the instance's worker
(follow_run, run_event). While it runs the Activity holds CLOUD: no local run,
sweep or study starts, and the panel's Cancel stops it as the dialog's does. The result lands
in Past runs, selected, beside the home run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QPushButton, QTableView, QWidget

from engine.core.errors import ConfigError
from engine.pricing.compare_rows import CompareRow
from gui.common import activity
from gui.common.background import BackgroundJob, JobError, dispose
from gui.common.catalog_source import CatalogSource
from gui.pages.base import PageContext
from gui.pages.compare import cloud_job
from gui.pages.compare.cloud_dialog import CloudDialog
from gui.pages.compare.cloud_job import CloudJob, Ended, Plan

ACTION = "Measure on this instance…"
TOOLTIP = (
    "Run the selected result's settings on the selected cloud machine (or on each of "
    "several selected rows, one after another) through SkyPilot: the estimate first, "
    "then a launch you confirm"
)
RUNNING = "A cloud measurement is running"
RUN_TAB_EVERY_MS = 5000
STAGE_WORDS = {
    "provisioning": "provisioning the instance",
    "setup": "setting up (installing the framework)",
    "starting": "starting the worker",
    "warm-up": "warming up",
    "measuring": "measuring",
    "bringing home": "bringing the result home, then tearing down",
}


def action_text(rows: int) -> str:
    """The action's words for `rows` selected rows: this instance, or these N."""
    return ACTION if rows <= 1 else f"Measure on these {rows} instances…"


def follow_selection(view: QTableView, *widgets: QPushButton | QAction) -> None:
    """Keep each of `widgets` (the button, the rows' menu item) naming how many of the
    table's selected rows it measures on."""

    def relabel() -> None:
        text = action_text(len(view.selectionModel().selectedRows()))
        for widget in widgets:
            widget.setText(text)

    view.selectionModel().selectionChanged.connect(relabel)
    view.model().modelReset.connect(relabel)  # a reset clears the selection without a signal


def can_measure(row: CompareRow | None) -> str:
    """Why `row` cannot be measured on ('' when it can)."""
    if row is None:
        return "Select a cloud machine in the table first."
    if row.local:
        return "This is the machine the result ran on: choose a cloud machine to measure on."
    if row.historical:
        return f"{row.instance_type} is a historical price, not a machine to rent today."
    return ""


class CloudAction(QObject):
    def __init__(
        self,
        ctx: PageContext,
        source: CatalogSource,
        page: QWidget,
        say: Callable[[str, str], None],
    ) -> None:
        super().__init__(page)
        self.ctx = ctx
        self.source = source
        self.page = page
        self.say = say  # the Compare tab's message bar: (text, level)
        self.job = CloudJob(ctx.store, self)
        self.dialog: CloudDialog | None = None
        self._checking: BackgroundJob | None = None  # SkyPilot's check of an offered launch
        self._queue: list[Plan] = []  # the instances still to measure, one after another
        # The Run tab's line says what is billed so far: renewed every few seconds, not each
        # second (the bar shows itself again on every message).
        self._clock = QTimer(self, interval=RUN_TAB_EVERY_MS)
        self._clock.timeout.connect(lambda: self._tell_run_tab(self._stage_words()))
        self.job.stage.connect(self._on_stage)
        self.job.line.connect(self._on_line)
        self.job.engine_event.connect(ctx.run_event)  # the Run tab's plots follow the run
        self.job.ended.connect(self._on_ended)
        ctx.panel.cancel_requested.connect(self.cancel)  # the panel's Cancel stops it too

    def offer(self, result: dict[str, Any] | None, rows: list[CompareRow], spot: bool) -> bool:
        """Show the estimate of measuring `result`'s settings on each of `rows`' machines (one
        confirmation with the total) and ask to launch; False (and a sentence why) when they
        cannot be offered. SkyPilot checks them on a background job first."""
        row = rows[0] if rows else None
        why = can_measure(row) if result is not None else "Select a result first."
        for other in rows[1:]:
            why = why or can_measure(other)
        if not why and self.job.running:
            why = f"{RUNNING} on {self.job.plan.label if self.job.plan else 'a cloud'}."
        busy = self.ctx.activity.reason(besides=activity.CLOUD)
        if not why and busy:
            why = f"{busy}; measure on the cloud once it has ended."
        if why:
            self.say(why, "info")
            return False
        assert result is not None
        where = ", ".join(f"{r.cloud} {r.instance_type}" for r in rows)
        if self._checking is not None:
            self.say(f"SkyPilot is still checking a launch; ask for {where} after.", "info")
            return False
        cat = self.source.get()
        runs = []
        for one in rows:
            try:
                runs.append(cloud_job.prepare(cat, one, result, spot))
            except ConfigError as exc:  # no cloud environment (how to make it), or a run it
                # cannot take
                self.say(
                    f"Cannot measure on {one.cloud} {one.instance_type}: {exc.message}", "error"
                )
                return False
        self.say(f"SkyPilot checks the launch on {where} (its own validation, offline)…", "info")
        stop = threading.Event()

        def work(_emit: Any) -> list[Plan] | ConfigError:
            try:
                return cloud_job.checked(cat, runs, stop)
            except ConfigError as exc:  # SkyPilot refuses one: its reason
                return exc

        job = BackgroundJob(work, cancel=stop.set)
        job.done.connect(lambda outcome: self._on_checked(outcome, where))
        self._checking = job
        job.start()
        return True

    def _on_checked(self, outcome: object, where: str) -> None:
        """SkyPilot's answer: the dialog with the estimates and their total, or one line why
        not."""
        dispose(self._checking)
        self._checking = None
        if isinstance(outcome, ConfigError):
            self.say(f"Cannot measure on {where}: {outcome.message}", "error")
            return
        if not isinstance(outcome, list) or not outcome:
            why = outcome.message if isinstance(outcome, JobError) else "no answer"
            self.say(f"Cannot measure on {where}: SkyPilot's check failed ({why})", "error")
            return
        plans: list[Plan] = outcome
        self.say(f"SkyPilot accepts the launch on {where}.", "info")
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = CloudDialog(plans, self.page)
        self.dialog.launch_requested.connect(lambda: self.launch(plans))
        self.dialog.cancel_requested.connect(self.cancel)
        self.dialog.open()

    def launch(self, plans: list[Plan]) -> bool:
        """Launch the first of `plans` (the dialog's Launch, once their bill was accepted); the
        others follow, one after another, each once the one before is torn down."""
        busy = self.ctx.activity.reason(besides=activity.CLOUD)
        if self.job.running or busy:
            self.say(f"{busy or RUNNING}: not launched.", "info")
            return False
        self._queue = list(plans[1:])
        self._start(plans[0])
        return True

    def _start(self, plan: Plan) -> None:
        self.ctx.activity.set(activity.CLOUD, True)
        self.job.start(plan)
        instance = plan.cloud.instance
        gpu = f"{instance.gpu_model} on " if instance.gpu_model else ""
        self.ctx.follow_run(plan.cloud.config, f"{gpu}{plan.label}")
        self._clock.start()
        if self.dialog is not None:
            self.dialog.show_launched(self.job.billed_so_far, plan)
        more = f" ({len(self._queue)} more after it)" if self._queue else ""
        self.say(
            f"Measuring on {plan.label}{more}: progress on the Run tab and in its dialog; the "
            "panel's Cancel tears the cluster down.",
            "info",
        )

    def cancel(self) -> None:
        """Tear the cluster down now (the panel's Cancel, the dialog's)."""
        if not self.job.running or self.job.cancel_asked:
            return
        self.job.cancel()
        if self.dialog is not None:
            self.dialog.show_cancelling()
        self._tell_run_tab(self._stage_words())

    def _tell_run_tab(self, what: str) -> None:
        minutes, usd = self.job.billed_so_far()
        label = self.job.plan.label if self.job.plan else "the cloud"
        self.ctx.run_message(
            f"Cloud measurement on {label} (Compare tab): {what} · {minutes:.1f} min, at most "
            f"${usd:.2f} billed so far · the panel's Cancel tears it down",
            "info",
        )

    def _stage_words(self) -> str:
        if self.job.cancel_asked:
            return "cancelled: tearing the cluster down"
        return STAGE_WORDS.get(self.job.current, self.job.current)

    def _on_stage(self, stage: str) -> None:
        if self.dialog is not None:
            self.dialog.show_stage(stage)
        self._tell_run_tab(self._stage_words())

    def _on_line(self, text: str) -> None:
        if self.dialog is not None:
            self.dialog.show_line(text)

    def _on_ended(self, ended: Ended) -> None:
        self._clock.stop()
        self.ctx.activity.set(activity.CLOUD, False)
        stopped = self.job.cancel_asked
        if stopped and self._queue:
            ended = Ended(
                ended.result,
                f"{ended.text} The {len(self._queue)} instance(s) after it were not launched.",
                ended.level,
            )
            self._queue = []
        if self.dialog is not None:
            self.dialog.show_ended(ended, last=not self._queue)
            self.dialog.show()  # it may have been closed while the job went on
        self.ctx.run_message(ended.text, ended.level)
        self.say(ended.text, ended.level)
        if ended.result is not None:
            self.ctx.results.refresh(select=ended.result["run_id"])
        if self._queue:  # the next instance, now that this one is torn down
            self._start(self._queue.pop(0))

    def shutdown(self) -> None:
        """The window closes: a check is stopped; a running launch is cancelled and torn down
        first."""
        if self._checking is not None:
            self._checking.stop(timeout_s=30)
            dispose(self._checking)
            self._checking = None
        self._queue = []  # the window goes: nothing more is launched
        if self.dialog is not None:
            self.dialog.hide()
            self.dialog = None  # nothing to show the end in: the window goes
        self.job.shutdown()
