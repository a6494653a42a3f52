"""Every Run-tab chart shows all its data (issue 38): after a run, a new selection of past runs
or an overlay, and after Reset view, each chart's range holds every curve, point set and band
drawn on it (the input wait's, on the throughput chart's right axis, too) and every level;
while a run is live too. An empty chart starts at 0. Read from the items' own data bounds and
the views' ranges, in both price modes (cost, or epoch time without a price)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QObject, QRectF
from PySide6.QtWidgets import QApplication

from gui.common.plot_ranges import MIN_SPAN_S
from gui.pages.run.plots import LivePlots
from tests.gui import run_scenario as scenario


@pytest.fixture
def plots(qtbot):
    return scenario.shown_plots(qtbot)


TOLERANCE = 1e-9  # relative: a range that ends exactly on the data holds it


def full_data(item: pg.GraphicsObject) -> tuple[np.ndarray, np.ndarray]:
    """All of an item's data (not the part drawn in the view: clipped to it, it would hold)."""
    if isinstance(item, pg.ScatterPlotItem):
        return item.data["x"], item.data["y"]
    x, y = item.xData, item.yData
    if x is None or y is None:
        return np.empty(0), np.empty(0)
    return np.asarray(x, dtype=float), np.asarray(y, dtype=float)


def drawn(vb: pg.ViewBox):
    """The data items and horizontal level lines that a view shows."""
    for item in vb.addedItems:
        if not item.isVisible():
            continue
        if isinstance(item, pg.InfiniteLine):
            if item.angle % 180 == 0:
                yield f"level {item.label.format if item.label else ''}", None, item.value()
        elif hasattr(item, "implements") and item.implements("plotData"):
            x, y = full_data(item)
            finite = np.isfinite(x) & np.isfinite(y)
            if finite.any():
                yield item.name() or type(item).__name__, x[finite], y[finite]


def outside(plots: LivePlots) -> list[str]:
    """What lies outside its view's range, on any chart (empty: everything is in view)."""
    out = []
    for name, chart in plots.charts.items():
        for vb in chart.view_boxes():
            if not vb.isVisible():
                continue
            (x0, x1), (y0, y1) = vb.viewRange()
            slack_x, slack_y = TOLERANCE * (x1 - x0), TOLERANCE * (y1 - y0)
            for what, x, y in drawn(vb):
                if x is None:  # a level line: its value on the y axis
                    if not y0 - slack_y <= y <= y1 + slack_y:
                        out.append(f"{name}: {what} at {y:g} outside y {y0:g}..{y1:g}")
                    continue
                if x.min() < x0 - slack_x or x.max() > x1 + slack_x:
                    out.append(f"{name}: {what} x {x.min():g}..{x.max():g} not in {x0:g}..{x1:g}")
                if y.min() < y0 - slack_y or y.max() > y1 + slack_y:
                    out.append(f"{name}: {what} y {y.min():g}..{y.max():g} not in {y0:g}..{y1:g}")
    return out


@pytest.mark.parametrize("usd_per_hour", [0.70, None], ids=["priced", "no price"])
def test_every_chart_holds_all_its_data_after_a_run_an_overlay_and_reset_view(
    plots, tmp_path, usd_per_hour
):
    plots.begin_run(scenario.config(tmp_path, usd_per_hour), "tiny-mlp · cpu")
    scenario.feed(plots)
    assert outside(plots) == [], "while live"
    own = scenario.result(plots, usd_per_hour)
    plots.end_run(own)
    plots.refresh()  # the end's turns drawn now
    assert plots.input_wait.shown
    assert outside(plots) == [], "after the run"
    for chart in plots.charts.values():  # one time axis, from 0 on every chart
        (x0, x1), _ = chart.plot.vb.viewRange()
        assert (x0, x1) == pytest.approx((0.0, plots.series.latest_t * 1.02)), chart.name
    # A past run overlaid far above the run: in view at once, and the run still whole.
    plots.set_overlays([scenario.past_run(own, scale=3.0)])
    assert len(plots.overlays.lines) == 4
    assert outside(plots) == [], "with an overlay above the run"
    plots.set_overlays([scenario.past_run(own, scale=1.01)])
    assert outside(plots) == [], "another selection"
    # A zoom of the user's, then Reset view: every chart's range is that range again.
    fitted = {name: sum(chart.plot.vb.viewRange(), []) for name, chart in plots.charts.items()}
    for chart in plots.charts.values():
        chart.plot.vb.scaleBy((0.2, 0.2))
    plots.throughput.plot.vb.menu.actions()[0].trigger()  # Reset view
    assert outside(plots) == [], "after Reset view"
    for name, chart in plots.charts.items():
        assert sum(chart.plot.vb.viewRange(), []) == pytest.approx(fitted[name]), name


