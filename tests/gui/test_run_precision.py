"""Issue 42, "Stop when precise enough", in the app: the form's Target precision field (its
default, what it takes, what it refuses, kept between sessions), the throughput chart's band
of the run's interval narrowing window by window with the target's lines and "±4.1% → target
±3%" placed by the Run tab's label rule, the status line, and a real run with a target."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.events import Phase, Precision, Started, Step
from engine.core.precision_target import target_text
from engine.measure.config import DEFAULT_TARGET_PRECISION_PCT
from engine.measure.devices import list_devices
from engine.results.store import Store
from gui.pages.run.precision_band import BAND_NAME
from gui.pages.run.status import finished_text
from gui.panel.panel import ConfigPanel
from tests.gui.helpers import TINY_FORM, fill_form, run_to_end, tiny_config
from tests.gui.run_scenario import RUN, shown_plots
from tests.gui.test_run_chart_labels import assert_clear

FIELD = "target_precision_pct"


@pytest.fixture
def panel(qtbot):
    p = ConfigPanel(list_devices())
    qtbot.addWidget(p)
    p.show()
    return p


def shown_error(panel, field: str) -> str:
    label = panel._error_labels[field]
    return label.text() if label.isVisible() else ""


def test_the_field_starts_at_the_command_lines_default_and_round_trips(panel, qtbot):
    field = panel.numbers[FIELD]
    assert field.text() == f"{DEFAULT_TARGET_PRECISION_PCT:g}"
    assert panel.validate() and panel.config.target_precision_pct == DEFAULT_TARGET_PRECISION_PCT
    for text, value in (("5", 5.0), ("0.5 %", 0.5), ("", None), ("100", 100.0)):
        field.setText(text)
        assert panel.validate(), (text, panel.errors)
        assert panel.config.target_precision_pct == value
    field.setText("2.5")
    saved = panel.state()
    assert saved[FIELD] == "2.5"
    again = ConfigPanel(list_devices())
    qtbot.addWidget(again)
    again.restore(saved)
    assert again.validate() and again.config.target_precision_pct == 2.5


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("0", "0 is out of range (allowed 0.01 to 100)"),
        ("-3", "-3 is out of range (allowed 0.01 to 100)"),
        ("101", "101 is out of range (allowed 0.01 to 100)"),
        ("three", "'three' is not a number"),
    ],
)
def test_a_bad_target_is_said_beside_the_field_and_blocks_run(panel, text, words):
    panel.numbers[FIELD].setText(text)
    assert not panel.validate()
    assert words in shown_error(panel, FIELD)
    assert panel.numbers[FIELD].property("invalid")
    assert not panel.run_button.isEnabled()


# The chart, on a scripted run ---------------------------------------------------------------

# (window's figure, its interval so far: achieved) per window: narrowing, never reaching ±3%.
WINDOWS = ((1000.0, 0.12), (980.0, 0.066), (1010.0, 0.041))


def feed(plots) -> None:
    """Warm-up and three windows of a run with a ±3% target, each followed by its interval."""
    plots.on_event(Started(run_id=RUN))
    t = 0.1
    plots.on_event(Step(run_id=RUN, step_times_s=[0.01] * 5, samples=16, measured=False,
                        elapsed_s=t))  # fmt: skip
    for r, (rate, achieved) in enumerate(WINDOWS):
        detail = f"repeat {r + 1}, until ±3% or 60 s"
        plots.on_event(Phase(run_id=RUN, phase="measuring", detail=detail))
        start = t
        for i in range(4):
            t += 0.16
            times = list(np.full(10, 0.016 * 1000 / rate))
            plots.on_event(
                Step(
                    run_id=RUN,
                    index=10 * i,
                    step_times_s=times,
                    samples=16,
                    repeat=r,
                    elapsed_s=t,
                    window_samples=160 * (i + 1),
                    window_seconds=t - start,
                    window_done=i == 3,
                )  # fmt: skip
            )
        median = float(np.median([w for w, _ in WINDOWS[: r + 1]]))
        plots.on_event(
            Precision(
                run_id=RUN,
                elapsed_s=t,
                windows=r + 1,
                figure=median,
                low=median * (1 - achieved),
                high=median * (1 + achieved),
                achieved=achieved,
                target=0.03,
                reached=False,
                seconds=t - 0.1,
                budget_s=60.0,
            )  # fmt: skip
        )
    plots.refresh()


def test_the_throughput_chart_shows_the_interval_narrowing_and_the_target(qtbot):
    plots = shown_plots(qtbot)
    plots.begin_run(tiny_config(target_precision_pct=3.0), "tiny-mlp · cpu")
    feed(plots)
    goal = plots.goal
    legend = [label.text for _, label in plots.throughput.legend.items]
    assert BAND_NAME in legend and "target ±3%" in legend
    assert len(plots.series.ci_t) == 3
    x, y = goal.above.getData()
    assert list(x) == list(plots.series.ci_t.values)
    assert y[-1] == pytest.approx(1000.0 * 1.03)  # the median of the three windows, +3%
    band_x, band_y = goal.band.getData()
    # Narrowing: each window's high end nearer the figure than the one before.
    assert list(band_y[:3]) == pytest.approx([1000.0 * 1.12, 990.0 * 1.066, 1000.0 * 1.041])
    assert goal.label.textItem.toPlainText() == "±4.1% → target ±3%"
    texts = assert_clear(plots.throughput)
    assert "±4.1% → target ±3%" in texts
    # One mark for the windows (each window's figure shows the others), not one a window.
    assert "window 1" in texts and "2" not in texts and "measuring" not in texts
    result = {
        "status": "ok",
        "run_id": RUN,
        "throughput_samples_per_s": 1000.0,
        "throughput_ci95": [959.0, 1041.0],
        "repeats": 3,
        "epoch_seconds": 50.0,
        "target_precision": {
            "target": 0.03,
            "achieved": 0.041,
            "reached": False,
            "windows": 3,
            "seconds": 1.9,
            "why_not": "the time ran out first",
            "seconds_needed": 9.5,
        },  # fmt: skip
    }
    plots.end_run(result)
    plots.refresh()  # the end's turns drawn now
    # The verdict is the result's legend entry's, beside its interval; the plot, which the
    # finished run's windows can fill, carries no label of it.
    named = plots.result_levels.rate.text
    assert named.endswith("\n95% interval ±4.1%; target ±3% not reached"), named
    assert not goal.label.isVisible()
    assert not any("target" in text for text in assert_clear(plots.throughput))
    status = finished_text(result)
    assert "target ±3% not reached: ±4.1% after 3 windows in 1.9 s" in status
    assert "about 9.5 s of measuring would reach it" in status


def test_a_run_without_a_target_draws_none_of_it(qtbot):
    plots = shown_plots(qtbot)
    plots.begin_run(tiny_config(), "tiny-mlp · cpu")
    legend = [label.text for _, label in plots.throughput.legend.items]
    assert BAND_NAME not in legend and not plots.goal.label.isVisible()


def test_a_real_run_with_a_loose_target_stops_and_says_so(qtbot, window):
    fill_form(window.panel, **{**TINY_FORM, FIELD: "50", "max_seconds": "3"})
    run_to_end(qtbot, window)
    result = Store().get(window.results.model.run_id(0))
    goal = result["target_precision"]
    assert goal["target"] == 0.5 and goal["budget_s"] == 3.0
    assert len(window.plots.series.ci_t) == goal["windows"] == result["repeats"]
    assert target_text(goal) in window.status.text.toolTip()
    named = window.plots.result_levels.rate.text  # after its interval, or alone on its line
    assert named.endswith("target ±50% " + ("reached" if goal["reached"] else "not reached"))
