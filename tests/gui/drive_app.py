"""Drive the real app in a process of its own (used by test_app_process.py).

    python tests/gui/drive_app.py full [--screenshot PNG] [--final PNG] [--export PNG]
                                                            one run to the end, then quit
    python tests/gui/drive_app.py hold                      a long run; prints the worker's pid

Builds the window the way `epochcost-gui` does, types a short tiny-mlp run into the form and
presses Run. Prints one JSON line at the end (full) or when measuring begins (hold).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.core.events import Step  # noqa: E402
from gui.shell import about  # noqa: E402
from gui.shell.application import create_app  # noqa: E402

FORMS = {
    # A target's budget (the form's ±3%) of 5 s: a busy machine never meets it.
    "full": {
        "batch_size": "64",
        "warmup_steps": "5",
        "min_steps": "10",
        "max_steps": "40",
        "max_seconds": "5",
    },
    # Long enough to be caught mid-run, 1.5 s into measuring: the run's 8 s hold its
    # warm-up too (under a loaded test suite, 4 s left the window closing at the grab).
    "screenshot": {
        "batch_size": "128",
        "warmup_steps": "5",
        "min_steps": "100000",
        "max_steps": "1000000",
        "max_seconds": "8",
    },
    "hold": {
        "batch_size": "16",
        "warmup_steps": "2",
        "min_steps": "100000",
        "max_steps": "1000000",
        "max_seconds": "120",
    },
}
FRAMEWORK_MODULES = ("torch", "torchvision", "tensorflow", "keras")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("full", "hold"))
    parser.add_argument("--screenshot", type=Path, help="the screen 1.5 s into measuring")
    parser.add_argument("--final", type=Path, help="the screen once the result is shown")
    parser.add_argument("--export", type=Path, help="File > Export chart > Throughput, at the end")
    args = parser.parse_args()
    app = create_app([])
    from gui.shell.main_window import MainWindow

    window = MainWindow()
    window.show()
    about.versions()  # Help > About reads framework versions: it must not import them
    form = FORMS["screenshot" if args.screenshot else args.mode]
    panel = window.panel
    panel.model.setCurrentIndex(panel.model.findData("tiny-mlp"))
    for name, text in form.items():
        panel.numbers[name].setText(text)
    out: dict = {"screenshot": None}

    def grab(path: Path, key: str = "screenshot") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # The screen as the X server shows it, not the widget's own rendering.
        saved = window.screen().grabWindow(0).save(str(path))
        ended = "after the run ended" if "rows" in out else "during the run"
        out[key] = str(path) if saved else f"the screen's grab failed, {ended}"

    def on_event(event) -> None:
        if not (isinstance(event, Step) and event.measured) or out.get("measuring"):
            return
        out["measuring"] = True
        if args.mode == "hold":
            print(json.dumps({"worker_pid": window.controller.worker_pid}), flush=True)
        elif args.screenshot:
            QTimer.singleShot(1500, lambda: grab(args.screenshot))

    def finish() -> None:
        if args.final:
            grab(args.final, "final")
        if args.export:
            out["export"] = str(window.export_chart("throughput", args.export))
        window.close()
        app.quit()

    def on_running(running: bool) -> None:
        if not running:
            if args.screenshot and out["screenshot"] is None:
                out["screenshot"] = "the run ended before the grab (1.5 s into measuring)"
            out["rows"] = window.results.model.rowCount()
            out["status"] = window.status.text.text()
            if out["rows"]:
                from engine.results.store import Store

                out["result"] = Store(readonly=True).get(window.results.model.run_id(0))
            QTimer.singleShot(500 if args.final or args.export else 0, finish)  # painted first

    window.controller.engine_event.connect(on_event)
    window.controller.running_changed.connect(on_running)
    QTest.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    app.exec()
    out["framework_modules"] = [m for m in FRAMEWORK_MODULES if m in sys.modules]
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
