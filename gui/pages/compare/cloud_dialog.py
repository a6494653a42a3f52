"""The "Measure on this instance…" dialog: the dry-run estimate, an explicit confirmation that
names the dollar figure, then the launch's stages, what has been billed so far, and Cancel.

Launch stays disabled until the box that names the bill is ticked, and it is never the default
button: Enter does not spend money. After the launch the same dialog follows the job (its
Cancel tears the cluster down) and ends with the job's sentence.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gui.common.elided_label import ElidedLabel
from gui.pages.compare.cloud_job import STAGES, Ended, Plan


def estimate_lines(plan: Plan) -> list[str]:
    """The dry run in words: the machine, its $/h with source and date, the minutes, dollars."""
    e, run = plan.estimate, plan.cloud
    price = e["price"]
    dated = f", {price['as_of']}" if price.get("as_of") else ""  # else the source says so
    note = f" ({e['price_note']})" if e["price_note"] and e["price_note"] != "undated" else ""
    run_minutes = e["estimated_minutes"] - e["startup_minutes"]
    c = run.config
    windows = c.measuring_text
    return [
        f"{plan.label} ({run.instance.region or 'any region'}): ${e['usd_per_hour']:,.4g}/h",
        f"Price: {price['source']}{dated}{note}",
        f"Run: {c.model} · {c.framework} · batch {c.batch_size} · {c.precision} on the "
        f"instance's GPU, {windows}",
        f"Estimate: start-up ~{e['startup_minutes']:g} min (provisioning, setup) + run "
        f"~{run_minutes:.1f} min = {e['estimated_minutes']:.1f} min, about "
        f"${e['estimated_usd']:.2f}",
        "The cluster is torn down when the job ends (and after 5 idle minutes at most); "
        "Cancel tears it down at any step and says what was billed.",
    ]


def bill_text(plans: list[Plan]) -> str:
    """The figure the user agrees to, as the confirmation names it: the total of every
    instance's estimate."""
    usd = sum(p.estimate["estimated_usd"] for p in plans)
    if len(plans) == 1:
        return f"about ${usd:.2f} (${plans[0].estimate['usd_per_hour']:,.4g}/h)"
    minutes = sum(p.estimate["estimated_minutes"] for p in plans)
    return f"about ${usd:.2f} in all ({len(plans)} instances, {minutes:.0f} min)"


def plans_text(plans: list[Plan]) -> str:
    """Every instance's estimate, then (several) the order and the total."""
    parts = ["\n".join(estimate_lines(p)) for p in plans]
    if len(plans) > 1:
        parts.append(
            f"One after another, each torn down before the next is launched: {bill_text(plans)}."
        )
    return "\n\n".join(parts)


