"""A run's result, finished or failed, is stored on the run's own thread, not the GUI thread
(issue 42: the store's write was a 28 ms stall of the event loop at a run's end, a cancelled
run's up to 89 ms), and the window hears how it went in order: the ending event, then
result_stored or store_failed."""

from __future__ import annotations

import json
import threading

import pytest

from engine.core import paths
from engine.core.errors import StoreError
from engine.core.events import Failed, Finished
from engine.results.store import Store
from gui.pages.run.controller import RunController
from tests.engine.helpers import TINY

pytestmark = [pytest.mark.gui, pytest.mark.worker]

SHORT = TINY.with_changes(max_seconds=0.5, repeats=1)


def _run(qtbot, store, cancel: bool = False) -> list[tuple[str, object]]:
    controller = RunController(store=store)
    heard: list[tuple[str, object]] = []

    def on_event(event) -> None:
        if isinstance(event, Finished):
            heard.append(("finished", event))
        elif isinstance(event, Failed):
            heard.append(("failed", event))

    controller.engine_event.connect(on_event)
    controller.run_failed.connect(lambda failure, text: heard.append(("said", text)))
    controller.result_stored.connect(lambda r: heard.append(("stored", r)))
    controller.store_failed.connect(lambda m, d: heard.append(("store_failed", d)))
    with qtbot.waitSignal(
        controller.running_changed, timeout=120_000, check_params_cb=lambda r: not r
    ):
        assert controller.start(SHORT.with_changes(max_seconds=60) if cancel else SHORT)
        if cancel:
            controller.cancel()
    return heard


class Opened:
    """The store, opened as the controller opens it, noting on which thread each time."""

    def __init__(self) -> None:
        self.store = Store()
        self.threads: list[threading.Thread] = []

    def __call__(self) -> Store:
        self.threads.append(threading.current_thread())
        return self.store


def test_the_result_is_stored_off_the_gui_thread_then_said(qtbot):
    opened = Opened()
    threads, store = opened.threads, opened.store
    heard = _run(qtbot, opened)
    assert [what for what, _ in heard] == ["finished", "stored"]
    assert threads and threads[0] is not threading.main_thread()
    assert store.get(heard[1][1]["run_id"])["status"] == "ok"


def test_a_store_that_fails_is_said_and_the_result_kept_in_a_file(qtbot):
    def broken() -> Store:
        raise StoreError("/nowhere/results.db", "the disk is full")

    heard = _run(qtbot, broken)
    assert [what for what, _ in heard] == ["finished", "store_failed"]
    assert "the disk is full" in heard[1][1]


def test_a_cancelled_run_is_stored_off_the_gui_thread_then_said(qtbot):
    opened = Opened()
    threads, store = opened.threads, opened.store
    heard = _run(qtbot, opened, cancel=True)
    assert [what for what, _ in heard] == ["failed", "said", "stored"]
    assert heard[0][1].kind == "cancelled"
    assert "Cancelled" in heard[1][1]
    assert threads and all(t is not threading.main_thread() for t in threads)
    stored = store.get(heard[2][1]["run_id"])
    assert stored["status"] == "cancelled" and stored["error"]["kind"] == "cancelled"


def test_a_fault_the_store_did_not_foresee_keeps_a_cancelled_run_in_a_file(qtbot):
    def broken() -> Store:
        raise OSError("the disk went away")

    heard = _run(qtbot, broken, cancel=True)
    assert [what for what, _ in heard] == ["failed", "said", "store_failed"]
    assert "OSError: the disk went away" in heard[2][1]
    run_id = heard[0][1].run_id
    recovered = paths.recovered() / f"{run_id}.json"
    assert json.loads(recovered.read_text())["status"] == "cancelled"  # kept, not lost
