"""Live plots driven by scripted events (the engine is not the subject here): curves fill
from buffers on the timer, the window's throughput is the result's statistic and ends where the
result's level is, the cost projection converges, memory shows its peak, legends stay off the
data."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pyqtgraph as pg
import pytest

from engine.core.events import Flops, Phase, Sample, Started, Step
from engine.core.interval import throughput_interval
from engine.pricing import cost
from gui.common.theme import LIGHT_PLOTS
from gui.pages.run.plot_style import BAND_POINTS, band_outline, mark_text
from gui.pages.run.plots import GIB, LivePlots
from gui.pages.run.series import Buffer, project, steps_relative
from tests.gui.helpers import tiny_config

RUN = "20260101T000000-abcdef12"
PER_EVENT = 5  # steps in one scripted event (the worker sends those of about 50 ms)
GAP_S = 0.002  # the loop's own time between two steps, in the window's wall time only


def band_now(plots) -> tuple[float, float]:
    """The (low, high) ends of the drawn interval band at the latest time."""
    y = plots._band.getData()[1]
    return float(y[len(y) // 2]), float(y[len(y) // 2 - 1])


def data(item):
    """All of a curve's data (getData() gives only what is drawn in the current view)."""
    return item.xData, item.yData


def step_times(n: int, seed: int = 1) -> list[float]:
    """Step times scattered around 50 ms, like a real run's (seeded)."""
    rng = np.random.default_rng(seed)
    return list(0.05 * (1 + 0.1 * rng.standard_normal(n)))


def window_rate(times, batch=16) -> float:
    """What the worker measures for a window of these steps: samples / wall time."""
    return len(times) * batch / (sum(times) + GAP_S * len(times))


@pytest.fixture
def plots(qtbot):
    p = LivePlots(LIGHT_PLOTS)
    qtbot.addWidget(p)
    p.show()
    return p


def feed_window(plots, times, t, batch=16, repeat=0, total=2**34) -> float:
    """One measured window as the worker sends it: steps coalesced, the window so far in each
    event, its own figure in the last; a memory sample now and then. Returns the clock."""
    plots.on_event(Phase(run_id=RUN, phase="measuring", detail=f"repeat {repeat + 1} of 3"))
    start = t
    for first in range(0, len(times), PER_EVENT):
        chunk = times[first : first + PER_EVENT]
        t += sum(chunk) + GAP_S * len(chunk)
        done = first + len(chunk) == len(times)
        plots.on_event(
            Step(
                run_id=RUN,
                index=first,
                step_times_s=list(chunk),
                samples=batch,
                repeat=repeat,
                elapsed_s=t,
                window_samples=(first + len(chunk)) * batch,
                window_seconds=t - start,
                window_done=done,
            )
        )
        own = 2**30 + first * 2**20
        plots.on_event(
            Sample(
                run_id=RUN,
                elapsed_s=t,
                memory_used_bytes=own + 2**32,
                memory_total_bytes=total,
                process_memory_bytes=own,
            )
        )
    return t


def feed_run(plots, times, batch=16, total=2**34) -> float:
    plots.on_event(Started(run_id=RUN))
    plots.on_event(Phase(run_id=RUN, phase="warmup", expected_steps=3))
    warm = Step(run_id=RUN, step_times_s=[0.2] * 3, samples=batch, measured=False, elapsed_s=0.6)
    plots.on_event(warm)
    return feed_window(plots, times, 0.6, batch, total=total)


