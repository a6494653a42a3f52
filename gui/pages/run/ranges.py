"""The Run tab's axis ranges: the live plots follow a run in jumps (gui/common/plot_ranges.py
says why), fit what is shown when something new is shown, and an export spans its data.

What is shown is the run's curves and every level line of a plot (a past run overlaid, the
result, the device's total): a new run, a new selection and Reset view fit the axes to all of
it, from scratch, so that no past range (an overlay's 0-2500 samples/s) hides a live line.
While a run is live the ranges follow it, its warm-up included; once it has ended they fit it.
Every range holds all that its chart draws, read from the curves themselves (data_top): every
per-step rate, the slowest window's projected cost, the band where it is drawn (plot_style
says where), and an empty chart starts at 0.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import pyqtgraph as pg

from gui.common.chart import Chart
from gui.common.plot_ranges import FollowRange, data_end, data_top
from gui.pages.run.series import RunSeries


def link_time(lead: pg.ViewBox, others: list[pg.ViewBox]) -> None:
    """One time axis: zooming or panning any of the views moves the others, to the same range.
    pyqtgraph lines linked views up by their pixels where they overlap on screen: the cost
    chart, under the throughput chart with a narrower left axis, began at -0.15 s."""
    for vb in (lead, *others):
        # pyqtgraph looks the method up at each change of a linked view.
        setattr(vb, "linkedViewChanged", functools.partial(_same_range, vb))  # noqa: B010
    for vb in others:
        vb.setXLink(lead)


def _same_range(vb: pg.ViewBox, view: pg.ViewBox | None, axis: int) -> None:
    """`vb`'s x range becomes the linked `view`'s (pyqtgraph's linkedViewChanged, replicating)."""
    if vb.linksBlocked or view is None or axis != pg.ViewBox.XAxis:
        return
    view.blockLink(True)  # no echo back to the view that moved
    try:
        vb.enableAutoRange(pg.ViewBox.XAxis, False)
        vb.setXRange(*view.viewRange()[0], padding=0)
    finally:
        view.blockLink(False)


LEAD = "throughput"  # the chart whose time axis the others are linked to


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
        self._behind: set[str] = set()  # followers not yet at the lead's time range (lead_x)
        for name, chart in charts.items():
            chart.export_hooks.append(functools.partial(self._span_export, name))

    def level_top(self, name: str) -> float:
        """The highest level line shown on chart `name` (0 when none)."""
        values = [float(line.value()) for line in self.levels(name) if line.isVisible()]
        return max(values, default=0.0)

    def follow_chart(self, name: str, final: bool = False) -> None:
        """Chart `name`'s y range holds all it draws and its levels (the device's total among
        them); at the end of a run (`final`), fit."""
        self._y(name, data_top(self.charts[name].plot), final)

    def _y(self, name: str, top: float, final: bool) -> None:
        self.follow[name].follow_y(max(top, self.level_top(name)), final)

    def lead_x(self, latest_s: float, final: bool = False) -> bool:
        """The lead's time axis follows `latest_s` alone, and the other charts take its range
        at their own turn (catch_up): while a run is live, a jump of the shared axis then
        repaints one view a turn of the event loop, not the four in one task (40-70 ms of the
        GUI thread under Xvfb: benchmarks/RESULTS.md, issue 42). True: it moved, the others
        are behind until they catch up, their links held till then (pyqtgraph also copies the
        lead's range to them when the lead is resized, as its axis's new labels do)."""
        for name in self.followers:
            self.charts[name].plot.vb.blockLink(True)
        moved = self.follow[LEAD].follow_x(latest_s, final)
        if moved:
            self._behind.update(self.followers)
        for name in set(self.followers) - self._behind:
            self.charts[name].plot.vb.blockLink(False)
        return moved

    @property
    def followers(self) -> tuple[str, ...]:
        """The charts whose time axis is linked to the lead's."""
        return tuple(name for name in self.charts if name != LEAD)

    def catch_up(self, name: str) -> None:
        """Chart `name`'s time axis takes the lead's range, if lead_x left it behind."""
        if name not in self._behind:
            return
        self._behind.discard(name)
        lead, vb = self.charts[LEAD].plot.vb, self.charts[name].plot.vb
        vb.blockLink(False)
        if vb.linkedView(pg.ViewBox.XAxis) is not lead:
            return  # unlinked: an export draws it on its own axis
        want = lead.viewRange()[0]
        if vb.viewRange()[0] == want:
            return
        lead.blockLink(True)  # no echo back
        try:
            vb.setXRange(*want, padding=0)
        finally:
            lead.blockLink(False)

    def fit(self, series: RunSeries | None, live: bool) -> None:
        """Fit every axis to what is shown now, from scratch: the run (followed while live,
        fitted once ended) and every level; a zoom or pan of the user's is given up."""
        for name in (LEAD, *self.followers):
            self.fit_one(name, series, live)

    def fit_one(self, name: str, series: RunSeries | None, live: bool) -> bool:
        """fit's, for chart `name` alone (a follower's time axis is the lead's: fit the lead
        first). A new run's start fits one chart a turn (LivePlots.begin_run). True: the lead's
        time axis moved, and the followers are behind until they catch up."""
        follow = self.follow[name]
        follow.reset()
        latest = series.latest_t if series is not None else 0.0
        moved = False
        if name == LEAD:  # 0: the time axis's first span
            moved = self.lead_x(latest, final=latest > 0 and not live)
        else:
            self.catch_up(name)
        if latest > 0:
            self.follow_chart(name, final=not live)
        self.include_level(name)
        follow.start_empty()
        return moved

    def include_level(self, name: str) -> None:
        """Chart `name`'s y range grows to hold its levels (a result's is in view at once)."""
        top = self.level_top(name)
        if top > 0:
            self.follow[name].include_y(top)

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
            if end > 0 and self.follow[LEAD].following:
                vb.setXRange(0.0, end * 1.02, padding=0)
        elif name in self._on_screen:
            vb.setXRange(*self._on_screen.pop(name), padding=0)
            link = self._links.pop(name, None)
            if link is not None:
                vb.setXLink(link)
