"""Python's collector on the GUI thread only (gui/common/gui_thread_gc.py): a cycle dropped on
the GUI thread is not freed by a background thread's allocations, but by the GUI thread's timer,
and a window holds the collector from its start to its close."""

from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QObject

from gui.common.gui_thread_gc import GuiThreadCollector


class _Cycle:
    """A reference cycle holding a Qt object, like a widget's Python side; says where it died."""

    def __init__(self, died: list[str]) -> None:
        self.itself = self
        self.qt = QObject()
        self.died = died

    def __del__(self) -> None:
        self.died.append(threading.current_thread().name)


def _drop_a_cycle_then_allocate_on_a_thread() -> list[str]:
    died: list[str] = []
    gc.collect()  # counts from zero: the cycle below is the youngest generation's
    _Cycle(died)
    worker = threading.Thread(target=lambda: [[i] for i in range(200_000)], name="job")
    worker.start()
    worker.join()
    return died


def test_without_it_a_background_threads_allocations_free_the_gui_threads_cycle():
    """The control: what the collector prevents happens here (the object dies on the job)."""
    assert gc.isenabled()
    assert _drop_a_cycle_then_allocate_on_a_thread() == ["job"]


def test_with_it_the_cycle_dies_on_the_gui_thread(qtbot):
    owner = QObject()
    collector = GuiThreadCollector(owner, interval_ms=50)
    try:
        assert not gc.isenabled()
        died = _drop_a_cycle_then_allocate_on_a_thread()
        assert died == []  # the job's allocations collected nothing
        # The GUI thread's own allocations bring the next collection due, as the automatic
        # collector's would: its timer makes it, on the GUI thread.
        kept = [[i] for i in range(2 * gc.get_threshold()[0])]
        qtbot.waitUntil(lambda: died != [], timeout=5000)
        assert len(kept) > 0
        assert died == [threading.main_thread().name]
    finally:
        collector.stop()
    assert gc.isenabled()


def test_a_destroyed_collector_turns_the_automatic_collector_back_on(qtbot):
    owner = QObject()
    GuiThreadCollector(owner)
    assert not gc.isenabled()
    owner.deleteLater()
    qtbot.waitUntil(gc.isenabled, timeout=5000)


def test_a_window_collects_on_the_gui_thread_until_it_closes(window):
    assert not gc.isenabled()
    window.close()
    assert gc.isenabled()