def test_scripted_events_fill_the_plots_on_the_timer(plots, qtbot):
    config = tiny_config(batch_size=16, usd_per_hour=2.0)
    plots.begin_run(config, "tiny-mlp · cpu · $2.00/h")
    assert plots._cost_hint.isVisible()  # "projected once measuring begins"
    times = step_times(60)
    feed_run(plots, times)
    assert data(plots._measured)[0] is None or len(data(plots._measured)[0]) == 0
    qtbot.waitUntil(
        lambda: data(plots._measured)[0] is not None and len(data(plots._measured)[0]) == 60
    )
    qtbot.waitUntil(lambda: not plots._stagger.pending)  # the other charts, a tick each
    # Per step, lighter: samples / step time, spread over the time between two events.
    x, y = data(plots._measured)
    assert np.allclose(y, 16 / np.array(times))
    assert np.all(np.diff(x) > 0)
    assert list(data(plots._warm)[0]) == pytest.approx([0.2, 0.4, 0.6])
    # The main line: the window so far, a point per event, ending on the window's own figure.
    wx, wy = data(plots._window)
    assert len(wx) == 60 / PER_EVENT
    assert wy[-1] == pytest.approx(window_rate(times))
    assert wy[-1] < statistics.median(16 / np.array(times))  # the steps leave out the gaps
    assert list(plots._ends.getData()[1]) == [wy[-1]]
    # Projected cost: from the window's throughput, inside the steps' 95 % interval.
    expected = cost.usd_per_epoch(50_000 / window_rate(times), 2.0)
    assert data(plots._mid)[1][-1] == pytest.approx(expected)
    assert not plots._cost_hint.isVisible()
    low, high = band_now(plots)
    assert low < expected < high
    # Memory: this run's curve in GiB, the device total, the peak marked and labelled.
    mx, my = data(plots._process)
    assert my[-1] == pytest.approx((2**30 + 55 * 2**20) / GIB)
    assert plots._total.isVisible() and plots._total.value() == pytest.approx(16.0)
    px, py = plots.peak.dot.getData()
    assert py[0] == pytest.approx(my.max())
    assert plots.peak.label.textItem.toPlainText().startswith("peak 1.05 GiB")
    # Phases: a line where measuring began, on the throughput and memory plots.
    assert [m.label.format for _, m in plots.marks.lines] == ["window 1", "window 1"]


def test_the_result_level_is_the_median_of_the_windows_where_the_line_ends(plots, qtbot):
    plots.begin_run(tiny_config(usd_per_hour=1.0), "")
    t = feed_run(plots, step_times(40, seed=1))
    t = feed_window(plots, [0.04] * 40, t, repeat=1)
    t = feed_window(plots, step_times(40, seed=2), t, repeat=2)
    plots.refresh()
    ends = list(plots._ends.getData()[1])
    assert len(ends) == 3
    # One line a window: a break (NaN) between them, each ending on its window's dot.
    wx, wy = data(plots._window)
    assert np.isnan(wy).sum() == 2
    assert [y for i, y in enumerate(wy) if i + 1 == len(wy) or np.isnan(wy[i + 1])] == ends
    result = {"status": "ok", "throughput_samples_per_s": statistics.median(ends), "repeats": 3}
    plots.end_run(result)
    plots.refresh()  # the end's turns drawn now
    assert plots.result_levels.rate.value() == statistics.median(ends)
    label = drawn_name(plots.result_levels.rate)
    assert label == f"result {statistics.median(ends):,.1f} samples/s (median of 3 windows)"


def drawn_name(level) -> str:
    """What the legend draws for a result's level (KeyedLevel): its entry's plain text."""
    label = level.legend.getLabel(level.key)
    return "" if label is None else label.item.toPlainText().strip()  # its lines padded


