"""The Sweep tab over an axis other than batch size (issue 41): the form chooses the axis and
reads its values with the axis's own reader; a real precision study of the tiny model on the
CPU draws a chart whose x axis is the axis (ticks "fp32", "bf16"), fills a table with the
axis's value column, refuses tf32 with its reason and marks the cheapest; a bad list is said
beside the field; a power-limit study on the CPU is refused in words; the power-limit
trade-off chart marks the cheapest. Each waits on signals, never on sleeps."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt

from engine.core.events import Step
from engine.results.store import Store
from engine.study.axes import AXES
from engine.study.events import PointProgress
from engine.study.point import StudyPoint
from engine.study.summary import summarize
from gui.common.theme import LIGHT_PLOTS
from gui.pages.sweep.page import SweepPage
from gui.pages.sweep.study_chart import StudyChart
from gui.pages.sweep.tradeoff import TradeoffChart
from tests.engine.helpers import started_here
from tests.gui.helpers import LONG_FORM, TINY_FORM, fill_form, show_tab, tiny_config
from tests.gui.test_chart_labels import assert_all_apart

STUDY_TIMEOUT_MS = 240_000  # a fresh worker per value; torch imports slowly on a busy box
SHORT_FORM = {**TINY_FORM, "max_seconds": "1.5"}  # three windows of at most 1.5 s a value


def sweep_page(window) -> SweepPage:
    page = show_tab(window, "Sweep")
    assert isinstance(page, SweepPage)
    return page


def choose_axis(page: SweepPage, name: str) -> None:
    page.form.axis.setCurrentIndex(page.form.axis.findData(name))
    assert page.form.axis_name == name


def table_rows(model) -> list[list[str]]:
    return [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def header(model) -> list[str]:
    return [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]


def test_a_precision_study_on_the_cpu_has_the_axis_on_its_chart_and_refuses_tf32(
    qtbot, window, tmp_path
):
    fill_form(window.panel, **SHORT_FORM)  # with the panel's price, $0.90/h
    page = sweep_page(window)
    assert page.form.axis_name == "batch"  # the tab starts as it always did
    choose_axis(page, "precision")
    assert page.form.edits["values"].text() == "fp32,bf16"  # the axis's example
    page.form.edits["values"].setText("fp32, bf16, tf32")
    assert page.views.currentWidget() is page.study.view
    with qtbot.waitSignal(
        page.running_changed, timeout=STUDY_TIMEOUT_MS, check_params_cb=lambda r: not r
    ):
        qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
        assert page.running and page.cancel_button.isEnabled()
        assert not page.form.axis.isEnabled()  # the axis stays while it runs
        assert not window.panel.run_button.isEnabled()  # no single run during the study

    summary = page.study.controller.summary
    assert summary is not None and summary.status == "completed", page.message_bar.text.text()
    chart = page.study.chart
    bottom = chart.plot.getAxis("bottom")
    assert bottom.labelText == "precision"
    # Precisions in the axis's order (fp32, tf32, fp16, bf16), each at its place in it.
    assert bottom._tickLevels == [[(0.0, "fp32"), (1.0, "tf32"), (3.0, "bf16")]]
    x, _ = chart.rate.getData()
    assert [round(v) for v in x] == [0, 3]  # the two measured (a little left of the tick)
    refused, _ = chart.not_run.getData()
    assert list(refused) == [1.0]  # tf32 drawn as not measured
    assert chart.plot.titleLabel.text == "Precision study"
    assert chart.plot.getAxis("right").labelText == "USD per epoch"
    assert "tiny-mlp · torch · batch 16 · fp32/tf32/bf16 · " in chart.caption.text
    assert page.study.tradeoff.isHidden()  # time against energy: a power-limit study's
    cheapest = summary.cheapest_value
    assert cheapest in ("fp32", "bf16")
    assert chart.cheapest_mark.isVisible()
    assert chart.cheapest_mark.value() == (0.0 if cheapest == "fp32" else 3.0)

    model = page.study.model
    assert page.tables.currentWidget() is page.study.table
    assert header(model)[:3] == ["Precision", "Status", "Samples/s"]
    rows = table_rows(model)
    assert [r[0] for r in rows] == ["fp32", "tf32", "bf16"]
    assert [r[1] for r in rows] == ["measured", "refused", "measured"]
    # Why tf32 was not measured, across the figures' columns it has none of.
    assert rows[1][2].startswith("tf32 needs an NVIDIA GPU")
    assert page.study.table.columnSpan(1, 2) > 1 and page.study.table.columnSpan(0, 2) == 1
    verdict = header(model).index("Verdict")
    assert rows[0 if cheapest == "fp32" else 2][verdict] == "cheapest"
    text = page.verdicts.text()
    assert f"<b>Cheapest</b> {cheapest} ($" in text and "tf32 (refused)" in text
    assert "tf32 not run: tf32 needs an NVIDIA GPU" in text
    assert page.status.text().startswith("Precision study completed: 2 points measured in")

    # The two measured points are stored as one group, and listed with the past runs.
    stored = Store().list(group_id=summary.group_id)
    assert sorted(stored["precision"]) == ["bf16", "fp32"]
    assert window.results.model.rowCount() == 2
    out = page.export_csv(tmp_path / "study.csv")
    assert out is not None
    csv = pd.read_csv(out)
    assert list(csv["value"]) == ["fp32", "tf32", "bf16"]
    assert list(csv["status"]) == ["ok", "refused", "ok"]
    assert page.export_chart("study", tmp_path / "study.png") is not None
    # Back to batch size: the batch sweep's chart and table, as they were.
    choose_axis(page, "batch")
    assert page.views.currentWidget() is page.chart and page.tables.currentWidget() is page.table


def test_cancel_mid_study_keeps_the_finished_points_and_leaves_nothing_running(qtbot, window):
    fill_form(window.panel, **LONG_FORM)
    page = sweep_page(window)
    choose_axis(page, "precision")
    assert page.start(), page.message_bar.text.text()
    job = page.study.controller.job
    assert job is not None
    with qtbot.waitSignal(
        job.item,
        timeout=STUDY_TIMEOUT_MS,
        check_params_cb=lambda e: isinstance(e, PointProgress) and isinstance(e.event, Step),
    ):
        pass
    with qtbot.waitSignal(page.running_changed, timeout=30_000, check_params_cb=lambda r: not r):
        window.menu_actions.cancel.trigger()
    summary = page.study.controller.summary
    assert summary is not None and summary.status == "cancelled"
    assert page.message_bar.level == "info"
    assert page.message_bar.text.text().startswith("Study cancelled; kept")
    assert started_here() == []
    assert page.start_button.isEnabled() and page.form.axis.isEnabled()


def test_bad_values_say_what_is_wrong_beside_the_field_and_start_nothing(qtbot, window):
    page = sweep_page(window)
    choose_axis(page, "precision")
    error = page.form._error_labels["values"]
    edit = page.form.edits["values"]
    assert error.isHidden() and page.start_button.isEnabled()
    for axis, text, words in (
        ("precision", "fp32,fp64", "'fp64' is not one of fp32, tf32, fp16, bf16 (precisions)"),
        ("precision", "", "give precisions, e.g. fp32,bf16"),
        ("loader-workers", "0,abc", "'abc' is not a whole number"),
        ("loader-workers", "0,1,1", "'0,1,1' names 1 twice"),
        ("processes", "2", "give at least 2 process counts, e.g. 1,2,4,8"),
        ("power-limit", "150,-5", "-5 is out of range"),
    ):
        choose_axis(page, axis)
        edit.setText(text)
        assert not error.isHidden() and error.text().startswith(words), error.text()
        assert edit.property("invalid")
        assert not page.start_button.isEnabled()
        assert not page.start()
        assert f"Values: {words}" in page.message_bar.text.text()
        assert page.study.controller.job is None
    choose_axis(page, "processes")
    edit.setText("1:4")  # a doubling range, as for batch sizes
    assert error.isHidden() and page.form.study_inputs is not None
    assert page.form.study_inputs.values == (1, 2, 4)
    # The batch fields are batch size's alone; the values field is every other axis's.
    assert page.form.edits["batch_sizes"].isHidden() and not edit.isHidden()
    choose_axis(page, "batch")
    assert edit.isHidden() and not page.form.edits["batch_sizes"].isHidden()
    assert page.start_button.isEnabled()


def test_a_power_limit_study_on_the_cpu_is_refused_beside_the_chooser(qtbot, window):
    fill_form(window.panel, **TINY_FORM)
    page = sweep_page(window)
    choose_axis(page, "power-limit")
    assert page.form.edits["values"].text() == "150,200,250"
    error = page.form._axis_error
    assert not error.isHidden() and "needs an NVIDIA GPU" in error.text()
    assert not page.start_button.isEnabled()
    assert not page.start()
    said = page.message_bar.text.text()
    assert said.startswith("Vary: a power-limit sweep needs an NVIDIA GPU"), said
    assert not page.running and page.study.controller.job is None
    choose_axis(page, "precision")  # each axis keeps its own values
    assert error.isHidden() and page.form.edits["values"].text() == "fp32,bf16"
    page.form.edits["values"].setText("bf16")
    choose_axis(page, "power-limit")
    assert page.form.edits["values"].text() == "150,200,250"
    choose_axis(page, "precision")
    assert page.form.edits["values"].text() == "bf16"


def _point(index: int, watts: float, seconds: float, kwh: float, usd: float) -> StudyPoint:
    result = {
        "throughput_samples_per_s": 50_000 / seconds,
        "throughput_ci95": [50_000 / seconds * 0.95, 50_000 / seconds * 1.05],
        "epoch_seconds": seconds,
        "usd_per_epoch": usd,
        "energy": {"kwh_per_epoch": kwh},
    }
    return StudyPoint(index, watts, "ok", result=result)


def test_the_power_limit_charts_have_watts_on_the_axis_and_mark_the_cheapest(qtbot):
    axis = AXES["power-limit"]()  # not prepared: no GPU is touched
    points = [
        _point(1, 150.0, 40.0, 0.0019, 0.012),
        _point(2, 200.0, 32.0, 0.0021, 0.010),
        _point(3, 250.0, 30.0, 0.0025, 0.011),
        StudyPoint(4, 300.0, "failed", message="the limit could not be set"),
    ]
    summary = summarize(
        group_id="g",
        axis=axis,
        config=tiny_config(),
        status="completed",
        points=points,
        seconds=1.0,
    )
    assert summary.cheapest_value == 200.0
    chart, tradeoff = StudyChart(), TradeoffChart()
    for c in (chart, tradeoff):
        qtbot.addWidget(c)
        c.set_colors(LIGHT_PLOTS)
        c.resize(640, 420)
        c.show()
    chart.begin(axis, (150.0, 200.0, 250.0, 300.0))
    chart.show_points(summary)
    bottom = chart.plot.getAxis("bottom")
    assert bottom.labelText == "power limit (W)"
    assert [t[1] for t in bottom._tickLevels[0]] == ["150 W", "200 W", "250 W", "300 W"]
    x, _ = chart.rate.getData()
    assert [round(v, -1) for v in x] == [150.0, 200.0, 250.0]  # watts at themselves
    assert chart.cheapest_mark.value() == 200.0
    assert chart.cheapest_mark.label.format == "cheapest 200 W"
    chart.show_running(250.0)
    assert_all_apart(chart)  # the marks' labels, the axis titles and the legend keep apart
    tradeoff.show_points(summary)
    x, y = tradeoff.points.getData()
    assert list(x) == [40.0, 32.0, 30.0] and list(y) == [0.0019, 0.0021, 0.0025]
    best_x, best_y = tradeoff.cheapest.getData()
    assert list(best_x) == [32.0] and list(best_y) == [0.0021]
    assert [n.toPlainText() for n in tradeoff.names] == ["150 W", "200 W", "250 W"]
    assert tradeoff.plot.getAxis("bottom").labelText == "epoch time (s)"
    assert not tradeoff.hint.isVisible()
    assert chart.legend.getLabel(chart.rate_cut) is None  # every interval fits: nothing cut


def test_an_interval_past_the_axis_is_cut_with_a_sign_and_the_legend_says_so(qtbot):
    """A busy machine's interval ten times its figure: the axis stops at three times the
    highest point and a triangle at its top says the bar goes on (nothing hidden silently)."""
    axis = AXES["precision"]()
    wide = _point(1, 0.0, 40.0, 0.0019, 0.012)
    rate = wide.result["throughput_samples_per_s"]
    wide.result["throughput_ci95"] = [rate * 0.1, rate * 10]
    points = [StudyPoint(1, "fp32", "ok", result=wide.result)]
    summary = summarize(
        group_id="g", axis=axis, config=tiny_config(), status="completed", points=points, seconds=1
    )
    chart = StudyChart()
    qtbot.addWidget(chart)
    chart.set_colors(LIGHT_PLOTS)
    chart.begin(axis, ("fp32",))
    chart.show_points(summary)
    top = chart.plot.vb.viewRange()[1][1]
    assert rate < top < rate * 10
    x, y = chart.rate_cut.getData()
    assert len(x) == 1 and y[0] <= top
    assert chart.legend.getLabel(chart.rate_cut).text.startswith("interval goes on above")
