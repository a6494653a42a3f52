"""The Run tab's axis ranges: the live plots follow a run in jumps (gui/common/plot_ranges.py
says why), fit what is shown when something new is shown, and an export spans its data.

What is shown is the run's curves and every level line of a plot (a past run overlaid, the
result, the device's total): a new run, a new selection and Reset view fit the axes to all of
it, from scratch, so that no past range (an overlay's 0-2500 samples/s) hides a live line.
While a run is live the ranges follow it, its warm-up included; once it has ended they fit it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg

from gui.common.chart import Chart
from gui.common.plot_ranges import FollowRange, data_end
from gui.pages.run.flops_chart import FlopsChart
from gui.pages.run.series import RunSeries

GIB = float(2**30)
RECENT = 20_000  # steps that set the throughput axis (a percentile of all would cost O(n))
PER_STEP_REACH = 2.0  # the throughput axis shows per-step rates up to this x the window's line


def throughput_top(series: RunSeries) -> float:
    """The throughput axis's top for the steps so far, warm-up included (0: no step yet)."""
    rates = np.concatenate([series.warm_rate.values[-RECENT:], series.meas_rate.values[-RECENT:]])
    if not np.isfinite(rates).any():
        return 0.0
    # Single steps can be many times the typical rate (timer granularity on tiny steps):
    # scale to the bulk of the recent ones. The window's line sets the scale: steps far
    # above it (a busy machine's gaps between them) run off the top.
    top = float(np.nanpercentile(rates, 98))
    line = series.window_rate.values[-RECENT:]
    if np.isfinite(line).any():
        level = float(np.nanpercentile(line, 98))
        top = max(level, min(top, PER_STEP_REACH * level))
    return top


class RunRanges:
    """The ranges of the charts (throughput, memory, cost, flops) of one LivePlots."""

    def __init__(
        self, charts: dict[str, Chart], levels: Callable[[str], list[pg.InfiniteLine]]
    ) -> None:
        self.charts = charts
        self.follow = {name: FollowRange(chart.plot) for name, chart in charts.items()}
        self.levels = levels  # a chart's name -> its level lines (shown or not)
        self._on_screen: dict[str, tuple[float, float]] = {}
        self._links: dict[str, pg.ViewBox | None] = {}  # a chart's x link, while exported
        for name, chart in charts.items():
            chart.export_hooks.append(functools.partial(self._span_export, name))

    def level_top(self, name: str) -> float:
        """The highest level line shown on chart `name` (0 when none)."""
        values = [float(line.value()) for line in self.levels(name) if line.isVisible()]
        return max(values, default=0.0)

    def follow_run(self, series: RunSeries, final: bool = False) -> None:
        """Each y range holds the run's data so far and the plot's levels; at the end, fit."""
        top = throughput_top(series)
        if top:
            self._y("throughput", top, final)
        if len(series.proj_t):
            # The first few steps' interval can be huge; it may run off the top.
            high = min(float(series.proj_high.values.max()), 3 * series.proj_mid.values[-1])
            self._y("cost", high, final)
        flops = self.charts["flops"]
        if isinstance(flops, FlopsChart) and flops.top:
            self._y("flops", flops.top, final)
        if series.memory_total_bytes:
            self.follow_memory(series.memory_total_bytes / GIB)

    def follow_memory(self, total_gib: float) -> None:
        """The memory plot holds the device's total (GiB) and its levels, with headroom even
        once the run has ended: the total's label and the peak's sit near the top."""
        self._y("memory", total_gib, final=False)

    def _y(self, name: str, top: float, final: bool) -> None:
        self.follow[name].follow_y(max(top, self.level_top(name)), final)

    def follow_x(self, latest_s: float, final: bool = False) -> None:
        """The shared time axis (the throughput plot's leads the other three)."""
        self.follow["throughput"].follow_x(latest_s, final)

    def fit(self, series: RunSeries | None, live: bool) -> None:
        """Fit every axis to what is shown now, from scratch: the run (followed while live,
        fitted once ended) and every level; a zoom or pan of the user's is given up."""
        for follow in self.follow.values():
            follow.reset()
        if series is not None and series.latest_t > 0:
            self.follow_x(series.latest_t, final=not live)
            self.follow_run(series, final=not live)
        else:
            self.follow_x(0.0)  # the time axis's first span
        self.include_levels()

    def include_levels(self) -> None:
        """Each y range grows to hold its plot's levels (a selected result is in view at once)."""
        for name, follow in self.follow.items():
            top = self.level_top(name)
            if top > 0:
                follow.include_y(top)

    def _span_export(self, name: str, on: bool) -> None:
        """An exported chart's time axis is its own: unlinked from the shared one while the
        file is drawn (linked, a chart laid out wider than the throughput chart took a range
        scaled by the widths: a cost chart's data ended at 16.5 s, its axis at 37 s), and,
        unless the user zoomed, from 0 to where its data ends. The screen's range and link
        come back after."""
        vb = self.charts[name].plot.vb
        if on:
            low, high = vb.viewRange()[0]
            self._on_screen[name] = (low, high)
            self._links[name] = vb.linkedView(vb.XAxis)
            vb.setXLink(None)
            end = data_end(self.charts[name].plot)
            if end > 0 and self.follow["throughput"].following:
                vb.setXRange(0.0, end * 1.02, padding=0)
        elif name in self._on_screen:
            vb.setXRange(*self._on_screen.pop(name), padding=0)
            link = self._links.pop(name, None)
            if link is not None:
                vb.setXLink(link)