def test_a_finished_run_whose_windows_fill_the_plot_keeps_its_figures_off_the_data(plots):
    # 200 short windows (tiny-mlp at a tight target): their dots fill the plot around the
    # result's level, where no place beside the line is free of data. The figure and its
    # interval are the legend's; the plot's own labels stay off every dot.
    plots.begin_run(tiny_config(usd_per_hour=1.0), "")
    t = feed_run(plots, step_times(5, seed=0))
    for r in range(1, 200):
        t = feed_window(plots, step_times(5, seed=r), t, repeat=r)
    plots.refresh()
    ends = plots._ends.getData()
    median = float(np.median(ends[1]))
    result = {
        "status": "ok",
        "throughput_samples_per_s": median,
        "throughput_ci95": [median * 0.9, median * 1.1],
        "repeats": 200,
        "usd_per_epoch": 0.05,
    }
    plots.end_run(result)
    plots.refresh()  # the end's turns drawn now
    name = drawn_name(plots.result_levels.rate)
    assert name.startswith(f"result {median:,.1f} samples/s (median of 200 windows)")
    assert "95% interval ±10%" in name
    assert drawn_name(plots.result_levels.cost).startswith("result $0.0500 per epoch")
    chart = plots.throughput
    chart.labels.separate()
    vb = chart.plot.vb
    dots = [vb.mapViewToScene(pg.QtCore.QPointF(x, y)) for x, y in zip(*ends, strict=True)]
    texts = [text for text, _ in chart.labels.boxes()]
    assert not any(text.startswith("result") for text in texts), texts
    legend = chart.legend.sceneBoundingRect()
    assert legend.top() >= vb.sceneBoundingRect().bottom()
    assert not any(legend.contains(dot) for dot in dots)


def test_projection_band_narrows_as_the_window_settles(plots, qtbot):
    plots.begin_run(tiny_config(usd_per_hour=1.0), "")
    times = step_times(400, seed=3)
    feed_run(plots, times[:20])
    plots.refresh()
    low, high = band_now(plots)
    width_early = high - low
    feed_window(plots, times, 20.0, repeat=1)
    plots.refresh()
    low, high = band_now(plots)
    width_late = high - low
    assert 0 < width_late < width_early / 2


def test_without_a_price_the_cost_plot_shows_epoch_time(plots):
    plots.begin_run(tiny_config(usd_per_hour=None), "")
    feed_run(plots, step_times(30))
    plots.refresh()
    assert "epoch time" in plots.cost.plot.titleLabel.text
    assert data(plots._mid)[1][-1] == pytest.approx(50_000 / window_rate(step_times(30)))


def test_legends_sit_under_the_plots_never_on_the_data(plots, qtbot):
    plots.begin_run(tiny_config(usd_per_hour=1.0), "")
    feed_run(plots, step_times(60))
    plots.end_run({"status": "ok", "throughput_samples_per_s": 300.0, "usd_per_epoch": 0.05})
    plots.refresh()  # the end's turns drawn now
    qtbot.wait(50)
    for chart in plots.charts.values():
        view = chart.plot.vb.sceneBoundingRect()
        legend = chart.legend.sceneBoundingRect()
        assert legend.height() > 0 and legend.width() > 0, chart.name
        assert legend.top() >= view.bottom(), chart.name
        assert chart.plot.legend is chart.legend
    names = [label.text for _, label in plots.throughput.legend.items]
    assert names == [
        "warm-up, per step",
        "per step: samples / step time",
        "this window: samples / wall time",
        "each window's figure",
        "result 300.0 samples/s<br>\u00a0",  # no repeats, no interval: a blank second line
    ]
    assert [label.text for _, label in plots.cost.legend.items][-1].startswith(
        "result $0.0500 per epoch"
    )
    assert [label.text for _, label in plots.flops.legend.items] == [
        "this window: FLOPs / wall time",
        "each window's figure",
        "result (once a run finishes)",  # no FLOPs in this result: its entry still waits
    ]


def test_end_of_run_draws_the_result_and_stops_redrawing(plots):
    plots.begin_run(tiny_config(usd_per_hour=1.0), "")
    feed_run(plots, step_times(30))
    result = {
        "status": "ok",
        "throughput_samples_per_s": 321.0,
        "usd_per_epoch": 0.043,
        "epoch_seconds": 155.0,
        "peak_memory_bytes": 3 * 2**30,
        "memory_total_bytes": 2**34,
    }
    plots.end_run(result)
    plots.refresh()  # the end's turns drawn now
    assert not plots.timer.isActive()
    assert plots.result_levels.rate.isVisible() and plots.result_levels.rate.value() == 321.0
    assert plots.result_levels.cost.isVisible() and plots.result_levels.cost.value() == 0.043
    # The worker's own peak is larger than any sample: it replaces the sampled one.
    assert plots.peak.dot.getData()[1][0] == pytest.approx(3.0)
    assert "18.8%" in plots.peak.label.textItem.toPlainText()


