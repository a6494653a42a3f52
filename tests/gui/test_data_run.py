"""A run that loads its data (issue 28) in the app: the image folder chosen in the panel is what
the real worker reads, the Run tab draws the input wait over time on the throughput chart's right
axis (only for such a run), the
input-bound warning stands in the message bar, and Past runs, its CSV, the caption, the status
line and the HTML report carry the data source (and the data's cost beside a synthetic run)."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET

import pytest

from engine.core.events import Started, Step
from engine.results.store import Store
from engine.workloads.data import random_folder
from gui.common.export import export_chart
from gui.common.theme import LIGHT_PLOTS
from gui.pages.run.plots import LivePlots
from tests.gui.helpers import TINY_FORM, fill_form, run_to_end, tiny_config

RUN = "20260101T000000-abcdef12"


@pytest.fixture
def folder(tmp_path):
    """A small image folder: 40 images of 32 px in 2 classes (tiny-mlp takes 32x32x3)."""
    return random_folder.make(tmp_path / "set", images=40, size=32, classes=2)


def column(model, header: str) -> int:
    return [c.header for c in model.columns].index(header)


def test_an_image_folder_run_shows_its_input_wait_and_keeps_its_data(qtbot, window, folder):
    fill_form(window.panel, **TINY_FORM)
    box = window.panel.data_box
    box.kind.setCurrentIndex(box.kind.findData("imagefolder"))
    box.folder.setText(str(folder))
    box.workers.setText("0")  # load in the loop: no loader process to start on a busy box
    assert window.panel.validate(), window.panel.errors
    run_to_end(qtbot, window)

    stored = Store().get(window.results.model.run_id(0))
    assert stored["status"] == "ok", stored.get("error")
    assert stored["config"]["data"] == f"imagefolder:{folder}"
    assert stored["data"]["kind"] == "imagefolder" and stored["data"]["source"] == str(folder)
    assert stored["epoch_samples"] == 40
    fraction = stored["input_wait_fraction"]
    assert 0.0 <= fraction <= 1.0

    # On the throughput chart's right axis: each step's wait over its time, the window's share,
    # the result's level; no fifth chart under the four.
    chart = window.plots.input_wait
    assert chart.shown and window.plots.throughput.plot.getAxis("right").isVisible()
    assert "input_wait" not in window.plots.charts
    assert len(chart.per_step.xData) >= 5 and len(chart.line.xData) >= 1
    assert max(chart.per_step.yData) <= 100.0
    assert chart.final.isVisible() and chart.final.value() == pytest.approx(fraction * 100)
    assert chart.final.text.startswith(f"input wait: result {fraction:.1%}")
    assert "image folder" in window.plots.caption
    assert "input wait" in window.status.text.text()

    # A warning about the wait stands in the message bar, as every result's warning does.
    bound = [w for w in stored["warnings"] if "input-bound" in w]
    if bound:
        assert window.message_bar.level == "warning"
        assert bound[0].split(";")[0] in window.message_bar.text.text()

    # Past runs: the data source and the input wait, shown and exported.
    model = window.results.model
    data_cell = model.index(0, column(model, "Data")).data()
    assert data_cell == f"image folder {folder}"
    wait_cell = model.index(0, column(model, "Input wait")).data()
    assert wait_cell == f"{fraction:.1%}"
    csv = window.results.export_csv(folder.parent / "runs.csv").read_text()
    assert "data_kind" in csv and "input_wait_fraction" in csv and str(folder) in csv

    # The report: its data, its wait and, with a synthetic run of the same model stored,
    # what loading the data cost.
    twin = copy.deepcopy(stored)
    twin.update(
        run_id="20250101T000000-0000aaaa",
        created_at="2025-01-01T00:00:00Z",
        data={"kind": "synthetic"},
        input_wait_fraction=None,
        input_wait_repeats=None,
        warnings=[],
    )
    twin["config"]["data"] = "synthetic"
    twin["throughput_samples_per_s"] = stored["throughput_samples_per_s"] * 2
    if stored.get("throughput_ci95"):  # the interval holds its figure (the store checks)
        twin["throughput_ci95"] = [bound * 2 for bound in stored["throughput_ci95"]]
    Store().add(twin)
    html = window.report.html([stored])
    assert f"image folder {folder}" in html
    assert "waiting for data" in html
    assert "loading costs" in html and twin["run_id"] in html


def plots_with_waits(qtbot, config) -> LivePlots:
    plots = LivePlots(LIGHT_PLOTS)
    qtbot.addWidget(plots)
    plots.resize(900, 700)
    plots.show()
    plots.begin_run(config, "")
    plots.on_event(Started(run_id=RUN))
    return plots


def test_the_input_wait_is_each_steps_share_and_the_windows(qtbot, tmp_path, folder):
    plots = plots_with_waits(qtbot, tiny_config(data=f"imagefolder:{folder}"))
    assert plots.input_wait.shown  # shown from the start: the run loads its data
    times, waits = [0.010, 0.010, 0.020, 0.010], [0.005, 0.0, 0.010, 0.001]
    plots.on_event(
        Step(
            run_id=RUN,
            index=0,
            step_times_s=times,
            samples=16,
            measured=True,
            repeat=0,
            elapsed_s=0.06,
            window_samples=64,
            window_seconds=0.05,
            input_wait_s=waits,
        )
    )
    plots.refresh()
    assert list(plots.input_wait.per_step.yData) == pytest.approx([50.0, 0.0, 50.0, 10.0])
    assert list(plots.input_wait.line.yData) == pytest.approx([0.016 / 0.05 * 100])
    plots.end_run({"status": "ok", "throughput_samples_per_s": 1000.0, "input_wait_fraction": 0.3})
    plots.refresh()  # the end's turns drawn now
    assert plots.input_wait.final.value() == pytest.approx(30.0)
    assert "input-bound" in plots.input_wait.final.text


def test_a_synthetic_run_shows_no_input_wait(qtbot):
    plots = plots_with_waits(qtbot, tiny_config())
    plots.on_event(
        Step(run_id=RUN, index=0, step_times_s=[0.01], samples=16, measured=False, elapsed_s=0.01)
    )
    plots.refresh()
    assert not plots.input_wait.shown
    assert not plots.throughput.plot.getAxis("right").isVisible()
    assert plots.throughput.legend.getLabel(plots.input_wait.line) is None
    assert not plots.series.has_waits


def test_the_throughput_export_carries_the_input_wait_on_its_right_axis(qtbot, tmp_path, folder):
    plots = plots_with_waits(qtbot, tiny_config(data=f"imagefolder:{folder}"))
    step = Step(
        run_id=RUN,
        index=0,
        step_times_s=[0.010] * 4,
        samples=16,
        measured=True,
        repeat=0,
        elapsed_s=0.05,
        window_samples=64,
        window_seconds=0.04,
        input_wait_s=[0.002] * 4,
    )
    plots.on_event(step)
    plots.refresh()
    plots.end_run({"status": "ok", "throughput_samples_per_s": 1000.0, "input_wait_fraction": 0.2})
    plots.refresh()  # the end's turns drawn now
    bottom, top = plots.input_wait.view.viewRange()[1]
    assert bottom == 0.0 and top >= 25.0  # a 20% share reads as such, not as a full axis
    out = export_chart(plots.throughput.export_item, tmp_path / "throughput.svg", (900, 560))
    texts = " ".join("".join(t.itertext()) for t in ET.parse(out).getroot().iter())
    for words in ("samples per second", "input wait (% of step)", "input wait per step"):
        assert words in texts
    assert "input wait: result 20.0% (input-bound, right axis)" in texts  # the legend's