def test_the_cost_chart_holds_the_slow_windows_projection(plots, tmp_path):
    """The issue's case: a slow second window's cost is drawn, and in view, at its own height
    (the y axis stopped at the last window's scale, the second window's curve off the top)."""
    scenario.finished(plots, tmp_path, 0.70)
    mid = plots._mid.yData
    _, (_, top) = plots.cost.plot.vb.viewRange()
    assert mid.max() > 3 * mid[-1]  # the slow window's projection is far above the last one's
    assert top >= mid.max()


def test_empty_charts_start_at_zero(plots, tmp_path):
    for chart in plots.charts.values():
        (x0, _), (y0, y1) = chart.plot.vb.viewRange()
        assert x0 == pytest.approx(0.0) and y0 == 0.0 and y1 > 0, chart.name
    plots.begin_run(scenario.config(tmp_path, 0.70), "tiny-mlp · cpu")
    for chart in plots.charts.values():
        (x0, _), (y0, y1) = chart.plot.vb.viewRange()
        assert x0 == pytest.approx(0.0) and y0 == 0.0 and y1 > 0, chart.name
    _, (y0, _) = plots.input_wait.view.viewRange()
    assert y0 == 0.0


def test_one_time_axis_from_zero_whatever_the_left_axes_widths(plots, tmp_path, monkeypatch):
    """The charts share their time range by value: the cost chart under the throughput chart,
    its left axis narrower ("7" seconds against "100000" samples/s), began at -0.15 s when
    pyqtgraph lined the two up by their pixels on screen."""
    scenario.finished(plots, tmp_path, None)
    lead, cost = plots.throughput.plot.vb, plots.cost.plot.vb
    # As on a desktop (offscreen, the windows have no place on a screen to line up by): the
    # cost chart's view right under the throughput chart's, 40 px wider to the left.
    monkeypatch.setattr(lead, "screenGeometry", lambda: QRectF(100, 100, 300, 100))
    monkeypatch.setattr(cost, "screenGeometry", lambda: QRectF(60, 300, 340, 100))
    for low, high in ((0.2, 0.8), (0.0, plots.series.latest_t * 1.02)):
        lead.setXRange(low, high, padding=0)  # a zoom, then the run's own range
        for chart in plots.charts.values():
            assert chart.plot.vb.viewRange()[0] == pytest.approx((low, high)), chart.name
    cost.setXRange(0.3, 0.6, padding=0)  # a zoom on the cost chart moves the others alike
    for chart in plots.charts.values():
        assert chart.plot.vb.viewRange()[0] == pytest.approx((0.3, 0.6)), chart.name


class Paints(QObject):
    """Counts each chart's paints (its view's viewport)."""

    def __init__(self, plots: LivePlots) -> None:
        super().__init__()
        self.names = {chart.viewport(): name for name, chart in plots.charts.items()}
        self.seen: list[str] = []
        for viewport in self.names:
            viewport.installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Paint and obj in self.names:
            self.seen.append(self.names[obj])
        return False

    def turn(self, action) -> list[str]:
        """The charts painted after `action`, until the event loop has nothing left to do (a
        chart's labels are placed, and so repainted, a turn after its data)."""
        self.seen.clear()
        action()
        for _ in range(5):
            QApplication.processEvents()
        return sorted(set(self.seen))