def test_selected_results_are_overlaid_except_the_run_on_screen(plots):
    plots.begin_run(tiny_config(), "")
    plots.on_event(Started(run_id=RUN))
    other = {
        "run_id": "20251201T000000-00000000",
        "config": {"model": "tiny-mlp", "batch_size": 64},
        "throughput_samples_per_s": 900.0,
        "peak_memory_bytes": 2**31,
        "usd_per_epoch": 0.02,
    }
    same = {**other, "run_id": RUN}
    plots.set_overlays([other, same])
    lines = {chart.name: line.value() for chart, line in plots.overlays.lines}
    assert lines == {"throughput": 900.0, "memory": pytest.approx(2.0), "cost": 0.02}
    plots.set_overlays([])
    assert plots.overlays.lines == []


def test_each_tick_pushes_one_chart_so_a_frame_repaints_one_view(plots, qtbot):
    """Pushed together, the four charts' data made each frame one repaint of all four views,
    the longest task on the GUI thread (benchmarks/RESULTS.md, issue 42). A tick waits for the
    last chart's paint: two pushed before one paint were painted in one task."""
    qtbot.waitExposed(plots)
    plots.begin_run(tiny_config(batch_size=16, usd_per_hour=2.0), "")
    plots.timer.stop()  # ticked by hand
    assert plots.timer.interval() == 1000 // (25 * 4)  # each chart still 25 times a second
    feed_run(plots, step_times(60))
    plots.on_event(Sample(run_id=RUN, elapsed_s=1.0, process_memory_bytes=2**30))
    curves = {
        "throughput": plots._window,
        "memory": plots._process,
        "cost": plots._mid,
        "flops": plots.flops.line,
    }
    plots.on_event(Flops(run_id=RUN, per_step=1e9, method="test"))
    pushed = []
    for _ in range(4):
        before = {name: _count(curve) for name, curve in curves.items()}
        plots._stagger.tick()
        pushed.append([name for name, curve in curves.items() if _count(curve) != before[name]])
        after = {name: _count(curve) for name, curve in curves.items()}
        plots._stagger.tick()  # before that chart's paint: the next one waits
        assert after == {name: _count(curve) for name, curve in curves.items()}
        qtbot.waitUntil(lambda: plots._stagger._paints._waiting is None, timeout=1000)  # painted
    assert pushed == [["throughput"], ["memory"], ["cost"], ["flops"]]
    assert not plots._stagger.pending
    plots._stagger.tick()  # nothing new: nothing pushed
    assert all(_count(curve) > 0 for curve in curves.values())


def _count(curve) -> int:
    x = data(curve)[0]
    return 0 if x is None else len(x)


def test_a_long_run_is_downsampled_and_clipped_to_the_view(plots, qtbot):
    plots.begin_run(tiny_config(), "")
    for chart in plots.charts.values():
        assert (
            chart.plot.ctrl.downsampleCheck.isChecked()
            or chart.plot.ctrl.autoDownsampleCheck.isChecked()
        )
        assert chart.plot.ctrl.clipToViewCheck.isChecked()
    n = 200_000
    plots.on_event(Started(run_id=RUN))
    t = np.cumsum(np.full(n, 0.01))
    for i in range(n):
        plots.series.meas_t.append(t[i])
        plots.series.meas_rate.append(1600.0)
        plots.series.meas_step_s.append(0.01)
    plots._stagger.mark()
    plots.refresh()
    # What is drawn is far fewer points than were measured.
    assert len(data(plots._measured)[0]) == n
    qtbot.waitUntil(lambda: len(plots._measured._getDisplayDataset().x) < n / 10)
    # Zoomed in on the last minute, only that part is drawn.
    plots.throughput.plot.setXRange(1940, 2000, padding=0)
    qtbot.waitUntil(lambda: plots._measured._getDisplayDataset().x[0] > 1900)


