"""Chart labels never print over each other nor over the legend: each chart is rendered with
labels that would collide where they were put (levels at the same height, phase lines close
together, a hint and an overlaid run, a peak beside the device's total), its labels' boxes are
collected in scene coordinates, and no two may intersect. Then the same at an export's size,
and for the sweep chart's marks at the right edge. Then every tab at the smallest window
supported (1280x860) with data and every option shown: Sweep's axis titles, Plan's GPU names
(a line each), Accuracy's charts under a message, Run reachable with an owned price. Checked by
boxes, not by pixels: fonts differ between machines, the rule does not."""

from __future__ import annotations

import itertools

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetrics

from engine.core.events import Phase, Started
from engine.sweep.events import Trial
from gui.common.chart import Chart
from gui.common.table_rows import rows_height
from gui.common.theme import LIGHT_PLOTS
from gui.pages.run.plots import GIB, LivePlots
from tests.gui.helpers import show_tab, shown_chart, tiny_config
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
    plots.refresh()  # the end's turns drawn now
    plots.set_overlays([past_run(rate * 1.001, 0.0501, 0.95 * TOTAL / GIB, 0.002)])
    assert t > 0
    return result


def test_run_charts_labels_never_overlap_each_other_or_the_legend(plots):
    finished(plots)
    shown = {name: assert_apart(chart) for name, chart in plots.charts.items()}
    texts = {name: [text for text, _ in boxes] for name, boxes in shown.items()}
    print(texts)
    # Every label that collided where it was put is there, apart.
    assert any(t.startswith("tiny-mlp b64") for t in texts["throughput"])
    assert {"window 1", "2", "3", "done"} <= set(texts["throughput"])
    assert any(t.startswith("peak") for t in texts["memory"])
    assert any(t.startswith("device total") for t in texts["memory"])
    assert len([t for t in texts["flops"] if "tiny-mlp" in t]) == 1
    # The results are the legends' (KeyedLevel), none on a plot.
    assert not any(t.startswith("result") for shown_ in texts.values() for t in shown_)
    for name in ("throughput", "cost", "flops"):
        named = [label.text for _, label in plots.charts[name].legend.items]
        assert any(t.startswith("result") for t in named), name


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


def test_a_levels_label_sits_where_its_lines_data_is_fewest(qtbot):
    """A result's label beside its level, on a plot whose points crowd that level on the left
    (as a run's first per-step rates crowd its result): the label goes where no point lies
    under it, not over the points at its first place (the left)."""
    import numpy as np
    from PySide6.QtCore import QPointF

    from gui.common.chart import add_level, set_level

    chart = shown_chart(qtbot, "Throughput", "samples/s", LIGHT_PLOTS)
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(0, 40, 400))  # the first 40 of 100 seconds
    y = 100 + rng.normal(0, 6, 400)  # all about the level, above and below it
    chart.plot.plot(x, y, pen=None, symbol="o", symbolSize=3)
    chart.plot.setXRange(0, 100, padding=0)
    chart.plot.setYRange(60, 140, padding=0)
    level = add_level(chart, "result")
    set_level(level, 100.0, "result 100.0 samples/s")
    chart.labels.separate()
    box = level.label.sceneBoundingRect()
    vb = chart.plot.vb
    under = [box.contains(vb.mapViewToScene(QPointF(a, b))) for a, b in zip(x, y, strict=True)]
    assert not any(under), f"{sum(under)} points under {box}"
    assert chart.plot.vb.sceneBoundingRect().contains(box)


def test_a_levels_label_stays_by_its_line_when_a_lower_line_has_room_kept(qtbot):
    """Levels at 96 and 90 too close for a label between them, and one far below at 30: the
    96's label stays within two label heights of its line (below its line it keeps out only
    of the room above the 30's, not of everything above the 30, which sent it down there)."""
    import numpy as np
    from PySide6.QtCore import QPointF

    from gui.common.chart import add_level, set_level

    chart = shown_chart(qtbot, "Throughput", "samples/s", LIGHT_PLOTS)
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(0, 100, 600))
    chart.plot.plot(x, 88 + rng.normal(0, 5, 600), pen=None, symbol="o", symbolSize=3)
    chart.plot.setXRange(0, 100, padding=0)
    chart.plot.setYRange(0, 100, padding=0)
    levels = []
    for value, text in ((96.0, "result 96"), (90.0, "past 90"), (30.0, "past 30")):
        line = add_level(chart, text)
        set_level(line, value, text)
        levels.append(line)
    boxes = assert_apart(chart)
    vb = chart.plot.vb
    top = levels[0]
    box = top.label.sceneBoundingRect()
    line_y = vb.mapViewToScene(QPointF(0, top.value())).y()
    assert abs(box.center().y() - line_y) <= 2 * box.height(), (box, line_y)
    for line in levels:
        y = vb.mapViewToScene(QPointF(0, line.value())).y()
        for text, b in boxes:
            assert not b.top() < y < b.bottom(), f"{text!r} across the level at {line.value()}"


# Every tab at the smallest window size supported, with data, every option shown ----------------

SMALLEST = (1280, 860)


