"""The app's entry point in processes of its own: its hidden smoke mode (what the bundle's
check runs, tests/bundle) goes through the real window, and its worker mode (how the bundle
starts its workers) runs a measurement without ever loading Qt."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

from engine.process.launcher import WORKER_FLAG
from tests.gui.helpers import finished_head, tiny_config

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 300


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def test_smoke_mode_runs_tiny_mlp_through_the_window_and_exports_a_chart(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "gui", "--smoke", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary == json.loads((tmp_path / "smoke.json").read_text())
    assert summary["ok"] and not summary["frozen"]
    assert summary["worker_command"] == [sys.executable, "-m", "engine.worker"]
    assert summary["result"]["status"] == "ok"
    assert summary["result"]["throughput_samples_per_s"] > 0
    assert summary["status"].startswith(finished_head(summary["result"]))
    assert summary["table_rows"] == 1
    assert summary["gui_framework_modules"] == []
    assert png_size(tmp_path / "throughput.png")[0] == 1600
    # Its data stayed in its own folder.
    assert (tmp_path / "home" / "results.sqlite3").is_file()


# The worker ends with os._exit once its events are out: the script names the Qt modules
# loaded at that moment, then exits as the worker would.
WORKER_MODE = """
import json, os, sys
exit_now = os._exit
def report_then_exit(code):
    qt = ("PySide6", "shiboken6", "pyqtgraph")
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in qt)
    sys.stderr.write("\\nQT_MODULES " + json.dumps(loaded) + "\\n")
    sys.stderr.flush()
    exit_now(code)
os._exit = report_then_exit
from gui.app import main
main([sys.argv[1], "run", "--config-json", sys.argv[2], "--run-id", "entry-test"])
"""


def test_worker_mode_of_the_app_entry_measures_without_loading_qt():
    config = json.dumps(tiny_config(max_steps=5, min_steps=3).to_dict())
    done = subprocess.run(
        [sys.executable, "-c", WORKER_MODE, WORKER_FLAG, config],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert events[0]["type"] == "started" and events[-1]["type"] == "finished"
    assert {e["run_id"] for e in events} == {"entry-test"}
    qt_line = next(x for x in done.stderr.splitlines() if x.startswith("QT_MODULES "))
    assert json.loads(qt_line.removeprefix("QT_MODULES ")) == []
