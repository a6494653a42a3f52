"""The result's levels on the live plots, drawn at a run's end: its throughput (the median of
its windows, with the 95% interval and a target's verdict) on the throughput chart, and its
cost per epoch (or, with no price, its epoch time) on the cost chart, each a dashed line named
with its figure in its chart's legend (KeyedLevel: the windows' figures can fill the plot
around the line)."""

from __future__ import annotations

from typing import Any

from engine.core.interval import interval_text
from engine.results import report
from gui.common.chart import Chart, add_keyed_level
from gui.pages.run.plot_style import median_of, named, turned
from gui.pages.run.precision_band import verdict

# What each level's legend entry says until the run ends (two lines: the figure, the interval).
WAITING_RATE = "result (once a run finishes): the median of its windows\nwith its 95% interval"
WAITING_COST = "result (once a run finishes)\nwith its 95% interval"


class ResultLevels:
    """The result's two level lines: `rate` on the throughput chart, `cost` on the cost chart."""

    def __init__(self, throughput: Chart, cost: Chart) -> None:
        self.rate = add_keyed_level(throughput, WAITING_RATE, lines=2)
        self.cost = add_keyed_level(cost, WAITING_COST, lines=2)

    def clear(self) -> None:
        self.rate.clear()
        self.cost.clear()

    def show_rate(self, result: dict[str, Any]) -> None:
        rate = result["throughput_samples_per_s"]
        sides = named(interval_text(result.get("throughput_ci95"), rate))
        goal = verdict(result)  # a run with a target: on the interval's line
        sides += (("; " if sides else "\n") + goal) if goal else ""
        self.rate.show_at(rate, f"result {rate:,.1f} samples/s{median_of(result)}{sides}")

    def show_cost(self, result: dict[str, Any], in_usd: bool) -> None:
        """The cost per epoch in USD (`in_usd`), else the epoch time; none when the result
        has no such figure."""
        final = result.get("usd_per_epoch") if in_usd else result.get("epoch_seconds")
        if final is not None:
            text = report.money(final) if in_usd else report.duration(final)
            sides = named(interval_text(turned(result, final), final))
            self.cost.show_at(final, f"result {text} per epoch{sides}")
