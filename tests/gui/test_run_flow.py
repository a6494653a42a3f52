"""Runs through the real worker process: the whole flow, cancel, closing the window mid-run,
and a worker that dies. Each waits on signals, never on sleeps."""

from __future__ import annotations

import os
import signal

import psutil
import pytest
from PySide6.QtCore import Qt

from engine.core.events import Step
from engine.core.precision import imprecise
from engine.results.store import Store
from tests.gui.helpers import LONG_FORM, RUN_TIMEOUT_MS, TINY_FORM, fill_form, finished_head


def click_run(qtbot, window) -> None:
    qtbot.mouseClick(window.panel.run_button, Qt.MouseButton.LeftButton)
    assert window.controller.running


def wait_for_measured_step(qtbot, window) -> None:
    with qtbot.waitSignal(
        window.controller.engine_event,
        timeout=RUN_TIMEOUT_MS,
        check_params_cb=lambda e: isinstance(e, Step) and e.measured,
    ):
        pass


def worker_gone(pid: int | None) -> bool:
    if pid is None:
        return True
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_real_run_fills_all_four_plots_and_adds_a_row(qtbot, window):
    fill_form(window.panel, **TINY_FORM)
    with qtbot.waitSignal(
        window.controller.running_changed,
        timeout=RUN_TIMEOUT_MS,
        check_params_cb=lambda running: not running,
    ):
        click_run(qtbot, window)
        assert not window.panel.run_button.isEnabled()
    plots = window.plots
    qtbot.waitUntil(lambda: not plots.timer.isActive())  # the end drawn, a chart a turn
    assert len(plots._measured.xData) >= 5
    # The main line is the result's statistic: each window's samples / wall time, ending on
    # the window's own figure (a dot); the result's level is the median of those.
    assert len(plots._window.xData) >= 1
    assert len(plots._process.xData) >= 1 and plots.peak.dot.getData()[1][0] > 0
    assert len(plots._mid.xData) >= 1
    assert plots.result_levels.rate.isVisible() and plots.result_levels.cost.isVisible()
    # The row joins the table, selected, and the CLI's store has the same result.
    assert window.results.model.rowCount() == 1
    assert window.results.selected_run_ids() == [window.results.model.run_id(0)]
    stored = Store().get(window.results.model.run_id(0))
    assert stored["status"] == "ok" and stored["config"]["model"] == "tiny-mlp"
    assert plots.result_levels.cost.value() == stored["usd_per_epoch"]
    assert list(plots._ends.getData()[1]) == stored["throughput_repeats"]
    assert plots.result_levels.rate.value() == stored["throughput_samples_per_s"]
    steps = plots.series.meas_step_s
    assert len(steps) == stored["steps_measured"]  # every step reached the plot
    # The fourth plot: the FLOP rate the steps achieved; a CPU has no peak, so no MFU.
    flops = stored["flops"]
    assert list(plots.flops.line.xData) == list(plots.series.window_t.values)
    assert plots.flops.final.value() == pytest.approx(flops["achieved_tflops"])
    assert flops["mfu"] is None and "(peak unknown: no MFU)" in plots.flops.plot.titleLabel.text
    assert window.status.text.text().startswith(finished_head(stored))
    assert "95% interval" in window.status.text.text()  # the figure comes with its interval
    assert window.panel.run_button.isEnabled()
    # A warning (a busy machine: the tests run two at a time), or a figure not precise enough
    # to price, stands above the plots with its reason; a clean result leaves the bar hidden.
    verdict = imprecise(stored)
    if stored["warnings"] or verdict:
        assert window.message_bar.level == "warning"
        said = window.message_bar.text.text()
        assert all(w.rstrip(".") in said for w in stored["warnings"])
        assert verdict is None or verdict.why in said
    else:
        assert not window.message_bar.isVisible(), window.message_bar.text.text()


