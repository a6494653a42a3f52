"""How a person moves about the charts and the past runs: the wheel scrolls the page and
Ctrl+wheel zooms, Reset view gives every axis back, a selected past run is in view at once,
the sweep's batch axis stays readable at any zoom; Past runs shows five rows at the default
size, each run named and of a kind."""

from __future__ import annotations

import pyqtgraph as pg
import pyqtgraph.exporters
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QFontMetrics, QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollArea, QVBoxLayout, QWidget

from engine.core.events import Failed, Started, Step
from engine.measure.result import failed_result
from engine.results.store import Store
from gui.common.chart import Chart
from gui.common.results_model import COLUMNS, run_kind
from gui.common.theme import LIGHT_PLOTS
from gui.pages.run.plots import LivePlots
from tests.engine.price_results import result as priced_result
from tests.gui.helpers import shown_chart, tiny_config
from tests.gui.test_plots import RUN, feed_run, step_times


def wheel(widget: QWidget, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """One notch of the wheel, down, at the middle of `widget`."""
    middle = QPoint(widget.width() // 2, widget.height() // 2)
    event = QWheelEvent(
        QPointF(middle),
        QPointF(widget.mapToGlobal(middle)),
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        modifiers,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_the_wheel_scrolls_the_page_and_ctrl_wheel_zooms_the_chart(qtbot):
    page = QWidget()
    column = QVBoxLayout(page)
    chart = Chart("t", "A chart", "y")
    chart.setMinimumHeight(400)
    column.addWidget(chart)
    column.addSpacing(1500)  # a page taller than its window
    area = QScrollArea()
    area.setWidget(page)
    area.setWidgetResizable(True)
    area.resize(500, 500)
    qtbot.addWidget(area)
    area.show()
    qtbot.waitExposed(area)
    chart.plot.setXRange(0, 10, padding=0)
    before = chart.plot.vb.viewRange()
    wheel(chart.viewport())
    assert chart.plot.vb.viewRange() == before  # not zoomed
    assert area.verticalScrollBar().value() > 0  # the page scrolled
    wheel(chart.viewport(), Qt.KeyboardModifier.ControlModifier)
    assert chart.plot.vb.viewRange() != before  # zoomed


def test_reset_view_gives_every_axis_back_and_past_runs_are_in_view(qtbot):
    plots = LivePlots(LIGHT_PLOTS)
    qtbot.addWidget(plots)
    plots.resize(900, 600)
    plots.show()
    # A past run selected before any run: its level is in view at once (was off the 0-1 axis).
    past = priced_result(samples_per_s=5000.0)
    plots.set_overlays([past])
    top = plots.throughput.plot.vb.viewRange()[1][1]
    assert top >= 5000.0
    plots.begin_run(tiny_config(usd_per_hour=1.0), "")
    feed_run(plots, step_times(40))
    plots.end_run({"status": "ok", "throughput_samples_per_s": 300.0, "usd_per_epoch": 0.05})
    plots.refresh()  # the end's turns drawn now
    for chart in plots.charts.values():
        chart.plot.vb.scaleBy((0.1, 0.1))  # a zoom, as a drag or Ctrl+wheel does
    actions = [a.text() for a in plots.memory.plot.vb.menu.actions()]
    assert actions[0] == "Reset view"
    plots.memory.plot.vb.menu.actions()[0].trigger()
    (x0, x1), (_, top) = plots.throughput.plot.vb.viewRange()
    assert x0 == 0.0 and x1 >= plots.series.latest_t and top >= 5000.0  # the run and the past
    assert plots.cost.plot.vb.viewRange()[1][1] >= 0.05  # the result's level
    assert plots.memory.plot.vb.viewRange()[1][1] >= 16.0  # the device's total (16 GiB)
    for chart in plots.charts.values():  # the whole run on each (one time axis)
        low, high = chart.plot.vb.viewRange()[0]
        assert low <= 0.0 and high >= plots.series.latest_t, chart.name


def live_plots(qtbot) -> LivePlots:
    plots = LivePlots(LIGHT_PLOTS)
    qtbot.addWidget(plots)
    plots.resize(900, 600)
    plots.show()
    return plots


def top_of(chart: Chart) -> float:
    return chart.plot.vb.viewRange()[1][1]


def test_a_new_run_shows_its_warm_up_over_a_past_runs_range(qtbot):
    plots = live_plots(qtbot)
    plots.set_overlays([priced_result(samples_per_s=2500.0)])  # the axis: 0 to about 2500
    plots.throughput.plot.vb.scaleBy((0.5, 0.5))  # and a zoom of the user's
    plots.begin_run(tiny_config(usd_per_hour=1.0), "")
    plots.on_event(Started(run_id=RUN))
    # Warm-up only, far above the past run (no measured step yet): in view at once.
    warm = Step(run_id=RUN, step_times_s=[0.001] * 40, samples=64, measured=False, elapsed_s=0.4)
    plots.on_event(warm)
    plots.refresh()
    assert top_of(plots.throughput) >= 64 / 0.001
    (x0, x1), _ = plots.throughput.plot.vb.viewRange()
    assert x0 == 0.0 and x1 >= 0.4


def test_a_new_selection_fits_the_axes_to_it(qtbot):
    plots = live_plots(qtbot)
    plots.set_overlays([priced_result(samples_per_s=5000.0)])
    assert top_of(plots.throughput) >= 5000.0
    plots.set_overlays([priced_result(samples_per_s=100.0)])
    assert 100.0 < top_of(plots.throughput) < 200.0  # not the last selection's 0-6500
    plots.throughput.plot.vb.scaleBy((0.1, 0.1))  # zoomed in, then another selection
    plots.set_overlays([priced_result(samples_per_s=300.0)])
    assert 300.0 < top_of(plots.throughput) < 600.0


def test_an_exported_chart_spans_its_data(qtbot, tmp_path, monkeypatch):
    from gui.common.export import export_chart

    plots = live_plots(qtbot)
    plots.begin_run(tiny_config(usd_per_hour=1.0), "")
    t = feed_run(plots, step_times(40))
    plots.refresh()  # mid-run: the live time axis runs half again past the data
    on_screen = plots.cost.plot.vb.viewRange()[0]
    assert on_screen[1] > 1.3 * t
    seen = []
    draw = pg.exporters.ImageExporter.export

    def drawn(exporter, *args, **kwargs):  # the range the file is drawn with
        seen.append(plots.cost.plot.vb.viewRange())
        return draw(exporter, *args, **kwargs)

    monkeypatch.setattr(pg.exporters.ImageExporter, "export", drawn)
    # Laid out wider than on screen: a linked axis would take a range scaled by the widths.
    export_chart(plots.cost.export_item, tmp_path / "cost.png", (900, 560))
    (x0, x1), _ = seen[0]
    end = max(plots.series.proj_t.values)
    assert x0 == 0.0 and end <= x1 <= end * 1.05
    assert plots.cost.plot.vb.viewRange()[0] == on_screen  # the screen's range back
    assert plots.cost.plot.vb.linkedView(0) is plots.throughput.plot.vb  # and its link


def test_the_sweep_batch_axis_stays_readable_at_any_zoom(qtbot):
    from gui.pages.sweep.chart import MAX_LOG2, Log2Axis

    axis = Log2Axis("bottom")
    metrics = QFontMetrics(axis.font())
    for low, high, size in ((-30.0, 25.0, 600.0), (0.0, 12.0, 300.0), (3.0, 9.0, 800.0)):
        (spacing, values), *_ = axis.tickValues(low, high, size)
        assert values and all(0 <= v <= MAX_LOG2 for v in values)
        labels = axis.tickStrings(values, 1.0, spacing)
        assert "0" not in labels and len(set(labels)) == len(labels)
        widest = max(metrics.horizontalAdvance(text) for text in labels)
        px = spacing * size / (high - low)
        assert px >= widest, (low, high)  # labels never run into each other
    # Between two powers of two: one label, not a row of "0".
    (_, values), *_ = axis.tickValues(5.2, 5.8, 400.0)
    assert axis.tickStrings(values, 1.0, 1.0) == [f"{2**5.5:,.3g}"]


def test_past_runs_name_each_run_and_its_kind_five_rows_high(window):
    store = Store()
    store.add(priced_result(run_id="20260101T000000-aaaaaaa1", model="resnet18-cifar"))
    sweep = priced_result(run_id="20260101T000001-aaaaaaa2", batch_size=128)
    store.add({**sweep, "sweep": {"group_id": "g1", "role": "trial", "trial": 2}}, group_id="g1")
    for i, kind in enumerate(("oom", "cancelled", "crashed")):
        failure = Failed(run_id=f"20260101T00001{i}-bbbbbbbb", kind=kind, message="m")
        store.add(failed_result(failure, tiny_config(batch_size=8), {}))
    window.results.refresh()
    model = window.results.model
    headers = [c.header for c in COLUMNS]
    run_col, kind_col = headers.index("Run"), headers.index("Kind")
    rows = {
        model.run_id(r): (
            model.index(r, run_col).data(),
            model.index(r, kind_col).data(),
        )
        for r in range(model.rowCount())
    }
    assert rows["20260101T000000-aaaaaaa1"] == (
        "resnet18-cifar b64 · GTX 1080 Ti · 2025-01-01 00:00",
        "run",
    )
    assert rows["20260101T000001-aaaaaaa2"][1] == "sweep"
    kinds = sorted(kind for _, kind in rows.values())
    assert kinds == ["cancelled", "failed", "oom", "run", "sweep"]
    # A run to an accuracy says so (its result's kind); one that failed says how.
    assert run_kind("ok", "accuracy", None) == "accuracy"
    assert run_kind("oom", "accuracy", None) == "oom"
    # At the default size, five rows fit in the table's viewport.
    window.resize(1280, 860)
    view = window.results.view
    QApplication.processEvents()
    row = view.verticalHeader().defaultSectionSize()
    assert view.viewport().height() >= 5 * row


def test_a_long_title_shrinks_to_fit_a_narrow_chart(qtbot):
    chart = shown_chart(qtbot, "Cost to accuracy per batch size", "USD", LIGHT_PLOTS, (900, 300))
    assert chart.plot.titleLabel.opts["size"] == "11pt"
    chart.resize(300, 300)  # the accuracy tab's bar chart, beside another, at 1280x860
    qtbot.waitUntil(lambda: chart.plot.titleLabel.opts["size"] != "11pt")
    # Whole: the layout (whose least width is the title's) fits the view, nothing cut.
    qtbot.waitUntil(lambda: chart.ci.minimumWidth() <= chart.viewport().width())
