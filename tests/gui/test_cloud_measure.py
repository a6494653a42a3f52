"""Compare's "Measure on this instance…": the estimate with its price, source and date, no
launch without the confirmation that names the bill, then a launch whose progress shows in the
dialog and on the Run tab, whose result lands in Past runs beside the home run, and whose
cluster is torn down; a cancel tears down and says what was billed; without SkyPilot the action
says how to add it.

Only engine/cloud/skypilot.py's SkyPilot is replaced: its launch runs nothing, its follow runs
the task's own run command here (tests/engine/cloud_helpers.py run_here), the instance's GPU
played by this CPU, and writes the job log SkyPilot would.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from engine.cloud import commands, skypilot
from engine.core import paths
from engine.measure.config import RunConfig
from engine.results.schema import validate
from engine.results.store import Store
from tests.engine.cloud_helpers import (  # noqa: F401
    TINY,
    need_cloud_env,
    run_here,
    sky_home,
)
from tests.engine.price_results import result as gpu_result
from tests.gui.helpers import show_tab

HOME_ID = "20250101T000000-home0001"
RUN_TIMEOUT_MS = 120_000  # the worker imports torch on a busy two-core machine
CHECK_TIMEOUT_MS = 120_000  # the cloud program imports SkyPilot on a busy two-core machine


class HereInstead:
    """SkyPilot's cloud calls, answered by this machine (its CPU stands in for the GPU)."""

    launched: list[str] = []
    downs: list[str] = []

    def launch(self, mapping, cluster, output):
        self.mapping = mapping
        self.launched.append(cluster)
        output.write(f"(setup pid=7) {commands.CLOCK} setup {time.time():.3f}\n")
        return 1

    def follow(self, cluster, job_id, output):
        envs = self.mapping["envs"]
        config = {**json.loads(envs["EPOCHCOST_CONFIG"]), "device": "cpu"}
        envs["EPOCHCOST_CONFIG"] = json.dumps(config)
        self.log = paths.home() / "job-here.log"
        code = run_here(self.mapping, self.log)
        output.write(self.log.read_text())
        return code

    def download_log(self, cluster, job_id, folder):
        return Path(shutil.copy(self.log, folder / f"{cluster}.log"))

    def down(self, cluster):
        self.downs.append(cluster)

    def down_command(self, cluster):
        return f"sky down {cluster}"

    def cancel_launch(self):
        pass  # nothing under way on a server


class Stuck(HereInstead):
    """A provisioning that writes nothing and never ends until SkyPilot's server cancels the
    launch request (as sky.api_cancel does: the waiting call then raises)."""

    inside = threading.Event()

    def __init__(self):
        self.cancelled = threading.Event()

    def launch(self, mapping, cluster, output):
        self.launched.append(cluster)
        self.inside.set()
        self.cancelled.wait()
        raise RuntimeError("the launch request was cancelled")

    def cancel_launch(self):
        self.cancelled.set()


@pytest.fixture
def fake_sky(monkeypatch):
    HereInstead.launched.clear()
    HereInstead.downs.clear()
    monkeypatch.setattr(skypilot, "SkyPilot", HereInstead)
    return HereInstead


def home_result():
    """The GTX 1080 Ti run at home, with the short windows the cloud run takes over."""
    r = gpu_result(run_id=HOME_ID, model="tiny-mlp", batch_size=8, samples_per_s=5000.0)
    windows = {k: getattr(TINY, k) for k in ("warmup_steps", "min_steps", "max_steps")}
    windows.update(max_seconds=TINY.max_seconds, repeats=TINY.repeats, threads=1)
    config = RunConfig.from_dict({**r["config"], **windows})
    return validate({**r, "config": config.to_dict()})


def compare_g5(qtbot, window):
    """The Compare tab on the home run, its g5.xlarge row selected."""
    Store().add(home_result())
    page = show_tab(window, "Compare")
    window.results.refresh(select=HOME_ID)
    qtbot.waitUntil(lambda: page.comparison is not None)
    machines = [page.model.record(r)["instance_type"] for r in range(page.model.rowCount())]
    page.view.selectRow(machines.index("g5.xlarge"))
    return page


def offered(qtbot, page):
    """Ask to measure on the selected row; the dialog, once SkyPilot's check (the real cloud
    program, off the GUI thread) has answered."""
    need_cloud_env()  # SkyPilot's own check of the offered launch is real
    before = page.cloud.dialog
    assert page.measure_selected()
    assert "SkyPilot checks the launch" in page.message_bar.text.text()
    qtbot.waitUntil(lambda: page.cloud.dialog not in (None, before), timeout=CHECK_TIMEOUT_MS)
    return page.cloud.dialog


def offer_g5(qtbot, window):
    """Ask to measure the home run's settings on the g5.xlarge row."""
    page = compare_g5(qtbot, window)
    return page, offered(qtbot, page)


