"""The four live plots: throughput, memory fill, projected cost per epoch and the achieved
FLOP rate (gui/pages/run/flops_chart.py), two by two; for a run that loads its data, the input
wait on the throughput chart's right axis (gui/pages/run/input_wait.py).

The throughput plot's main line is the statistic the result stores: the running window's
samples over its wall time so far (its last point is the window's own figure, a dot), and the
result's figure, the median of the windows', is a dashed level at the end, named in the legend
(gui/pages/run/result_levels.py). The per-step rates (samples / step time, lighter) leave out
the time between steps and so run above it. Each chart's legend is a row of its own under the
plot, never over the data.

Each curve is created once. Events only append numbers to a RunSeries; a timer pushes the
buffers into the curves with setData, 25 times a second for each chart, one chart a tick
(gui/pages/run/stagger.py), and each plot downsamples and clips to its view, so an
hour-long run redraws as cheaply as a short one. The x axis of all four is seconds since
warm-up began (the worker's clock).
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QWidget

from engine.core.events import Event, Flops, Phase, Precision, Sample, Started, Step
from engine.measure.config import RunConfig
from engine.results import report
from gui.common.chart import Chart, add_level, add_line, legend_below, set_level
from gui.common.theme import PlotColors
from gui.pages.run.flops_chart import FlopsChart
from gui.pages.run.input_wait import InputWaitOverlay
from gui.pages.run.memory_peak import MemoryPeak
from gui.pages.run.overlays import Overlays
from gui.pages.run.phase_marks import PhaseMarks
from gui.pages.run.plot_style import (
    GIB,
    backdrop,
    band_outline,
    bounded_band,
    faded,
    mark_text,
)
from gui.pages.run.precision_band import PrecisionBand
from gui.pages.run.ranges import LEAD, RunRanges, link_time
from gui.pages.run.result_levels import ResultLevels
from gui.pages.run.series import RunSeries
from gui.pages.run.stagger import Staggered

REFRESH_HZ = 25


class LivePlots(QWidget):
    updated = Signal()  # after a redraw; the status line reads the new figures then

    def __init__(self, colors: PlotColors, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.throughput = Chart("throughput", "Throughput", "samples per second")
        self.memory = Chart("memory", "Memory fill", "memory (GiB)")
        self.cost = Chart("cost", "Projected cost per epoch", "USD per epoch")
        self.flops = FlopsChart()
        four = (self.throughput, self.memory, self.cost, self.flops)
        self.charts: dict[str, Chart] = {c.name: c for c in four}
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        for i, chart in enumerate(four):
            grid.addWidget(chart, i // 2, i % 2)
        # One time axis: zooming or panning one plot moves the others to the same range. The
        # throughput plot's range leads (gui/pages/run/ranges.py: follow, fit, export).
        link_time(
            self.throughput.plot.vb, [c.plot.vb for c in (self.memory, self.cost, self.flops)]
        )
        self.ranges = RunRanges(self.charts, self._levels)
        for chart in self.charts.values():
            legend_below(chart)
            # The four say the same; on screen the form and status line say it already.
            chart.set_caption_on_screen(False)
        # The input wait shares the throughput chart's time axis (a run that waits on its data
        # runs slower: one chart shows both); its legend entries join the chart's own.
        self.input_wait = InputWaitOverlay(self.throughput)
        self.goal = PrecisionBand(self.throughput)  # a run with a target precision
        self.throughput.export_hooks.append(self._full_strength)
        self.throughput.export_hooks.append(self.input_wait.export_style)

        self._warm = add_line(self.throughput, "warm-up, per step")
        self._measured = add_line(self.throughput, "per step: samples / step time")
        self._window = add_line(self.throughput, "this window: samples / wall time")
        self._ends = pg.ScatterPlotItem(size=9, symbol="o", name="each window's figure")
        self.throughput.plot.addItem(self._ends)
        self._process = add_line(self.memory, "this run")
        self._device = add_line(self.memory, "in use on the device (all processes)")
        self._total = add_level(self.memory, "device total")
        self.peak = MemoryPeak(self.memory)
        # The interval as one closed outline (upper edge out, lower edge back): pyqtgraph's
        # FillBetweenItem rebuilds its path through Qt polygons at ~2 ms per thousand points.
        self._band = pg.PlotCurveItem(fillLevel="enclosed", pen=pg.mkPen(None))
        self.cost.plot.addItem(self._band)
        self._mid = add_line(self.cost, "projected from this window's throughput")
        # A wide translucent line stands for the band in the legend.
        self._band_key = pg.PlotDataItem()
        # Not the result's interval (that also holds the windows' spread and the busy share,
        # and names the result's level at the end): the legend says which it is.
        self.cost.legend.addItem(self._band_key, "95% band: window's steps")
        self.result_levels = ResultLevels(self.throughput, self.cost)
        # Shown in the empty cost plot until the first measured steps give a projection.
        self._cost_hint = pg.TextItem("projected once measuring begins", anchor=(0.5, 0.5))
        self._cost_hint.setParentItem(self.cost.plot.vb)  # view pixels, not data: stays put
        self.cost.labels.add_hint(self._cost_hint)
        self.cost.plot.vb.sigResized.connect(
            lambda vb: self._cost_hint.setPos(vb.width() / 2, vb.height() / 2)
        )
        self.marks = PhaseMarks((self.throughput, self.memory), colors)
        self.overlays = Overlays(self.charts)
        for chart in self.charts.values():
            chart.view_reset.connect(self.fit)
            chart.export_hooks.insert(0, self._draw_now)

        self.series: RunSeries | None = None
        self.caption = ""
        self.config: RunConfig | None = None
        self.run_id: str | None = None
        pushes = {
            "throughput": self._push_throughput,
            "memory": self._push_memory,
            "cost": self._push_cost,
            "flops": self._push_flops,
        }
        # A chart a tick, after the last one's paint (why: there).
        self._stagger = Staggered(self, REFRESH_HZ, pushes, self.charts)
        self._result: dict[str, Any] | None = None  # the ended run's, drawn by end_run
        self._shows_result = {
            "throughput": self._result_throughput,
            "memory": lambda result: self.peak.end(self.series, result),
            "cost": lambda result: self.result_levels.show_cost(result, self.cost_in_usd),
            "flops": self.flops.end,
        }
        self.timer = self._stagger.timer
        self.set_colors(colors)
        self.fit()

    @property
    def cost_in_usd(self) -> bool:
        return self.config is None or self.config.usd_per_hour is not None

    def set_colors(self, colors: PlotColors) -> None:
        self.colors = colors
        for chart in self.charts.values():
            chart.set_colors(colors)
        self.input_wait.set_colors(colors)
        self.goal.set_colors(colors)
        self._full_strength(False)
        self._window.setPen(pg.mkPen(colors.median, width=2.5))
        self._ends.setBrush(pg.mkBrush(colors.median))
        self._ends.setPen(pg.mkPen(colors.foreground))
        self._process.setPen(pg.mkPen(colors.process_memory, width=2))
        self._device.setPen(pg.mkPen(colors.device_memory, width=1.5, style=pg.QtCore.Qt.DashLine))
        self.peak.set_colors(colors)
        self._cost_hint.setColor(colors.foreground)
        band = pg.mkColor(colors.median)
        band.setAlpha(60)
        self._band.setBrush(pg.mkBrush(band))
        self._band_key.setPen(pg.mkPen(band, width=10))
        self._mid.setPen(pg.mkPen(colors.median, width=2.5))
        for line in (self.result_levels.rate, self._total, self.result_levels.cost):
            line.setPen(pg.mkPen(colors.limit, width=1.5, style=pg.QtCore.Qt.DashLine))
        self._total.label.setColor(colors.limit)
        self._total.label.fill = pg.mkBrush(backdrop(colors))  # readable over the curves
        self.marks.set_colors(colors)
        self._draw_overlays()

    def _full_strength(self, on: bool) -> None:
        """The per-step rates lighter on screen (under the window's line), in their own
        colours in an exported file (a pale line prints as nothing)."""
        c = self.colors
        warm, measured = c.warmup, c.measured
        if not on:
            warm, measured = faded(warm, c.background), faded(measured, c.background)
        self._warm.setPen(pg.mkPen(warm, width=1))
        self._measured.setPen(pg.mkPen(measured, width=1))

    def begin_run(self, config: RunConfig, caption: str) -> None:
        """Clear the curves and start drawing a new run."""
        was_usd, self.config = self.cost_in_usd, config
        self.run_id = None
        self.series = RunSeries(
            config.batch_size, config.resolved_epoch_samples, config.usd_per_hour
        )
        for item in (self._warm, self._measured, self._window, self._process, self._device):
            item.setData([], [])
        self._ends.setData([], [])
        self._mid.setData([], [])
        self._band.setData([], [])
        self.marks.clear()
        self.result_levels.clear()
        self._total.hide()
        self.peak.clear()
        self._cost_hint.show()
        if self.cost_in_usd:
            self.cost.plot.setTitle("Projected cost per epoch")
            self.cost.plot.setLabel("left", "USD per epoch")
        else:
            self.cost.plot.setTitle("Projected epoch time (no price given)")
            self.cost.plot.setLabel("left", "seconds per epoch")
        for chart in self.charts.values():
            chart.set_caption(caption)
        self.caption = caption
        self.flops.begin(caption)
        self.input_wait.begin(config.data_spec.reads_files)
        self.goal.begin(config.target_precision_pct)
        if self.cost_in_usd != was_usd:
            self._draw_overlays()  # the past runs' cost lines in the new unit
        self._stagger.start()
        # Every axis from scratch (no past range hides the new run), one chart a turn.
        self._stagger.each(self._fit_one)
        self.input_wait.fit_y()

    def on_event(self, event: Event) -> None:
        if self.series is None:
            return
        if isinstance(event, Started):
            self.run_id = event.run_id
            if any(r.get("run_id") == self.run_id for r in self.overlays.results):
                self.set_overlays(self.overlays.results)  # its own row, selected, dropped
            return
        if isinstance(event, Step):
            self.series.add_steps(event)
        elif isinstance(event, Sample):
            self.series.add_sample(event)
        elif isinstance(event, Flops):
            self.series.set_flops(event)
            self.flops.counted(self.series, self.caption)
        elif isinstance(event, Precision):
            self.series.add_precision(event)
        elif isinstance(event, Phase) and mark_text(event):
            self.marks.add(self.series.latest_t, mark_text(event))
        else:
            return
        self._stagger.mark()

    def refresh(self) -> None:
        """Push every chart's new data into its curves now (the timer pushes one a tick)."""
        if self.series is not None:
            self._stagger.flush()

    def _draw_now(self, exporting: bool) -> None:
        """A file shows the run as it is now, its end's turns taken or not (end_run)."""
        if exporting:
            self.refresh()

    def _push_throughput(self) -> None:
        s = self.series
        assert s is not None
        self.input_wait.refresh(s)
        self.goal.refresh(s)
        self._warm.setData(s.warm_t.values, s.warm_rate.values)
        self._measured.setData(s.meas_t.values, s.meas_rate.values)
        self._window.setData(s.window_t.values, s.window_rate.values)
        self._ends.setData(s.ends_t.values, s.ends_rate.values)
        # After the curves: the ranges hold what they draw now. The time axis is shared: the
        # other charts take a jump of it at their own turn.
        if self.ranges.lead_x(s.latest_t):
            self._stagger.mark(self.ranges.followers)
        self._follow("throughput")
        self.updated.emit()

    def _push_memory(self) -> None:
        s = self.series
        assert s is not None
        self._process.setData(s.mem_t.values, s.mem_process.values / GIB)
        self._device.setData(s.mem_t.values, s.mem_device.values / GIB)
        if s.memory_total_bytes:
            total = f"device total {report.size(s.memory_total_bytes)}"
            set_level(self._total, s.memory_total_bytes / GIB, total)
        if s.peak_memory is not None:
            self.peak.show(s.peak_memory[0], s.peak_memory[1], s.memory_total_bytes)
        self._follow("memory")

    def _push_cost(self) -> None:
        s = self.series
        assert s is not None
        proj = (s.proj_t.values, s.proj_low.values, s.proj_mid.values, s.proj_high.values)
        self._band.setData(*band_outline(*bounded_band(*proj)))
        self._cost_hint.setVisible(len(s.proj_t) == 0)
        self._mid.setData(s.proj_t.values, s.proj_mid.values)
        self._follow("cost")

    def _push_flops(self) -> None:
        assert self.series is not None
        self.flops.refresh(self.series)
        self._follow("flops")

    def _follow(self, name: str) -> None:
        self.ranges.catch_up(name)
        self.ranges.follow_chart(name)
        self.charts[name].labels.request()

    def _separate_labels(self) -> None:
        for chart in self.charts.values():
            chart.labels.request()

    def fit(self) -> None:
        """Every axis fitted to what is shown: the run (followed while live) and every level
        (Reset view, a new run, a new selection)."""
        self.ranges.fit(self.series, live=self._stagger.live)
        self.input_wait.fit_y()
        self._separate_labels()

    def _fit_one(self, name: str) -> None:
        """Chart `name`'s axes afresh at its turn (a new run's; a new selection's in a run)."""
        if self.ranges.fit_one(name, self.series, live=self._stagger.live):
            self._stagger.mark(self.ranges.followers)

    def _levels(self, name: str) -> list[pg.InfiniteLine]:
        """The level lines of chart `name` that its y range holds: the result's (or the
        device's total) and the overlaid past runs'."""
        own = {
            "throughput": self.result_levels.rate,
            "memory": self._total,
            "cost": self.result_levels.cost,
        }
        fixed = own.get(name, self.flops.final)
        return [fixed, *self.overlays.levels(name)]

    def end_run(self, result: dict[str, Any] | None) -> None:
        """The run's end drawn one chart a turn, as while live (the four at once repainted
        the grid in one task of 50-90 ms: benchmarks/RESULTS.md, issue 42): each chart's last
        data, then, with a result, its final figure, and its axes fitted to the finished run
        (for a look and for export); the timer stops after the last. refresh() draws it now."""
        self._result = result if result and result.get("status") == "ok" else None
        if self.series is None:  # nothing drawn: no turns to take
            self.timer.stop()
            for name in self.charts:
                self._end_chart(name)
            return
        self._stagger.each(self._end_chart, after=True)
        self._stagger.finish()

    def _end_chart(self, name: str) -> None:
        """Chart `name`'s part of end_run, after its last push."""
        result, s = self._result, self.series
        if result is not None:
            self._shows_result[name](result)
        if s is not None:
            if name == LEAD and self.ranges.lead_x(s.latest_t, final=True):
                self._stagger.mark(self.ranges.followers)
            self.ranges.catch_up(name)
            self.ranges.follow_chart(name, final=True)
        self.ranges.include_level(name)
        if name == "throughput":
            self.input_wait.fit_y()
        self.charts[name].labels.request()

    def _result_throughput(self, result: dict[str, Any]) -> None:
        self.result_levels.show_rate(result)
        self.input_wait.end(result)
        self.goal.end(result)

    def set_overlays(self, results: list[dict[str, Any]]) -> None:
        """Reference lines for stored results, to compare with the run on screen; the axes
        fit what is shown now (a new selection). The same lines again change nothing (the run
        just stored, selected: its own row is not drawn)."""
        before = self.overlays.shown(self.run_id)
        self.overlays.results = list(results)
        if self.overlays.shown(self.run_id) == before:
            return
        self._draw_overlays()
        if self.timer.isActive():  # a run draws or ends: one chart a turn (stagger.py)
            self._stagger.each(self._fit_one)
        else:
            self.fit()

    def _draw_overlays(self) -> None:
        self.overlays.draw(self.run_id, self.colors, self.cost_in_usd)
        self._separate_labels()