def test_the_live_band_is_the_engines_interval_of_the_windows_steps(plots):
    """The band the cost plot draws is the steps' share of the result's interval, as the
    engine finds it (engine/core/interval.py), over the steps of the window on screen only."""
    plots.begin_run(tiny_config(usd_per_hour=None), "")
    feed_run(plots, step_times(40, seed=4))
    times = step_times(300, seed=5)
    feed_window(plots, times, 20.0, repeat=1)
    window = plots.series.window
    assert window is not None and window.done
    half = throughput_interval(1.0, (), times).high - 1.0
    assert steps_relative(np.asarray(times)) == pytest.approx(half)
    rate = window.throughput_samples_per_s
    samples = plots.series.epoch_samples
    assert window.epoch_s == pytest.approx(
        (samples / (rate * (1 + half)), samples / rate, samples / (rate * (1 - half)))
    )
    assert steps_relative(np.asarray(times[:1])) == math.inf


def test_projection_is_the_engine_cost_arithmetic():
    epoch, usd = project(320.0, 0.1, epoch_samples=50_000, usd_per_hour=3.0)
    assert epoch == pytest.approx((50_000 / 352, 50_000 / 320, 50_000 / 288))
    assert usd[1] == pytest.approx(cost.usd_per_epoch(50_000 / 320, 3.0))
    assert project(320.0, 0.1, 50_000, None)[1] is None
    assert project(320.0, math.inf, 50_000, None)[0][2] == math.inf


def test_band_outline_goes_out_along_the_top_and_back_along_the_bottom():
    t = np.arange(5.0)
    x, y = band_outline(t, t, t + 1)
    assert list(x) == [0, 1, 2, 3, 4, 4, 3, 2, 1, 0]
    assert list(y) == [1, 2, 3, 4, 5, 4, 3, 2, 1, 0]
    x, y = band_outline(np.arange(5000.0), np.zeros(5000), np.ones(5000))
    assert len(x) == 2 * BAND_POINTS and x[0] == 0 and x[BAND_POINTS - 1] == 4999


def test_buffer_grows_and_keeps_earlier_views():
    b = Buffer(capacity=2)
    b.append(1.0)
    view = b.values
    for v in range(2, 10):
        b.append(float(v))
    b.extend(np.arange(10.0, 20.0))
    assert list(view) == [1.0]
    assert list(b.values) == [float(v) for v in range(1, 20)]
    assert not math.isnan(b.values[-1])


def test_the_flop_chart_shows_the_achieved_rate_and_mfu_against_a_known_peak(plots, qtbot):
    from gui.pages.run.flops_chart import TITLE

    plots.begin_run(tiny_config(batch_size=16), "bert-base · cuda:0")
    assert plots.flops.hint.isVisible() and plots.flops.plot.titleLabel.text == TITLE
    # 2e12 FLOPs a step on a 125 TFLOP/s peak: 50 ms steps and 2 ms between them are
    # 2e12 / 52 ms = 38.5 TFLOP/s over the wall time, 30.8% MFU (the result's statistic).
    plots.on_event(
        Flops(run_id=RUN, per_step=2e12, peak_tflops=125.0, peak_source="V100: tensor FP16")
    )
    assert not plots.flops.hint.isVisible()
    assert "2e+12 FLOPs per step; V100: tensor FP16" in plots.flops.caption.text
    feed_run(plots, [0.05] * 40)
    qtbot.waitUntil(lambda: plots.flops.line.yData is not None and len(plots.flops.line.yData) > 0)
    window = plots.series.window_rate.values
    assert np.allclose(plots.flops.line.yData, window * 2e12 / 16 / 1e12)
    assert plots.flops.line.yData[-1] == pytest.approx(2e12 / 0.052 / 1e12)
    # each window's figure a dot, as on the throughput chart (a short window is one point)
    x, y = plots.flops.ends.getData()
    assert len(x) == len(plots.series.ends_t.values) > 0
    assert np.allclose(y, plots.series.ends_rate.values * 2e12 / 16 / 1e12)
    assert plots.flops.plot.titleLabel.text == f"{TITLE}: MFU 30.8% of 125 TFLOP/s"
    plots.end_run(
        {
            "status": "ok",
            "throughput_samples_per_s": 320.0,
            "flops": {"achieved_tflops": 40.0, "mfu": 0.32},
        }
    )
    plots.refresh()  # the end's turns drawn now
    assert plots.flops.final.isVisible()
    # What the legend draws, not only the text given.
    assert drawn_name(plots.flops.final) == "result 40 TFLOP/s, MFU 32.0%"
    assert drawn_name(plots.result_levels.rate) == "result 320.0 samples/s"
    # Named in the legend, not on the plot; the next run's entry waits for its result in the
    # same row (no line beside it), so that the chart is not laid out again.
    assert plots.flops.final.label is None
    rows = plots.flops.legend.layout.rowCount()
    plots.begin_run(tiny_config(), "")
    assert drawn_name(plots.flops.final) == "result (once a run finishes)"
    assert not plots.flops.final.isVisible() and plots.flops.legend.layout.rowCount() == rows
    sample = next(s for s, _ in plots.flops.legend.items if s.item is plots.flops.final.key)
    assert not sample.isVisible()


