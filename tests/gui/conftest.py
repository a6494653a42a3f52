"""Fixtures for the GUI tests: offscreen Qt, a main window on a private data folder, and a
check that no QThread is left running (tests/conftest.py checks worker processes)."""

from __future__ import annotations

import gc
import os

# Before any QApplication exists: tests draw offscreen, with or without a display.
os.environ["QT_QPA_PLATFORM"] = "offscreen"

import pytest  # noqa: E402
from PySide6.QtCore import QThread  # noqa: E402


def _running_threads() -> list[QThread]:
    running = []
    for obj in gc.get_objects():
        # type(), not isinstance(): isinstance reads __class__, which some objects of other
        # libraries in this process (torch's deprecated aliases) answer with a warning.
        if issubclass(type(obj), QThread):
            try:
                if obj.isRunning():
                    running.append(obj)
            except RuntimeError:  # its C++ side is already deleted
                continue
    return running


@pytest.fixture(autouse=True)
def no_running_qthreads():
    """Fail a test that leaves a QThread running (autouse: torn down after qtbot's widgets)."""
    yield
    left = _running_threads()
    for thread in left:
        stop = getattr(thread, "stop", None)
        if stop is not None:
            stop()
        thread.wait(5000)
    if left:
        pytest.fail(f"test left QThreads running: {[type(t).__name__ for t in left]}")


@pytest.fixture
def window(qtbot):
    from gui.shell.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.results.model.frame is not None)  # loads once painted
    return w


@pytest.fixture(scope="module")
def measured():
    """A real result of the tiny model on this machine's CPU, through the worker (once per
    test module: tables, overlays and comparisons build on it)."""
    from engine.process.launcher import WorkerProcess
    from tests.gui.helpers import tiny_config

    worker = WorkerProcess(tiny_config()).start()
    try:
        events = list(worker.events())
    finally:
        worker.close()
    assert events[-1].type == "finished"
    return events[-1].result