def axis_title_boxes(chart: Chart) -> list[tuple[str, QRectF]]:
    """The shown axis titles ("throughput (samples/s)", "memory (%)") as boxes in the scene."""
    out = []
    for item in chart.scene().items():
        if isinstance(item, pg.AxisItem) and item.isVisible() and item.label.isVisible():
            text = item.label.toPlainText().strip()
            if text and item.getViewWidget() is chart:
                out.append((text, item.label.mapRectToScene(item.label.boundingRect())))
    return out


def assert_all_apart(chart: Chart) -> None:
    """No label over another, over the legend, and no axis title over another."""
    labels = assert_apart(chart)
    titles = axis_title_boxes(chart)
    for (a, box_a), (b, box_b) in itertools.combinations(titles + labels, 2):
        assert not box_a.intersects(box_b), f"{chart.name}: {a!r} over {b!r}"


def trial(index: int, batch: int, rate: float, usd: float, fill: float) -> Trial:
    result = {"throughput_samples_per_s": rate, "usd_per_epoch": usd, "memory_fill": fill}
    return Trial(index, batch, "point", "ok", result=result)


@pytest.fixture
def small_window(window, qtbot):
    window.resize(*SMALLEST)
    qtbot.waitUntil(lambda: window.width() == SMALLEST[0])
    return window


def shown(qtbot, window, title: str):
    page = show_tab(window, title)
    qtbot.waitExposed(page)
    return page


def test_sweep_axis_titles_and_marks_keep_apart_and_its_table_shows_five_rows(qtbot, small_window):
    page = shown(qtbot, small_window, "Sweep")
    points = [trial(i, 2**b, 1000.0 * b, 0.01 / b, 10.0 * b) for i, b in enumerate(range(3, 9))]
    page.chart.reset([p.batch_size for p in points])
    page.chart.show_points(points)
    page.chart.show_verdicts(cheapest=128, knee=64, max_fit=256, recommended=128)
    assert_all_apart(page.chart)
    table = page.table
    assert table.height() >= rows_height(table, 5)


def test_the_plan_chart_gives_every_gpu_a_line_of_its_own_and_cuts_no_panel(qtbot, small_window):
    page = shown(qtbot, small_window, "Plan")
    form = page.form
    form.hardware.button(2).setChecked(True)  # owned
    form.gpu.setCurrentIndex(form.gpu.findData("GeForce GTX 1080 Ti"))
    form.edits["usd_per_kwh"].setText("0.3")
    assert page.update_plan() is not None, page.message_bar.text.text()
    page.views.setCurrentIndex(1)
    chart = page.chart
    qtbot.waitExposed(chart)
    assert len(chart.rows) >= 30
    line_px = QFontMetrics(QFont()).height()
    # The chart grows to its rows once laid out; its tab scrolls.
    qtbot.waitUntil(lambda: chart.plot.vb.height() / len(chart.rows) >= line_px)
    assert chart.ci.geometry().width() <= chart.viewport().width() + 1, "a panel is cut"
    names = [form.gpu.itemText(i) for i in range(form.gpu.count())]
    assert names == sorted(names, key=str.casefold)
    assert_all_apart(chart)


def test_accuracy_charts_keep_their_height_under_a_message_and_no_note_covers_points(
    qtbot, small_window
):
    page = shown(qtbot, small_window, "Accuracy")
    page.message_bar.show_message("A long message about the study. " * 4, "error")
    page.chart_tabs.setCurrentIndex(1)
    costs = page.costs
    costs.begin((64, 128, 256), True, "tiny-mlp · torch · fp32 · 3 repeat(s)")
    runs = [
        {
            "status": "ok",
            "config": {"batch_size": b},
            "accuracy": {"point": {"usd": u, "seconds": s}},
        }
        for b, u, s in ((64, 0.02, 30.0), (128, 0.015, 25.0), (256, 0.03, 40.0))
    ]
    costs.show_runs(runs, {}, "no cloud instance: a CPU result does not scale to a GPU")
    for chart in page.charts.values():
        qtbot.waitUntil(lambda c=chart: c.plot.vb.height() >= 150)
        assert_all_apart(chart)
    assert "a CPU result" in costs.scatter.caption.text
    view = costs.scatter.plot.vb
    texts = [i for i in view.childGroup.childItems() if isinstance(i, pg.TextItem)]
    assert not [t for t in texts if t.isVisible() and t.toPlainText().strip()]


def test_past_runs_and_the_panel_at_the_smallest_size(qtbot, small_window):
    panel = small_window.panel
    panel.price.owned_button.setChecked(True)  # eight more rows in the form
    panel.price.owned.ensure_loaded()
    run = panel.run_button
    qtbot.waitUntil(lambda: run.isVisible())
    inside = run.mapTo(small_window, run.rect().bottomRight())
    assert small_window.rect().contains(inside), "Run is below the window"
    hardware = panel.price.owned.hardware
    gpus = [hardware.itemText(i) for i in range(hardware.count())]
    gpus = [g for g in gpus if not g.startswith(("yours:", "other"))]
    assert gpus == sorted(gpus, key=str.casefold)
