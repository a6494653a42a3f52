"""Issue 42: the window paints before pyqtgraph is imported (about a third of a second), the
Run tab's plots frames standing where the plots will be; the plots are built after, in their
place. In a process of its own, as a user starts the app (EPOCHCOST_FIRST_PAINT reports the
moments, gui/shell/first_paint.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.worker
def test_the_window_paints_before_pyqtgraph_is_imported_and_the_plots_come_after(tmp_path):
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "EPOCHCOST_FIRST_PAINT": "1",
        "EPOCHCOST_HOME": str(tmp_path / "home"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "gui"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["pyqtgraph_at_first_paint"] is False
    assert 0 < figures["first_paint_s"] < figures["plots_s"]


def test_the_plots_take_their_frames_place_at_the_same_size(qtbot):
    """The frames' grid is the plots' grid: the swap moves nothing on the page."""
    from gui.shell.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 860)
    window.show()
    qtbot.waitExposed(window)
    page = window.run_page
    frames = page.frames
    where = frames.geometry()
    before = [f.geometry() for f in frames.frames]
    qtbot.waitUntil(lambda: page._plots is not None, timeout=10_000)
    qtbot.wait(50)
    after = [chart.geometry() for chart in page.plots.charts.values()]
    assert page.plots.geometry() == where

    def cells(rects):  # by place in the grid, top left first
        return sorted((r.y(), r.x(), r.width(), r.height()) for r in rects)

    for old, new in zip(cells(before), cells(after), strict=True):
        assert all(abs(a - b) <= 1 for a, b in zip(old, new, strict=True)), (old, new)
    qtbot.waitUntil(lambda: window.results.model.frame is not None)
