"""The status line says the result's statistic: the running window's samples / wall time while
measuring, the result's median of the windows at the end; the step count adds up events."""

from __future__ import annotations

from engine.core.events import Finished, Phase, Step
from gui.pages.run.series import RunSeries
from gui.pages.run.status import RunStatus, finished_text
from tests.gui.helpers import tiny_config

RUN = "20260101T000000-abcdef12"


def test_the_status_line_shows_the_window_so_far_and_counts_every_step(qtbot):
    status = RunStatus()
    qtbot.addWidget(status)
    series = RunSeries(batch_size=16, epoch_samples=50_000, usd_per_hour=3.6)
    status.begin(series)
    phase = Phase(run_id=RUN, phase="measuring", expected_steps=100, detail="repeat 2 of 3")
    status.on_event(phase)
    for first in (0, 4):
        step = Step(
            run_id=RUN,
            index=first,
            step_times_s=[0.01] * 4,
            samples=16,
            repeat=1,
            elapsed_s=1.0 + first * 0.0125,
            window_samples=(first + 4) * 16,
            window_seconds=(first + 4) * 0.0125,
        )
        series.add_steps(step)
        status.on_event(step)
    status.show_figures()
    text = status.text.text()
    assert "window 2 of 3: 1,280.0 samples/s so far (samples / wall time, 8 steps)" in text
    assert "$0.0391 per epoch" in text  # 50,000 / 1,280 s at $3.60/h
    assert status.progress.value() == 8
    result = {
        "status": "ok",
        "throughput_samples_per_s": 1234.5,
        "repeats": 3,
        "epoch_seconds": 40.5,
        "steps_measured": 300,
        "stop_reason": "stable",
    }
    status.end(Finished(run_id=RUN, result=result), result)
    assert status.text.text().startswith(
        "Finished: 1,234.5 samples/s (no interval, median of 3 windows)"
    )
    assert finished_text({**result, "repeats": 1}).startswith(
        "Finished: 1,234.5 samples/s (no interval) ·"
    )


def test_the_finished_line_gives_each_figure_its_interval_and_counts_the_warnings():
    result = {
        "status": "ok",
        "throughput_samples_per_s": 1000.0,
        "throughput_ci95": [950.0, 1050.0],
        "repeats": 3,
        "epoch_seconds": 50.0,
        "usd_per_epoch": 0.05,
        "usd_per_epoch_ci95": [0.0476, 0.0526],
        "warnings": ["machine busy: other processes used 60% of the CPU while measuring"],
    }
    text = finished_text(result)
    assert text.startswith(
        "Finished: 1,000.0 samples/s (95% interval 950.0 to 1,050.0 (±5.0%), median of 3 windows)"
    )
    assert "$0.0500 per epoch (-4.8% / +5.2%)" in text  # turned over: not symmetric
    assert text.endswith("· 1 warning")
    result["usd_per_epoch_ci95"] = [0.0476, None]  # the low end of throughput was 0
    assert "per epoch (-4.8% / no upper bound)" in finished_text(result)


def test_a_result_with_a_warning_shows_it_above_the_plots_and_clean_runs_clear_it(
    qtbot, window, measured
):
    page = window.run_page
    busy = "machine busy: other processes used 61% of the CPU while measuring"
    for warnings in ([busy], []):
        result = {**measured, "warnings": warnings}
        if not warnings:  # and precise enough to price (on a busy test machine it may not be)
            tput = measured["throughput_samples_per_s"]
            result["throughput_ci95"] = [tput * 0.99, tput * 1.01]
        page.plots.begin_run(tiny_config(), "tiny-mlp · cpu")
        page.status.begin(page.plots.series)
        page.message_bar.dismiss()  # as start_run does
        window.controller.engine_event.emit(Finished(run_id=result["run_id"], result=result))
        if warnings:
            assert page.message_bar.isVisible() and page.message_bar.level == "warning"
            assert busy in page.message_bar.text.text()
            assert page.status.text.text().endswith("· 1 warning")
        else:
            assert not page.message_bar.isVisible()
            assert "warning" not in page.status.text.text()


def test_a_run_starting_keeps_the_status_lines_size(qtbot):
    """The progress bar's place is kept while it is hidden: shown at a run's start, it made the
    status bar 5 px taller and laid the whole window out again, every chart repainted in the
    Run button's task (benchmarks/RESULTS.md, issue 42)."""
    status = RunStatus()
    qtbot.addWidget(status)
    status.resize(1254, status.sizeHint().height())
    status.show()
    qtbot.waitExposed(status)
    idle = (status.sizeHint(), status.text.width())
    assert status.progress.isHidden()
    status.begin(RunSeries(batch_size=16, epoch_samples=50_000, usd_per_hour=3.6))
    assert status.progress.isVisible()
    qtbot.wait(10)
    assert (status.sizeHint(), status.text.width()) == idle


def test_a_message_on_the_run_tab_lies_over_the_charts_and_resizes_none(qtbot, window):
    """A run's warning came as a bar above the charts that took its height from them: the four
    live charts laid out and repainted in one task of 67-70 ms as the run ended (issue 42). It
    lies over their top now, opaque, as tall as its lines, and follows the page's width."""
    page = window.run_page
    window.resize(1280, 860)
    qtbot.waitUntil(lambda: page.plots.charts["throughput"].width() > 0)
    charts = page.plots.charts.values()
    before = [chart.geometry() for chart in charts]
    bar = page.message_bar
    line = bar.text.fontMetrics().lineSpacing()
    bar.show_message("machine busy: other processes used 61% of the CPU", "warning")
    qtbot.waitUntil(bar.isVisible)
    assert [chart.geometry() for chart in charts] == before
    assert bar.parent() is page and bar.y() < line and bar.width() > page.width() * 0.9
    assert bar.height() < 3 * line  # one line of text
    one_line = bar.height()
    background = bar.grab().toImage().pixelColor(bar.width() // 2, bar.height() - 3)
    assert background.alpha() == 255 and background.red() > background.blue()  # amber, opaque
    bar.show_message("a long message " * 200, "error", "details")
    assert one_line < bar.height() <= bar.text_area.maximumHeight() + 12  # then it scrolls
    assert [chart.geometry() for chart in charts] == before
    window.resize(1000, 760)
    qtbot.waitUntil(lambda: abs(bar.width() - (page.width() - 12)) <= 1)
    bar.dismiss()
    assert not bar.isVisible()


def test_a_message_said_before_the_plots_are_built_stays_over_them(qtbot):
    from gui.shell.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 860)
    page = window.run_page
    window.show()
    page.message_bar.show_message("The results database could not be read: locked", "error")
    qtbot.waitUntil(lambda: page.plots_ready)  # built after the first paint, over the page
    qtbot.waitUntil(lambda: page.plots.geometry().contains(page.message_bar.geometry()))
    bar = page.message_bar
    middle = bar.geometry().center()
    assert bar.isVisible() and page.childAt(middle) is not None
    assert page.childAt(middle) is bar or bar.isAncestorOf(page.childAt(middle))
