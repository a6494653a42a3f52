"""The app in a process of its own: a full run never loads a framework into the GUI, the real
window under Xvfb mid-run (a screenshot to look at), and a killed app takes its worker along."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from PySide6.QtGui import QImage

from tests.gui.helpers import finished_head

DRIVER = Path(__file__).with_name("drive_app.py")
OUTPUT = Path(__file__).resolve().parents[1] / "output"
TIMEOUT_S = 150


def drive(*args: str, platform: str = "offscreen", wrap: list[str] | None = None) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": platform}
    done = subprocess.run(
        [*(wrap or []), sys.executable, str(DRIVER), *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_full_run_in_the_app_never_imports_a_framework_into_the_gui():
    out = drive("full")
    assert out["framework_modules"] == []
    assert out["rows"] == 1
    assert out["status"].startswith(finished_head(out["result"]))


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs xvfb-run (Debian: xvfb)")
def test_screenshot_of_the_real_window_under_xvfb_during_a_run():
    png = OUTPUT / "gui-during-run.png"
    png.unlink(missing_ok=True)
    out = drive(
        "full",
        "--screenshot",
        str(png),
        platform="xcb",
        wrap=["xvfb-run", "-a", "-s", "-screen 0 1400x900x24"],
    )
    assert out["screenshot"] == str(png)
    assert out["framework_modules"] == []
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1400, 900)
    colours = {image.pixel(x, y) for x in range(0, 1400, 9) for y in range(0, 900, 9)}
    assert len(colours) > 50  # a drawn window, not an empty screen


def test_when_the_app_is_killed_its_worker_ends_by_itself():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    app = subprocess.Popen(
        [sys.executable, str(DRIVER), "hold"], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        line = app.stdout.readline()  # the driver prints once the run is measuring
        worker = psutil.Process(json.loads(line)["worker_pid"])
        app.send_signal(signal.SIGKILL)
        app.wait()
        # The worker sees its stdin close and stops (engine.worker.PARENT_GONE_GRACE_S).
        gone, alive = psutil.wait_procs([worker], timeout=15)
        for p in alive:
            p.kill()
        assert gone and not alive
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        app.stdout.close()
