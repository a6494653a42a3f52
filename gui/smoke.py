"""The app's hidden smoke mode: `epochcost-gui --smoke OUT_DIR [--framework F] [--python F=PATH]`.

Checks a build (above all the desktop bundle, tests/bundle) the way a person would use it:
opens the real MainWindow, types a short tiny-mlp run into the form, presses Run, waits for
the worker's result to join the table, exports the throughput chart through the window's own
export, closes the window and exits 0 when all of that worked. It keeps to OUT_DIR: the data
folder is OUT_DIR/home (EPOCHCOST_HOME), so the user's results and settings stay untouched.
`--python F=PATH` stores PATH as framework F's interpreter first, as File > Settings would.

Writes OUT_DIR/smoke.json and prints it as one line: ok, the status line, the result's
figures, the chart's path, how the worker was started, and any framework the GUI loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from engine.results import files

# Short, and the same on any machine: a few steps of the smallest model.
FORM = {
    "batch_size": "32",
    "warmup_steps": "2",
    "min_steps": "5",
    "max_steps": "20",
    "max_seconds": "5",
}
PRICE_PER_HOUR = "0.90"
TIMEOUT_S = 300.0  # the whole run, importing the framework in a fresh worker included
FRAMEWORK_MODULES = ("torch", "torchvision", "tensorflow", "keras")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="epochcost-gui --smoke")
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--framework", default="torch")
    parser.add_argument("--python", action="append", default=[], metavar="FRAMEWORK=PATH")
    args = parser.parse_args(argv)
    out_dir = args.out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ["EPOCHCOST_HOME"] = str(out_dir / "home")
    chosen = dict(item.split("=", 1) for item in args.python if "=" in item)
    summary = Smoke(out_dir, args.framework, chosen).run()
    files.write_text(out_dir / "smoke.json", json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary), flush=True)
    return 0 if summary["ok"] else 1


class Smoke:
    def __init__(self, out_dir: Path, framework: str, interpreters: dict[str, str]) -> None:
        self.out_dir = out_dir
        self.framework = framework
        self.interpreters = interpreters
        self.summary: dict[str, Any] = {"ok": False, "framework": framework, "error": None}

    def run(self) -> dict[str, Any]:
        from PySide6.QtCore import QTimer

        from gui.common import settings
        from gui.shell.application import create_app

        started = time.monotonic()
        app = create_app([])
        from gui.shell.main_window import MainWindow

        if self.interpreters:
            prefs = settings.Settings()
            prefs.set_interpreters(self.interpreters)
            prefs.sync()
        window = self.window = MainWindow()
        window.show()
        self.summary["frozen"] = bool(getattr(sys, "frozen", False))
        spec = window.controller.spec_for(self.framework)
        self.summary["worker_command"] = spec.command()
        if not self._fill_form():
            window.close()
            return self.summary
        window.controller.result_stored.connect(self._on_result)
        window.controller.run_failed.connect(self._on_failed)
        window.controller.running_changed.connect(self._on_running)
        QTimer.singleShot(int(TIMEOUT_S * 1000), self._on_timeout)
        window.panel.run_button.click()
        if not window.controller.running:
            self.summary["error"] = "pressing Run started nothing"
            window.close()
            return self.summary
        app.exec()
        self.summary["seconds"] = round(time.monotonic() - started, 2)
        self.summary["gui_framework_modules"] = [m for m in FRAMEWORK_MODULES if m in sys.modules]
        return self.summary

    def _fill_form(self) -> bool:
        panel = self.window.panel
        panel.model.setCurrentIndex(panel.model.findData("tiny-mlp"))
        index = panel.framework.findText(self.framework)
        if index < 0:
            offered = [panel.framework.itemText(i) for i in range(panel.framework.count())]
            self.summary["error"] = (
                f"{self.framework} is not offered for tiny-mlp (offered: {offered}); "
                "give it an interpreter with --python"
            )
            return False
        panel.framework.setCurrentIndex(index)
        for name, text in FORM.items():
            panel.numbers[name].setText(text)
        panel.price.edit.setText(PRICE_PER_HOUR)
        if panel.config is None:
            self.summary["error"] = f"the form was refused: {panel.errors}"
            return False
        return True

    def _on_result(self, result: dict[str, Any]) -> None:
        self.summary["result"] = {
            key: result.get(key)
            for key in (
                *("run_id", "status", "throughput_samples_per_s", "throughput_ci95"),
                "usd_per_epoch",
            )
        }
        environment = result.get("environment") or {}
        for key in ("framework_version", "python"):
            self.summary["result"][key] = environment.get(key)

    def _on_failed(self, failure: Any, text: str) -> None:
        self.summary["error"] = text
        self.summary["details"] = failure.traceback[-2000:]

    def _on_running(self, running: bool) -> None:
        if running:
            return
        window = self.window
        self.summary["status"] = window.status.text.text()
        self.summary["table_rows"] = window.results.model.rowCount()
        result = self.summary.get("result") or {}
        if result.get("status") == "ok":
            chart = window.export_chart("throughput", self.out_dir / "throughput.png")
            self.summary["chart"] = str(chart) if chart else None
            self.summary["message"] = window.message_bar.text.text()
            self.summary["ok"] = bool(chart and chart.stat().st_size > 0)
        window.close()
        self._quit()

    def _on_timeout(self) -> None:
        self.summary["error"] = f"no result within {TIMEOUT_S:g} s"
        self.window.close()  # stops and reaps the worker
        self._quit()

    def _quit(self) -> None:
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance()
        if app is not None:
            app.quit()
