"""The run's status line: the phase strip, elapsed time with the current figures, and the
progress of the phase's step window (warm-up, then measuring).

The throughput it shows is the result's statistic: while measuring, the running window's
samples over its wall time so far; at the end, the result's figure, the median of the windows'.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from engine.core.events import Event, Failed, Finished, Phase, Step
from engine.core.interval import interval_text
from engine.core.precision import MARK, imprecise
from engine.core.precision_target import target_text
from engine.results import report
from gui.common.elided_label import ElidedLabel
from gui.common.results_model import data_text

if TYPE_CHECKING:  # numpy, under the series, loads with the plots: after the first paint
    from gui.pages.run.series import RunSeries

PHASES = (
    ("importing", "importing"),
    ("building", "building"),
    ("warmup", "warm-up"),
    ("measuring", "measuring"),
    ("finishing", "done"),
)

PHASE_NAMES = dict(PHASES)


PROGRESS_TIP = "Steps of the current phase; measuring stops early once stable"


class RunStatus(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.phase_labels = {name: QLabel(text) for name, text in PHASES}
        # The line may be long; it ends in "…" rather than widen the window, whole in its tooltip.
        self.text = ElidedLabel(
            "Ready: choose a model and press Run (Ctrl+R)", objectName="status_text"
        )
        self.progress = QProgressBar(objectName="window_progress")
        self.progress.setFixedWidth(200)
        self.progress.setToolTip(PROGRESS_TIP)
        self.progress.setTextVisible(True)
        # Its place is kept while hidden: shown at a run's start, it would make the status bar
        # taller and lay the whole window out again, every chart repainted in one task.
        policy = self.progress.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.progress.setSizePolicy(policy)
        self.progress.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        for i, label in enumerate(self.phase_labels.values()):
            if i:
                layout.addWidget(QLabel("›"))
            layout.addWidget(label)
        layout.addSpacing(12)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.progress)
        self.phase = ""
        self.detail = ""  # "repeat 2 of 3" while measuring
        self._t0: float | None = None
        self._steps = 0
        self._series: RunSeries | None = None
        self._clock = QTimer(self)
        self._clock.setInterval(250)
        self._clock.timeout.connect(self._tick)
        self._highlight("")

    def begin(self, series: RunSeries | None) -> None:
        self._t0 = time.monotonic()
        self._series = series
        self.phase = "starting"
        self._highlight("")
        self.progress.reset()
        # Valued while hidden: a new value repaints a shown bar at once (QProgressBar), and
        # with it the whole window's changes, inside the Run button's task.
        self.progress.setValue(0)
        self.progress.setToolTip(PROGRESS_TIP)
        self.progress.show()
        self._clock.start()
        self.show_figures()

    def on_event(self, event: Event) -> None:
        if isinstance(event, Phase):
            self.phase, self.detail = event.phase, event.detail
            self._highlight(event.phase)
            self._steps = 0
            expected = event.expected_steps or 0
            self.progress.setRange(0, expected)
            self.progress.setValue(0)
            if event.phase == "measuring":
                self.progress.setFormat("measuring %v/%m")
            elif event.phase == "warmup":
                self.progress.setFormat("warm-up %v/%m")
            else:
                self.progress.setFormat(event.phase)
        elif isinstance(event, Step):
            # Counted here, drawn by the clock: QProgressBar repaints at once on every new
            # value, which a fast model's events (a few dozen a second) would pay for.
            self._steps += event.steps

    def _tick(self) -> None:
        self.show_figures()

    def show_figures(self) -> None:
        """Phase, elapsed time and the current figures in one line (with the step count, so
        that both say the same number of steps)."""
        if self._t0 is None:
            return
        if self.progress.maximum() > 0:
            self.progress.setValue(min(self._steps, self.progress.maximum()))
        parts = [
            PHASE_NAMES.get(self.phase, self.phase),
            report.duration(time.monotonic() - self._t0),
        ]
        s = self._series
        w = s.window if s else None
        if w is not None and self.phase == "measuring":
            total = self.detail.rpartition(" of ")[2] if " of " in self.detail else ""
            which = f"window {w.repeat + 1}" + (f" of {total}" if total else "")
            parts.append(
                f"{which}: {w.throughput_samples_per_s:,.1f} samples/s"
                f"{'' if w.done else ' so far'} (samples / wall time, {w.steps} steps)"
            )
            low, mid, high = w.usd_per_epoch or w.epoch_s
            show = report.money if w.usd_per_epoch is not None else report.duration
            # The live band is this window's step noise only (its label says so); the result's
            # interval, at the end, also holds the windows' spread and the busy share.
            interval = (
                f" ({show(low)} to {show(high)} from this window's steps)"
                if math.isfinite(high)
                else ""
            )
            parts.append(f"{show(mid)} per epoch{interval}")
            if s is not None and s.precision is not None:  # a run with a target precision
                # Here, not at the top: precision_band draws (pyqtgraph), which loads after
                # the window's first paint (gui/common/plot_frames.py).
                from gui.pages.run.precision_band import caption

                p = s.precision
                parts.append(f"the run's 95% interval {caption(p.achieved, p.target, p.reached)}")
        if s is not None and s.peak_memory is not None:
            parts.append(f"peak memory {report.size(s.peak_memory[1])}")
        self.text.setText(" · ".join(parts))
        self.text.setToolTip(self.text.text())  # the whole line, when the window is narrow

    def end(self, event: Finished | Failed, result: dict[str, Any] | None) -> None:
        self._clock.stop()
        self._t0 = None
        if isinstance(event, Finished) and result is not None:
            self.progress.setRange(0, 1)
            self.progress.setValue(1)
            self.progress.setFormat(f"{result.get('steps_measured', 0)} steps measured")
            self.progress.setToolTip(  # the bar is narrow: why the run stopped, on hover
                f"The last window ended {report.stop_text(result.get('stop_reason'), in_app=True)}"
            )
            self._highlight("finishing")
            self.text.setText(finished_text(result))
        else:
            self.progress.hide()
            self._highlight("")
            self.text.setText(f"Run {event.kind if isinstance(event, Failed) else 'ended'}")

    def _highlight(self, current: str) -> None:
        for name, label in self.phase_labels.items():
            label.setEnabled(name == current)
            font = label.font()
            font.setBold(name == current)
            label.setFont(font)


def finished_text(result: dict[str, Any]) -> str:
    """The result's figures with their 95% intervals as they are (interval_text: its two ends,
    and -x% / +y% where they are not symmetric), and "not precise enough to price" where
    engine/core/precision.py says so (its cause and what to do in the tooltip, the whole line);
    the throughput as the throughput plot's "result" level says it."""
    n = result.get("repeats") or len(result.get("throughput_repeats") or ())
    how = f", median of {n} windows" if n and n > 1 else ""
    tput = result["throughput_samples_per_s"]
    spread = interval_text(result.get("throughput_ci95"), tput, lambda v: f"{v:,.1f}")
    verdict = imprecise(result)
    # The mark first, where a narrow window still shows it; why and what to do at the end.
    head = "Finished" if verdict is None else f"Finished, {MARK}"
    parts = [
        f"{head}: {tput:,.1f} samples/s ({spread}{how})",
        f"epoch {report.duration(result.get('epoch_seconds'))}",
    ]
    if result.get("target_precision"):  # how precise it got, against its target
        parts.insert(1, target_text(result["target_precision"]))
    usd = result.get("usd_per_epoch")
    if usd is not None:
        cost = interval_text(result.get("usd_per_epoch_ci95"), usd)
        parts.append(f"{report.money(usd)} per epoch ({cost})")
    fill = result.get("memory_fill")
    if fill is not None:
        parts.append(f"memory {report.size(result.get('peak_memory_bytes'))} ({fill:.1%})")
    waited = result.get("input_wait_fraction")
    if waited is not None:  # a run that loaded its data: how much of it went to waiting
        kind = (result.get("data") or {}).get("kind")
        parts.append(f"{data_text(kind)} data, input wait {waited:.1%}")
    warnings = result.get("warnings") or []
    if verdict is not None:
        parts.append(f"{MARK}: {verdict.why}; to price it, {verdict.todo}")
    if warnings:
        parts.append("1 warning" if len(warnings) == 1 else f"{len(warnings)} warnings")
    return " · ".join(parts)