def test_the_estimate_the_confirmation_the_launch_and_the_result(qtbot, window, fake_sky):
    page, dialog = offer_g5(qtbot, window)
    estimate = dialog.estimate.text()
    # 10 min start-up + (1 window x 2 s + 2 min import, build, warm-up) at $1.006/h
    assert "aws g5.xlarge (us-east-1): $1.006/h" in estimate
    assert "Price: aws g5.xlarge on-demand, catalog, undated" in estimate
    assert "start-up ~10 min (provisioning, setup) + run ~2.0 min = 12.0 min" in estimate
    assert "about $0.20" in estimate and "about $0.20 ($1.006/h)" in dialog.confirm.text()
    assert "tiny-mlp · torch · batch 8 · fp32 on the instance's GPU" in estimate

    # No launch without the box that names the bill: Launch is disabled, Close launches nothing.
    assert not dialog.launch.isEnabled()
    qtbot.mouseClick(dialog.launch, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible() and not page.cloud.job.running and fake_sky.launched == []

    dialog = offered(qtbot, page)
    dialog.confirm.setChecked(True)
    seen = []  # each stage, and what the Run tab's message bar says then
    page.cloud.job.stage.connect(lambda s: seen.append((s, window.message_bar.text.text())))
    with qtbot.waitSignal(page.cloud.job.ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.launch, Qt.MouseButton.LeftButton)
        assert window.activity.reason() == "A cloud measurement is running (Compare tab)"
        assert not window.panel.run_button.isEnabled() and window.panel.cancel_button.isEnabled()
    said_then = dict(seen)
    assert list(said_then) == [
        "provisioning",
        "setup",
        "starting",
        "warm-up",
        "measuring",
        "bringing home",
    ]
    run_tab = "Cloud measurement on aws g5.xlarge (Compare tab): "
    assert said_then["provisioning"].startswith(run_tab + "provisioning the instance · ")
    assert said_then["measuring"].startswith(run_tab + "measuring · ")
    assert "billed so far" in said_then["measuring"]

    result = ended.args[0].result
    assert result["status"] == "ok" and result["cloud"]["instance_type"] == "g5.xlarge"
    assert result["price"]["usd_per_hour"] == 1.006 and result["cloud"]["startup_minutes"] > 0
    assert Store().get(result["run_id"])["cloud"]["cluster"] == fake_sky.launched[0]
    # In Past runs, selected, beside the home run; the cluster torn down once.
    assert window.results.selected_run_ids() == [result["run_id"]]
    assert window.results.model.row_of(HOME_ID) is not None
    frame = window.results.model.frame
    shown = frame.loc[frame["run_id"] == result["run_id"], "device"].item()
    assert shown.endswith(" on g5.xlarge"), shown  # not the bare GPU name of a home run
    assert "g5.xlarge" in frame.loc[frame["run_id"] == result["run_id"], "label"].item()
    assert fake_sky.downs == fake_sky.launched
    said = window.message_bar.text.text()
    assert said.startswith("Measured on aws g5.xlarge: ") and "The cluster is torn down." in said
    assert "at $1.006/h (aws g5.xlarge on-demand, catalog, undated" in said
    assert "from launch to the first measured step" in said and "Stored in Past runs." in said
    assert dialog.outcome.text() == said and dialog.close_button.text() == "Close"
    assert not window.activity.busy() and window.panel.run_button.isEnabled()
    # The Run tab drew the instance's run as it went: its steps, its figure, and a caption that
    # names the instance and its price; the panel's price does not reprice it.
    plots = window.plots
    qtbot.waitUntil(lambda: not plots.timer.isActive())  # the end drawn, a chart a turn
    assert len(plots._measured.xData) >= 1 and plots.result_levels.rate.isVisible()
    assert "A10G on aws g5.xlarge" in plots.caption and "$1.006/h" in plots.caption
    window.panel.price.edit.setText("3.50")
    assert "$1.006/h" in plots.caption and "$3.50/h" not in plots.caption


@pytest.mark.parametrize("which", ["panel", "dialog"])
def test_a_cancel_tears_down_and_says_what_was_billed(qtbot, window, fake_sky, monkeypatch, which):
    monkeypatch.setattr(skypilot, "SkyPilot", Stuck)
    Stuck.inside.clear()
    page, dialog = offer_g5(qtbot, window)
    dialog.confirm.setChecked(True)
    qtbot.mouseClick(dialog.launch, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(Stuck.inside.is_set)
    assert "provisioning the instance" in window.message_bar.text.text()
    button = window.panel.cancel_button if which == "panel" else dialog.close_button
    with qtbot.waitSignal(page.cloud.job.ended, timeout=30_000) as ended:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    text = ended.args[0].text
    assert text.startswith("Stopped during provisioning and setup; the cluster is torn down")
    assert "billed at most" in text and "at the cluster's $/h" in text
    assert fake_sky.downs == fake_sky.launched and len(fake_sky.downs) == 1
    kept = Store().get(ended.args[0].result["run_id"])
    assert kept["status"] == "cancelled" and kept["cloud"]["startup_usd"] is not None
    # The Run tab's run, which never reached the worker, ends there too (no clock left going).
    assert window.status.text.text() == "Run cancelled" and not window.status._clock.isActive()
    assert window.message_bar.text.text() == text and dialog.outcome.text() == text
    row = window.results.model.row_of(kept["run_id"])
    assert window.results.model.record(row)["run_kind"] == "cancelled"
    assert not window.activity.busy()
    # A second launch goes through its stages again from the start, and ends on the Run tab too.
    Stuck.inside.clear()
    stages = []
    page.cloud.job.stage.connect(stages.append)
    page, dialog = offer_g5(qtbot, window)  # the home run selected again
    dialog.confirm.setChecked(True)
    qtbot.mouseClick(dialog.launch, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(Stuck.inside.is_set)
    assert stages == ["provisioning"] and window.status._clock.isActive()
    with qtbot.waitSignal(page.cloud.job.ended, timeout=30_000):
        qtbot.mouseClick(window.panel.cancel_button, Qt.MouseButton.LeftButton)
    assert window.status.text.text() == "Run cancelled" and not window.status._clock.isActive()


def test_without_the_cloud_environment_the_action_says_how_to_make_it(
    qtbot, window, fake_sky, monkeypatch, tmp_path
):
    monkeypatch.setenv("EPOCHCOST_CLOUD_PYTHON", str(tmp_path / "none"))
    page = compare_g5(qtbot, window)
    assert not page.measure_selected()
    assert page.cloud.dialog is None
    assert "epochcost env create --cloud" in page.message_bar.text.text()


def test_closing_the_window_mid_launch_tears_down_first(qtbot, window, fake_sky, monkeypatch):
    monkeypatch.setattr(skypilot, "SkyPilot", Stuck)
    Stuck.inside.clear()
    page, dialog = offer_g5(qtbot, window)
    dialog.confirm.setChecked(True)
    qtbot.mouseClick(dialog.launch, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(Stuck.inside.is_set)
    window.close()  # waits for the teardown; the fixture fails a test that leaves a thread
    assert not page.cloud.job.running and fake_sky.downs == fake_sky.launched
    kept = Store().get(window.results.model.run_id(0))
    assert kept["status"] == "cancelled" and kept["cloud"]["cluster"] == fake_sky.downs[0]


def test_closing_the_window_while_skypilot_checks_stops_the_check(qtbot, window, fake_sky):
    need_cloud_env()
    page = compare_g5(qtbot, window)
    assert page.measure_selected() and page.cloud._checking is not None
    window.close()  # the fixture fails a test that leaves a thread or a process running
    assert page.cloud._checking is None and page.cloud.dialog is None


def test_several_instances_one_confirmation_with_the_total_then_one_after_another(
    qtbot, window, fake_sky
):
    from PySide6.QtCore import QItemSelectionModel

    page = compare_g5(qtbot, window)  # g5.xlarge selected; p3.2xlarge added to the selection
    machines = [page.model.record(r)["instance_type"] for r in range(page.model.rowCount())]
    row = page.model.index(machines.index("p3.2xlarge"), 0)
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    page.view.selectionModel().select(row, flags)
    assert {r.instance_type for r in page.selected_rows()} == {"g5.xlarge", "p3.2xlarge"}
    menu_item = next(a for a in page.view.actions() if a.text().startswith("Measure on"))
    assert page.measure_button.text() == menu_item.text() == "Measure on these 2 instances…"
    dialog = offered(qtbot, page)
    estimate = dialog.estimate.text()
    assert "aws g5.xlarge (us-east-1): $1.006/h" in estimate
    assert "aws p3.2xlarge (us-east-1): $3.06/h" in estimate
    total = sum(p.estimate["estimated_usd"] for p in dialog.plans)
    assert f"about ${total:.2f} in all (2 instances" in dialog.confirm.text()
    assert dialog.launch.text() == f"Launch (about ${total:.2f})"
    dialog.confirm.setChecked(True)
    ends = []
    page.cloud.job.ended.connect(ends.append)
    qtbot.mouseClick(dialog.launch, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(ends) == 2, timeout=2 * RUN_TIMEOUT_MS)
    kept = [Store().get(e.result["run_id"])["cloud"]["instance_type"] for e in ends]
    assert sorted(kept) == ["g5.xlarge", "p3.2xlarge"]
    # one cluster at a time, each torn down before the next was launched
    assert fake_sky.downs == fake_sky.launched and len(set(fake_sky.launched)) == 2
    assert dialog.close_button.text() == "Close" and not window.activity.busy()
