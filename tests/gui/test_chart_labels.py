"""Chart labels never print over each other nor over the legend: each chart is rendered with
labels that would collide where they were put (levels at the same height, phase lines close
together, a hint and an overlaid run, a peak beside the device's total), its labels' boxes are
collected in scene coordinates, and no two may intersect. Then the same at an export's size,
and for the sweep chart's marks at the right edge. Checked by boxes, not by pixels: fonts
differ between machines, the rule does not."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QRectF

from engine.core.events import Phase, Started
from gui.common.chart import Chart
from gui.common.theme import LIGHT_PLOTS
from gui.pages.run.plots import GIB, LivePlots
from tests.gui.helpers import tiny_config
from tests.gui.test_plots import RUN, feed_run, step_times, window_rate

TOTAL = 2**34  # the device's memory in the scripted samples (16 GiB)


def label_boxes(chart: Chart) -> list[tuple[str, QRectF]]:
    chart.labels.separate()
    return chart.labels.boxes()


def assert_apart(chart: Chart) -> list[tuple[str, QRectF]]:
    boxes = label_boxes(chart)
    for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
        assert not box_a.intersects(box_b), f"{chart.name}: {a!r} over {b!r}"
    legend = chart.legend.sceneBoundingRect()
    for text, box in boxes:
        assert not box.intersects(legend), f"{chart.name}: {text!r} over the legend"
    return boxes


def past_run(rate: float, usd: float, peak_gib: float, tflops: float) -> dict:
    """A stored result whose levels sit at (almost) the run's own, to make labels collide."""
    return {
        "run_id": "20251201T000000-00000000",
        "created_at": "2025-12-01T00:00:00Z",
        "config": {"model": "tiny-mlp", "batch_size": 64},
        "environment": {"device": "cpu"},
        "throughput_samples_per_s": rate,
        "usd_per_epoch": usd,
        "peak_memory_bytes": peak_gib * GIB,
        "flops": {"achieved_tflops": tflops},
    }


@pytest.fixture
def plots(qtbot):
    p = LivePlots(LIGHT_PLOTS)
    qtbot.addWidget(p)
    p.resize(1000, 640)
    p.show()
    qtbot.waitExposed(p)
    return p


def finished(plots) -> dict:
    """A scripted run of three windows, ended with a result whose levels collide with an
    overlaid past run's."""
    plots.begin_run(tiny_config(usd_per_hour=1.0), "tiny-mlp · cpu")
    times = step_times(60)
    t = feed_run(plots, times, total=TOTAL)
    for repeat in (1, 2):  # phase lines "2" and "3" close to "window 1"
        plots.on_event(Phase(run_id=RUN, phase="measuring", detail=f"repeat {repeat + 1} of 3"))
    plots.on_event(Phase(run_id=RUN, phase="finishing"))
    plots.refresh()
    rate = window_rate(times)
    result = {
        "status": "ok",
        "throughput_samples_per_s": rate,
        "repeats": 3,
        "usd_per_epoch": 0.05,
        "peak_memory_bytes": 0.93 * TOTAL,  # the peak label beside "device total"
        "memory_total_bytes": TOTAL,
        "flops": {"achieved_tflops": 0.002, "mfu": None},
    }
    plots.end_run(result)
    plots.set_overlays([past_run(rate * 1.001, 0.0501, 0.95 * TOTAL / GIB, 0.002)])
    assert t > 0
    return result


def test_run_charts_labels_never_overlap_each_other_or_the_legend(plots):
    finished(plots)
    shown = {name: assert_apart(chart) for name, chart in plots.charts.items()}
    texts = {name: [text for text, _ in boxes] for name, boxes in shown.items()}
    print(texts)
    # Every label that collided where it was put is there, apart.
    assert any(t.startswith("result") for t in texts["throughput"])
    assert any(t.startswith("tiny-mlp b64") for t in texts["throughput"])
    assert {"window 1", "2", "3", "done"} <= set(texts["throughput"])
    assert any(t.startswith("peak") for t in texts["memory"])
    assert any(t.startswith("device total") for t in texts["memory"])
    assert len([t for t in texts["flops"] if "TFLOP/s" in t or "tiny-mlp" in t]) == 2


def test_the_empty_cost_plots_hint_and_an_overlaid_run_keep_apart(plots):
    plots.begin_run(tiny_config(usd_per_hour=1.0), "")
    plots.on_event(Started(run_id=RUN))
    # The overlay's level in the middle of the cost plot, where the hint is.
    plots.set_overlays([past_run(500.0, 1.0, 1.0, 0.001)])
    plots.cost.plot.setYRange(0, 2, padding=0)
    texts = [text for text, _ in assert_apart(plots.cost)]
    assert "projected once measuring begins" in texts
    assert any(t.startswith("tiny-mlp b64") for t in texts)


def test_labels_keep_apart_at_the_exported_size(plots):
    finished(plots)
    for chart in plots.charts.values():
        item = chart.export_item
        on_screen = item.geometry()
        with chart.exporting():
            item.setGeometry(QRectF(0, 0, 900, 560))
            item.layout.activate()
            assert_apart(chart)
            item.setGeometry(on_screen)


def test_sweep_marks_at_the_right_edge_stay_whole_and_apart(qtbot):
    from gui.pages.sweep.chart import SweepChart

    chart = SweepChart()
    chart.set_colors(LIGHT_PLOTS)
    qtbot.addWidget(chart)
    chart.resize(700, 420)
    chart.show()
    qtbot.waitExposed(chart)
    chart.plot.setXRange(0, 6, padding=0)
    chart.memory.setXRange(0, 6, padding=0)
    # The cheapest batch and the knee on the same, last, batch size: labels right of the line
    # would run off the plot ("cheapest = kne").
    for mark, text in ((chart.cheapest_mark, "cheapest: 64"), (chart.knee_mark, "knee: 64")):
        mark.setValue(5.95)
        mark.label.setFormat(text)
        mark.show()
    boxes = assert_apart(chart)
    view = chart.plot.vb.sceneBoundingRect()
    for text, box in boxes:
        assert view.contains(box), f"{text!r} runs off the plot"
