"""GUI responsiveness: event-loop lateness of the GUI thread during a run, time to window shown.

Lateness: a 5 ms precise timer on the GUI thread records how late each tick fires while a real
worker streams events and the plots redraw at 25 Hz (target: p99 under 20 ms). Two runs: the
default model (resnet18-cifar, batch 64) and tiny-mlp at batch 16, whose thousands of steps a
second are the worst case (the worker coalesces them, an event about every 100 ms: the figures
give both counts); the second is cancelled after a while, timing the cancel. The max is given
twice: over the whole run, and before the task that draws its ending (a Finished or Failed
event: the last fit, a message bar laying the page out again) began.
With each run, the GUI thread's own redraw cost (the plots' refresh, each plot's paint), since
lateness also holds the time the OS gives the worker's threads on a busy machine.
Startup: seconds from launching a fresh process to its main window's first paint done (target:
under 1.5 s). Figures are printed, never asserted.

    xvfb-run -a .venv/bin/python benchmarks/gui_latency.py [--launches 5] [--skip-default]
        [--startup-only]

Without a display it draws offscreen (QT_QPA_PLATFORM=offscreen), which skips compositing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter

import numpy as np

PROBE_INTERVAL_MS = 5
TINY_MEASURE_S = 10.0

# The launcher passes its clock reading at launch; the wall clock is the same in both
# processes. (psutil's create_time cannot serve: Linux gives boot time in whole seconds.)
STARTUP_CODE = """
import sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from gui.shell.application import create_app
app = create_app([])
from gui.shell.main_window import MainWindow
w = MainWindow()
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not hasattr(self, "seen"):
            self.seen = True
            # After this paint the window is on screen with its content.
            QTimer.singleShot(0, lambda: (print(time.time() - float(sys.argv[1]), flush=True),
                                          w.close(), app.quit()))
        return False
