"""Fixtures for the GUI tests: offscreen Qt, a main window on a private data folder, and a
check that no QThread is left running (tests/conftest.py checks worker processes)."""

from __future__ import annotations

import copy
import os
import weakref

# Before any QApplication exists: tests draw offscreen, with or without a display.
os.environ["QT_QPA_PLATFORM"] = "offscreen"

import pytest  # noqa: E402
from PySide6.QtCore import QThread  # noqa: E402
from shiboken6 import Shiboken  # noqa: E402

# Every QThread started from Python is recorded as it starts (weakly: the record keeps none
# alive), so that each test's check looks at those, not at every object in the process: a
# gc.get_objects() scan took about 0.5 s a test in a process that has imported the frameworks
# (benchmarks/RESULTS.md, issue 42). Every QThread Python holds is still looked at once per
# module (_every_qthread).
_started: weakref.WeakSet[QThread] = weakref.WeakSet()
_qthread_start = QThread.start


def _recording_start(self: QThread, *args, **kwargs) -> None:
    _started.add(self)
    _qthread_start(self, *args, **kwargs)


QThread.start = _recording_start  # type: ignore[method-assign]


def _every_qthread() -> list[QThread]:
    """Every QThread that Python holds a wrapper of, whoever started it: shiboken's list of its
    live wrappers (a few hundred objects) holds all of them, where a scan of gc.get_objects()
    (about 0.15 s a module in a process that imported torch, 11 s of a full run's CPU;
    benchmarks/RESULTS.md, issue 42) held the same and the rest of the heap."""
    return [obj for obj in Shiboken.getAllValidWrappers() if isinstance(obj, QThread)]


def _running(threads: list[QThread]) -> list[QThread]:
    running = []
    for thread in threads:
        try:
            if thread.isRunning():
                running.append(thread)
        except RuntimeError:  # its C++ side is already deleted
            continue
    return running


def _stop_and_name(left: list[QThread]) -> list[str]:
    for thread in left:
        stop = getattr(thread, "stop", None)
        if stop is not None:
            stop()
        thread.wait(5000)
    return [type(t).__name__ for t in left]


@pytest.fixture(autouse=True)
def no_running_qthreads():
    """Fail a test that leaves a QThread running (autouse: torn down after qtbot's widgets)."""
    yield
    left = _running(list(_started))
    if left:
        pytest.fail(f"test left QThreads running: {_stop_and_name(left)}")


@pytest.fixture(scope="module", autouse=True)
def no_running_qthreads_in_module():
    """The same over every QThread in the process (one not started through QThread.start from
    Python too), at the end of each test module."""
    yield
    left = _running(_every_qthread())
    if left:
        pytest.fail(f"the module's tests left QThreads running: {_stop_and_name(left)}")


@pytest.fixture
def window(qtbot):
    from gui.shell.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.results.model.frame is not None)  # loads once painted
    return w


@pytest.fixture(scope="session")
def measured_once():
    """A real result of the tiny model on this machine's CPU, through the worker: one run per
    test process (each pytest-xdist worker), for every module that builds on it."""
    from engine.process.launcher import WorkerProcess
    from tests.gui.helpers import tiny_config

    worker = WorkerProcess(tiny_config()).start()
    try:
        events = list(worker.events())
    finally:
        worker.close()
    assert events[-1].type == "finished"
    return events[-1].result


@pytest.fixture(scope="module")
def measured(measured_once):
    """measured_once's result, a copy per test module (tables, overlays and comparisons build
    on it; a test may change its copy)."""
    return copy.deepcopy(measured_once)


@pytest.fixture(scope="session")
def _builds_read() -> dict:
    return {}


@pytest.fixture
def read_build_once(monkeypatch, _builds_read):
    """The GPU check's real read of an environment's build (a child process that imports the
    framework, seconds each), done once per test process for each framework and Python and
    shared: for tests of a panel with a GPU in its device box that are about something else
    (the panel's own read is what tests/gui/test_device_box.py tests, without this)."""
    from engine.process import builds
    from engine.process.launcher import WorkerSpec
    from gui.panel import gpu_check

    def read(framework, spec, *args, **kwargs):
        key = (framework, spec.python)
        if key not in _builds_read:
            _builds_read[key] = builds.read_build(framework, spec, *args, **kwargs)
        return _builds_read[key]

    # The first read here, before any panel asks (a panel's own read, in its thread, may
    # outlast the test on a busy machine: the QThread check would wait for it).
    read("torch", WorkerSpec())
    monkeypatch.setattr(gpu_check, "read_build", read)