def test_cancel_mid_run_stops_the_worker(qtbot, window):
    fill_form(window.panel, **LONG_FORM)
    click_run(qtbot, window)
    wait_for_measured_step(qtbot, window)
    pid = window.controller.worker_pid
    with qtbot.waitSignal(
        window.controller.running_changed, timeout=5000, check_params_cb=lambda r: not r
    ):
        qtbot.mouseClick(window.panel.cancel_button, Qt.MouseButton.LeftButton)
    assert worker_gone(pid)
    assert window.message_bar.level == "info"
    assert window.message_bar.text.text().startswith("Cancelled")
    assert window.panel.run_button.isEnabled()
    statuses = list(Store().list().status)
    assert statuses == ["cancelled"]


def test_closing_the_window_mid_run_reaps_the_worker(qtbot, window):
    fill_form(window.panel, **LONG_FORM)
    click_run(qtbot, window)
    wait_for_measured_step(qtbot, window)
    pid = window.controller.worker_pid
    thread = window.controller._thread
    window.close()
    assert worker_gone(pid)
    assert not window.controller.running
    assert thread is not None and not thread.isRunning()


def test_a_worker_that_dies_is_shown_as_failed_and_the_app_keeps_working(qtbot, window):
    fill_form(window.panel, **LONG_FORM)
    click_run(qtbot, window)
    wait_for_measured_step(qtbot, window)
    pid = window.controller.worker_pid
    with qtbot.waitSignal(
        window.controller.running_changed, timeout=10_000, check_params_cb=lambda r: not r
    ):
        os.kill(pid, signal.SIGKILL)
    assert window.message_bar.level == "error"
    text = window.message_bar.text.text()
    assert text.startswith("The worker crashed") and "SIGKILL" in text
    assert "Traceback" not in text
    assert window.status.text.text() == "Run crashed"
    assert list(Store().list().status) == ["failed"]

    # The app keeps working: the next run goes through and joins the table.
    fill_form(window.panel, **TINY_FORM)
    with qtbot.waitSignal(
        window.controller.running_changed,
        timeout=RUN_TIMEOUT_MS,
        check_params_cb=lambda running: not running,
    ):
        click_run(qtbot, window)
    assert sorted(Store().list().status) == ["failed", "ok"]
    # The crash message is gone; at most the new result's caution shows (a busy machine:
    # the tests run two at a time).
    assert not window.message_bar.isVisible() or window.message_bar.level == "warning"


def test_the_form_turned_to_tensorflow_starts_its_warm_process_and_the_run_is_forked(
    qtbot, fresh_server, window
):
    """The framework on the form gets the warm process its workers are forked from
    (engine/process/forked.py): PyTorch's once the plots are painted, TensorFlow's when the
    form turns to it, so that run's worker skips TensorFlow's import too."""
    from engine.process import forked

    # Painted: the form's warm process was started then (fresh_server: none before it).
    qtbot.waitUntil(lambda: window.run_page._plots is not None)
    assert window.panel.framework.currentText() == "torch"
    assert forked.server_pid("torch") is not None and forked.server_pid("tensorflow") is None
    fill_form(window.panel, **TINY_FORM)
    window.panel.framework.setCurrentText("tensorflow")
    server = forked.server_pid("tensorflow")
    assert server is not None
    assert forked.wait_ready(framework="tensorflow", timeout_s=60)
    with qtbot.waitSignal(
        window.controller.running_changed,
        timeout=RUN_TIMEOUT_MS,
        check_params_cb=lambda running: not running,
    ):
        click_run(qtbot, window)
        worker = window.controller._thread.worker  # the run's WorkerProcess
    assert isinstance(worker.proc, forked.ForkedWorker)  # from the server: it answered the pid
    assert forked.server_pid("tensorflow") == server
    stored = Store().get(window.results.model.run_id(0))
    assert stored["status"] == "ok" and stored["config"]["framework"] == "tensorflow"