f = FirstPaint()
w.installEventFilter(f)
w.show()
app.exec()
"""


def startup_seconds(launches: int) -> list[float]:
    out = []
    for _ in range(launches):
        launched = time.time()
        done = subprocess.run(
            [sys.executable, "-c", STARTUP_CODE, repr(launched)],
            capture_output=True,
            text=True,
            check=True,
        )
        out.append(float(done.stdout.strip().splitlines()[-1]))
    return out


class FrameTimer:
    """Time the GUI thread spends redrawing: the plots' refresh and each plot's paint (s).

    Lateness also counts the time the OS gives the worker and other processes instead of the
    GUI thread; these figures are the GUI's own share.
    """

    def __init__(self) -> None:
        from pyqtgraph.widgets.GraphicsView import GraphicsView

        from gui.pages.run.plots import LivePlots

        self.durations_s: dict[str, list[float]] = {"refresh": [], "paint": []}
        try:  # the timer's push: one chart a tick since issue 42, all four before
            from gui.pages.run.stagger import Staggered

            self._wrap(Staggered, "tick", "refresh")
        except ImportError:
            self._wrap(LivePlots, "refresh", "refresh")
        self._wrap(GraphicsView, "paintEvent", "paint")

    def _wrap(self, cls: type, name: str, key: str) -> None:
        original = getattr(cls, name)
        record = self.durations_s[key]

        def timed(obj, *args):
            t0 = time.perf_counter()
            try:
                return original(obj, *args)
            finally:
                record.append(time.perf_counter() - t0)

        setattr(cls, name, timed)

    def take(self) -> dict[str, float | None]:
        out: dict[str, float | None] = {}
        for key, values in self.durations_s.items():
            ms = np.array(values) * 1000
            out[f"{key}_ms_p50"] = round(float(np.percentile(ms, 50)), 2) if len(ms) else None
            out[f"{key}_ms_p99"] = round(float(np.percentile(ms, 99)), 2) if len(ms) else None
            out[f"{key}_ms_max"] = round(float(ms.max()), 2) if len(ms) else None
            values.clear()
        return out


class StallSampler:
    """Where the GUI thread is while the probe's tick is late by more than `threshold_s`.

    A thread polls every millisecond; during a stall it takes the GUI thread's Python stack
    every 5 ms (its innermost frames, with the frame under the event loop's call named when
    Qt's C++ holds the thread), and the CPU time the GUI thread used in it: a stall much longer
    than its CPU time is the thread waiting (for a core, or the X server), not its own work.
    Each stall: [ms late, ms of the GUI thread's CPU in it, where]. Printed with --stalls,
    never asserted.
    """

    def __init__(self, probe: Probe, threshold_s: float) -> None:
        self.probe = probe
        self.threshold_s = threshold_s
        self.samples: Counter[str] = Counter()
        self.stalls: list[tuple[float, float, str]] = []
        self._main = threading.main_thread().ident
        self._cpu_clock = time.pthread_getcpuclockid(self._main or 0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _poll(self) -> None:
        in_stall = False
        last_sample = late_max = cpu = 0.0
        first = ""
        while not self._stop.wait(0.001):
            late = time.perf_counter() - self.probe._last - PROBE_INTERVAL_MS / 1000
            if late < self.threshold_s:
                if in_stall:
                    self.stalls.append((round(late_max * 1000, 1), round(cpu * 1000, 1), first))
                in_stall = False
                continue
            if not in_stall:
                in_stall, late_max, last_sample, first = True, late, 0.0, ""
            late_max = max(late_max, late)
            cpu = time.clock_gettime(self._cpu_clock) - self.probe.last_cpu
            if time.perf_counter() - last_sample >= 0.005:
                last_sample = time.perf_counter()
                frame = sys._current_frames().get(self._main)
                stack = traceback.extract_stack(frame)[-6:] if frame else []
                where = " < ".join(
                    f"{os.path.basename(f.filename)}:{f.lineno}:{f.name}" for f in reversed(stack)
                )
                self.samples[where] += 1
                if not last_sample or not first:
                    first = where

    def stop(self) -> dict:
        self._stop.set()
        self._thread.join()
        return {
            "stalls_ms": sorted(self.stalls, reverse=True)[:12],
            "top_stacks": self.samples.most_common(12),
        }


class Probe:
    """Lateness of a fixed-interval timer on the GUI thread, in seconds."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(PROBE_INTERVAL_MS)
        self.timer.timeout.connect(self._tick)
        self.lateness_s: list[float] = []
        self.at_s: list[float] = []  # each tick's time (perf_counter)
        self._last = 0.0
        self.last_cpu = 0.0  # the GUI thread's CPU time at the last tick

    def start(self) -> None:
        self._last = time.perf_counter()
        self.last_cpu = time.thread_time()
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.lateness_s.append(max(0.0, now - self._last - PROBE_INTERVAL_MS / 1000))
        self.at_s.append(now)
        self._last = now
        self.last_cpu = time.thread_time()

    def stop(self) -> list[float]:
        self.timer.stop()
        return self.lateness_s


def one_run(
    window,
    frames: FrameTimer,
    form: dict[str, str],
    model: str,
    cancel_after_s: float | None,
    stalls_ms: float | None = None,
) -> dict:
    from PySide6.QtCore import QEventLoop, QTimer

    from engine.core.events import Failed, Finished, Step

    # A local loop: QApplication.quit() would close the window (Qt 6) and so stop the run.
    loop = QEventLoop()

    panel = window.panel
    panel.model.setCurrentIndex(panel.model.findData(model))
    for name, text in form.items():
        panel.numbers[name].setText(text)
    counts = {"events": 0, "step_events": 0, "steps": 0}
    marks: dict[str, float] = {}

    def on_event(event) -> None:
        counts["events"] += 1
        if isinstance(event, Finished | Failed):  # the run's ending, drawn from here on
            marks.setdefault("ending", time.perf_counter())
        if isinstance(event, Step):
            counts["step_events"] += 1
            counts["steps"] += event.steps
            if event.measured and "measuring" not in marks:
                marks["measuring"] = time.perf_counter()
                if cancel_after_s is not None:
                    QTimer.singleShot(int(cancel_after_s * 1000), cancel)

    def cancel() -> None:
        marks["cancel"] = time.perf_counter()
        window.controller.cancel()

    def on_running(running: bool) -> None:
        if not running:
            marks["end"] = time.perf_counter()
            drawn()

    def drawn() -> None:
        """The ending measured to its last chart's turn (the plots draw it a chart a turn)."""
        if window.run_page.plots.timer.isActive():
            QTimer.singleShot(10, drawn)
        else:
            loop.quit()

    window.controller.engine_event.connect(on_event)
    window.controller.running_changed.connect(on_running)
    frames.take()  # start afresh
    probe = Probe()
    probe.start()
    sampler = StallSampler(probe, stalls_ms / 1000) if stalls_ms else None
    if sampler:
        sampler.start()
    t0 = time.perf_counter()
    panel.request_run()
    loop.exec()
    lateness = np.array(probe.stop())
    # Ticks that came before the ending's task began: the run itself, its start included.
    before_end = lateness[: int(np.searchsorted(probe.at_s, marks.get("ending", np.inf)))]
    where = sampler.stop() if sampler else {}
    window.controller.engine_event.disconnect(on_event)
    window.controller.running_changed.disconnect(on_running)
    measuring = marks.get("measuring", marks["end"])
    return {
        "model": model,
        "run_s": round(marks["end"] - t0, 2),
        "events": counts["events"],
        "step_events_per_s_measuring": round(
            counts["step_events"] / max(marks["end"] - measuring, 1e-9)
        ),
        "steps_per_s_measuring": round(counts["steps"] / max(marks["end"] - measuring, 1e-9)),
        "lateness_ms_p50": round(float(np.percentile(lateness, 50)) * 1000, 2),
        "lateness_ms_p99": round(float(np.percentile(lateness, 99)) * 1000, 2),
        "lateness_ms_max": round(float(lateness.max()) * 1000, 2),
        "lateness_ms_max_before_ending": round(float(before_end.max()) * 1000, 2),
        **frames.take(),
        "ticks": int(lateness.size),
        "cancel_to_reaped_s": round(marks["end"] - marks["cancel"], 2)
        if "cancel" in marks
        else None,
        "status": window.status.text.text()[:90],
        **where,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=5)
    parser.add_argument("--skip-default", action="store_true", help="only the tiny-mlp stream")
    parser.add_argument("--startup-only", action="store_true", help="only time the launches")
    parser.add_argument(
        "--stalls", type=float, metavar="MS", help="name where the GUI thread is when MS late"
    )
    args = parser.parse_args()
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["EPOCHCOST_HOME"] = tempfile.mkdtemp(prefix="epochcost-bench-")

    starts = startup_seconds(args.launches)
    if args.startup_only:
        print(
            json.dumps(
                {
                    "startup_s": [round(x, 3) for x in starts],
                    "load_average_1min": round(os.getloadavg()[0], 2),
                }
            )
        )
        return 0
    from gui.shell.application import create_app

    app = create_app([])
    from gui.shell.main_window import MainWindow

    frames = FrameTimer()
    window = MainWindow()
    window.show()
    # As a user does: Run is pressed once the window is up, its Run tab's plots built after
    # the first paint and then drawn (pressed at once, their building and first paint fell
    # inside the run's first ticks).
    deadline = time.perf_counter() + 30
    while not window.run_page.plots_ready and time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.01)
    settle = time.perf_counter() + 1.0  # and laid out and painted, as a user would see them
    while time.perf_counter() < settle:
        app.processEvents()
        time.sleep(0.01)
    runs = []
    if not args.skip_default:
        runs.append(one_run(window, frames, {}, "resnet18-cifar", None, args.stalls))
    tiny = {
        "batch_size": "16",
        "warmup_steps": "10",
        "min_steps": "1000000",
        "max_steps": "1000000",
        "max_seconds": "60",
    }
    runs.append(one_run(window, frames, tiny, "tiny-mlp", TINY_MEASURE_S, args.stalls))
    window.close()
    report = {
        "platform": app.platformName(),
        "cpu_count": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "startup_s": [round(s, 3) for s in starts],
        "startup_s_median": round(statistics.median(starts), 3),
        "startup_s_max": round(max(starts), 3),
        "runs": runs,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