def test_a_new_run_and_a_jump_of_the_time_axis_repaint_one_chart_a_turn(plots, tmp_path):
    """Four views changed in one task are repainted in one: 40-70 ms of the GUI thread under
    Xvfb, the longest tasks of a run (benchmarks/RESULTS.md, issue 42). A new run's axes and
    each jump of the shared time axis reach the charts one a turn of their timer; after a turn
    each, the four agree."""
    paints = Paints(plots)
    scenario.finished(plots, tmp_path, 0.70)  # a run on screen, its axes fitted to it
    old = {name: chart.plot.vb.viewRange() for name, chart in plots.charts.items()}

    def begin() -> None:
        plots.begin_run(scenario.config(tmp_path / "again", 0.70), "tiny-mlp · cpu")
        plots.timer.stop()  # turned by hand

    paints.turn(begin)  # the last run's curves cleared: the inside of each plot repainted
    turns = 0
    while plots._stagger.pending:  # a turn each (a follower before the lead: two)
        assert len(paints.turn(plots._stagger.tick)) <= 1
        turns += 1
    assert turns <= 7
    for name, chart in plots.charts.items():
        assert chart.plot.vb.viewRange() != old[name], name
        assert chart.plot.vb.viewRange()[0] == [0.0, MIN_SPAN_S], name
    # Live: the time axis jumps when the run passes its end. The throughput chart leads.
    rng = np.random.default_rng(3)
    t = scenario._steps(plots, rng, 0.002, 150, 0, MIN_SPAN_S * 0.9)
    assert t > MIN_SPAN_S
    painted = []
    while plots.throughput.plot.vb.viewRange()[0] == [0.0, MIN_SPAN_S] and len(painted) < 4:
        painted.append(paints.turn(plots._stagger.tick))
    assert painted[-1] == ["throughput"] and all(len(p) == 1 for p in painted)
    lead = plots.throughput.plot.vb.viewRange()[0]
    assert lead[1] > MIN_SPAN_S
    behind = [n for n, c in plots.charts.items() if c.plot.vb.viewRange()[0] != lead]
    assert sorted(behind) == ["cost", "flops", "memory"]  # their turns come next
    while behind:
        assert paints.turn(plots._stagger.tick) == [behind.pop(0)]
    for chart in plots.charts.values():
        assert chart.plot.vb.viewRange()[0] == lead, chart.name
    # A zoom of the user's still moves the four together, at once.
    plots.cost.plot.vb.setXRange(0.1, 0.4, padding=0)
    for chart in plots.charts.values():
        assert chart.plot.vb.viewRange()[0] == pytest.approx((0.1, 0.4)), chart.name


def test_a_runs_end_repaints_one_chart_a_turn_then_the_timer_stops(plots, tmp_path, qtbot):
    """The end's last data, result levels and fitted axes reached the four charts in one task:
    a paint of the four views of 50-90 ms as a run ended (benchmarks/RESULTS.md, issue 42).
    Each chart takes its end at its own turn, the lead's time axis first; the timer stops after
    the last, and an export draws what is left at once."""
    paints = Paints(plots)
    plots.begin_run(scenario.config(tmp_path, 0.70), "tiny-mlp · cpu")
    scenario.feed(plots)  # drawn as it came, a chart a turn
    own = scenario.result(plots, 0.70)
    paints.turn(lambda: None)  # what the feed left to paint
    plots.end_run(own)
    assert plots.timer.isActive() and not plots.result_levels.rate.isVisible()
    plots.timer.stop()  # turned by hand
    turns = []
    while plots._stagger.pending:
        turns.append(paints.turn(plots._stagger.tick))
    assert turns[0] == ["throughput"] and all(len(t) <= 1 for t in turns), turns
    assert sorted(n for t in turns for n in t) == ["cost", "flops", "memory", "throughput"]
    assert plots.result_levels.rate.value() == own["throughput_samples_per_s"]
    assert plots.result_levels.cost.value() == pytest.approx(own["usd_per_epoch"])
    assert "913.62 MiB" in plots.peak.label.textItem.toPlainText()
    assert outside(plots) == []
    lead = plots.throughput.plot.vb.viewRange()[0]
    assert all(c.plot.vb.viewRange()[0] == lead for c in plots.charts.values())
    # Left to its timer, the end stops it; an export before that draws the end at once.
    plots.begin_run(scenario.config(tmp_path / "again", 0.70), "tiny-mlp · cpu")
    scenario.feed(plots)
    plots.end_run(own)
    with plots.throughput.exporting():
        assert plots.result_levels.rate.isVisible() and not plots._stagger.pending
    qtbot.waitUntil(lambda: not plots.timer.isActive(), timeout=2000)
    # A finished run repriced (the panel's price): its end again, at the timer's turns.
    plots.end_run({**own, "usd_per_epoch": own["usd_per_epoch"] * 2})
    qtbot.waitUntil(
        lambda: plots.result_levels.cost.value() == own["usd_per_epoch"] * 2, timeout=2000
    )
    qtbot.waitUntil(lambda: not plots.timer.isActive(), timeout=2000)