class CloudDialog(QDialog):
    """Confirm, then follow the cloud measurements (one instance, or several one after
    another)."""

    launch_requested = Signal()
    cancel_requested = Signal()

    def __init__(self, plans: list[Plan], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("cloud_dialog")
        title = plans[0].label if len(plans) == 1 else f"{len(plans)} instances"
        self.setWindowTitle(f"Measure on {title}")
        self.plans = plans
        self.estimate = QLabel(plans_text(plans), objectName="cloud_estimate")
        self.estimate.setWordWrap(True)
        self.estimate.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.confirm = QCheckBox(
            f"Launch it: I accept a bill of {bill_text(plans)}", objectName="cloud_confirm"
        )
        total = sum(p.estimate["estimated_usd"] for p in plans)
        self.launch = QPushButton(f"Launch (about ${total:.2f})", objectName="cloud_launch")
        self.launch.setEnabled(False)
        self.launch.setAutoDefault(False)
        self.close_button = QPushButton("Close", objectName="cloud_close")
        self.close_button.setAutoDefault(False)
        self.stages = {s: QLabel(s) for s in STAGES}
        strip = QWidget()
        strip_layout = QHBoxLayout(strip)
        strip_layout.setContentsMargins(0, 0, 0, 0)
        for i, label in enumerate(self.stages.values()):
            if i:
                strip_layout.addWidget(QLabel("›"))
            label.setEnabled(False)
            strip_layout.addWidget(label)
        strip_layout.addStretch(1)
        self.strip = strip
        self.strip.hide()
        self.last_line = ElidedLabel("", objectName="cloud_line")
        self.billed = QLabel(objectName="cloud_billed")
        self.outcome = QLabel(objectName="cloud_outcome", wordWrap=True)
        self.outcome.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for w in (self.last_line, self.billed, self.outcome):
            w.hide()
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        buttons.addWidget(self.launch)
        layout = QVBoxLayout(self)
        for w in (self.estimate, self.confirm, self.strip, self.last_line, self.billed):
            layout.addWidget(w)
        layout.addWidget(self.outcome)
        layout.addLayout(buttons)
        self.resize(620, 0)
        self._running = False
        self._billed_so_far: Callable[[], tuple[float, float]] | None = None
        self._clock = QTimer(self)
        self._clock.setInterval(1000)
        self._clock.timeout.connect(self._tick)
        self.confirm.toggled.connect(self.launch.setEnabled)
        self.launch.clicked.connect(self._launch_clicked)
        self.close_button.clicked.connect(self._close_clicked)

    def _launch_clicked(self) -> None:
        if self.confirm.isChecked():  # a disabled button cannot be clicked; a caller could
            self.launch_requested.emit()

    def _close_clicked(self) -> None:
        if self._running:
            self.cancel_requested.emit()
        else:
            self.reject()

    def reject(self) -> None:
        """Esc or the window's close: before the launch nothing happens; during it, the job
        goes on (Cancel stops it)."""
        if self._running:
            self.hide()
            return
        super().reject()

    # following the job ---------------------------------------------------------------------

    def show_launched(
        self, billed_so_far: Callable[[], tuple[float, float]], plan: Plan | None = None
    ) -> None:
        """The job (of `plan`, one of several) started: the estimate stays, the confirmation
        becomes the stages."""
        if plan is not None and len(self.plans) > 1:
            n = next(i for i, p in enumerate(self.plans, 1) if p is plan)
            self.setWindowTitle(f"Measure on {plan.label} ({n} of {len(self.plans)})")
            self.outcome.hide()
            self.show_stage(STAGES[0])
        self._running = True
        self._billed_so_far = billed_so_far
        self.confirm.hide()
        self.launch.hide()
        self.close_button.setText("Cancel")
        self.close_button.setToolTip("Tear the cluster down now; what was billed is said")
        for w in (self.strip, self.last_line, self.billed):
            w.show()
        self._clock.start()
        self._tick()

    def show_stage(self, stage: str) -> None:
        for name, label in self.stages.items():
            label.setEnabled(STAGES.index(name) <= STAGES.index(stage))
            font = label.font()
            font.setBold(name == stage)
            label.setFont(font)

    def show_line(self, text: str) -> None:
        self.last_line.setText(text)
        self.last_line.setToolTip(text)

    def show_cancelling(self) -> None:
        self.close_button.setEnabled(False)
        self.close_button.setText("Tearing down…")

    def _tick(self) -> None:
        if self._billed_so_far is not None:
            minutes, usd = self._billed_so_far()
            self.billed.setText(
                f"{minutes:.1f} min since the launch: at most ${usd:.2f} billed so far"
            )

    def show_ended(self, ended: Ended, last: bool = True) -> None:
        """A job ended with its sentence; `last`: no other instance follows (Close, not
        Cancel)."""
        if not last:
            self.outcome.setText(ended.text)
            self.outcome.show()
            return
        self._running = False
        self._clock.stop()
        self.billed.hide()
        self.outcome.setText(ended.text)
        self.outcome.show()
        self.close_button.setEnabled(True)
        self.close_button.setText("Close")
        self.close_button.setToolTip("")