def test_the_flop_chart_refuses_to_guess_an_mfu_and_says_when_flops_are_unknown(plots, qtbot):
    from gui.pages.run.flops_chart import NOT_COUNTED, TITLE

    plots.begin_run(tiny_config(batch_size=16), "tiny-mlp · cpu")
    plots.on_event(Flops(run_id=RUN, per_step=1e9, peak_source="peak unknown: a CPU"))
    feed_run(plots, [0.01] * 20)
    qtbot.waitUntil(lambda: plots.flops.line.yData is not None and len(plots.flops.line.yData) > 0)
    assert plots.flops.line.yData[-1] == pytest.approx(1e9 / 0.012 / 1e12)  # 10 ms + 2 ms
    assert plots.flops.plot.titleLabel.text == f"{TITLE} (peak unknown: no MFU)"
    # A model whose FLOPs could not be counted draws nothing and says so.
    plots.begin_run(tiny_config(batch_size=16), "tiny-mlp · cpu")
    plots.on_event(Flops(run_id=RUN, per_step=None, peak_source="peak unknown: a CPU"))
    feed_run(plots, [0.01] * 20)
    plots.refresh()
    assert plots.flops.hint.isVisible() and plots.flops.hint.textItem.toPlainText() == NOT_COUNTED
    assert plots.flops.line.yData is None or len(plots.flops.line.yData) == 0


@pytest.mark.parametrize("fraction", [0.02, 0.5, 0.9, 1.0])
def test_the_peak_label_stays_whole_inside_the_memory_plot(plots, qtbot, fraction):
    plots.resize(700, 500)  # a narrow window: the label is most of the plot's width
    plots.begin_run(tiny_config(), "")
    feed_run(plots, [0.01] * 40)
    plots.refresh()
    vb = plots.memory.plot.vb
    (x0, x1), _ = vb.viewRange()
    plots.peak.show(x0 + fraction * (x1 - x0), 3 * 2**30, 2**34)
    label = plots.peak.label
    assert label.textItem.toPlainText() == "peak 3.00 GiB (18.8% of the device)"
    view = vb.sceneBoundingRect()

    def inside() -> bool:  # the text moves on the next paint
        text = label.textItem.sceneBoundingRect()
        return view.left() - 1 <= text.left() and text.right() <= view.right() + 1

    qtbot.waitUntil(inside, timeout=2000)


def test_phase_lines_name_the_windows_briefly():
    def label(phase, detail=""):
        return mark_text(Phase(run_id=RUN, phase=phase, detail=detail))

    assert label("measuring", "repeat 1 of 3") == "window 1"
    assert label("measuring", "repeat 3 of 3") == "3"
    assert label("measuring", "repeat 1 of 1") == "measuring"
    assert label("evaluating") == "evaluating" and label("finishing") == "done"
