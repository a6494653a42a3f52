"""BackgroundJob: items arrive in order on the GUI thread, errors end as JobError, cancel reaches
the work."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt, QThread

from gui.common.background import BackgroundJob, JobError


def test_items_arrive_in_order_on_gui_thread_then_done(qtbot):
    seen: list[tuple[int, bool]] = []

    def work(emit):
        for i in range(5):
            emit(i)
        return "finished"

    job = BackgroundJob(work)
    gui = QThread.currentThread()
    job.item.connect(lambda i: seen.append((i, QThread.currentThread() is gui)))
    with qtbot.waitSignal(job.done, timeout=5000) as done:
        job.start()
    job.wait(2000)
    assert done.args == ["finished"]
    assert seen == [(i, True) for i in range(5)]


def test_item_and_done_are_emitted_on_the_gui_thread_itself(qtbot):
    """Not only received there: a direct connection runs in the emitting thread, so it shows
    where the job emits. Receivers then never take a cross-thread signal (PYSIDE-3124)."""
    emitted_on_gui: list[bool] = []

    def on_gui(*_: object) -> None:
        emitted_on_gui.append(threading.current_thread() is threading.main_thread())

    job = BackgroundJob(lambda emit: [emit(i) for i in range(3)])
    job.item.connect(on_gui, Qt.ConnectionType.DirectConnection)
    job.done.connect(on_gui, Qt.ConnectionType.DirectConnection)
    with qtbot.waitSignal(job.done, timeout=5000):
        job.start()
    job.wait(2000)
    assert emitted_on_gui == [True] * 4


def test_work_that_raises_ends_in_a_job_error(qtbot):
    def work(emit):
        raise ValueError("no such model 'x'")

    job = BackgroundJob(work)
    with qtbot.waitSignal(job.done, timeout=5000) as done:
        job.start()
    job.wait(2000)
    (outcome,) = done.args
    assert isinstance(outcome, JobError)
    assert outcome.message == "ValueError: no such model 'x'"
    assert "Traceback" in outcome.details


def test_cancel_reaches_the_work_and_stop_waits(qtbot):
    stop = threading.Event()
    started = threading.Event()

    def work(emit):
        started.set()
        stop.wait(10)
        return "cancelled" if stop.is_set() else "timed out"

    job = BackgroundJob(work, cancel=stop.set)
    with qtbot.waitSignal(job.done, timeout=5000) as done:
        job.start()
        assert started.wait(5)
        assert job.stop(5)
    assert job.cancelled
    assert done.args == ["cancelled"]
