"""Stored results drawn over the live plots: a past run's figures as level lines, one colour
per run, to compare with the run on screen (the Run tab's selected rows)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from gui.common.chart import Chart
from gui.common.results_model import result_label
from gui.common.theme import PlotColors
from gui.pages.run.plot_style import GIB, backdrop


def overlay_lines(
    results: list[dict[str, Any]], charts: dict[str, Chart], colors: PlotColors, in_usd: bool
) -> list[tuple[Chart, pg.InfiniteLine]]:
    """Each result's throughput, peak memory, cost per epoch (or epoch time, `in_usd` False)
    and achieved TFLOP/s as a labelled line on the chart of that name, added to its plot."""
    lines: list[tuple[Chart, pg.InfiniteLine]] = []
    for i, r in enumerate(results):
        label = result_label(r)
        color = colors.overlay[i % len(colors.overlay)]
        for name, value in (
            ("throughput", r.get("throughput_samples_per_s")),
            ("memory", (r.get("peak_memory_bytes") or np.nan) / GIB),
            ("cost", r.get("usd_per_epoch" if in_usd else "epoch_seconds")),
            ("flops", (r.get("flops") or {}).get("achieved_tflops")),
        ):
            if value is None or not np.isfinite(value):
                continue
            line = pg.InfiniteLine(
                pos=value,
                angle=0,
                movable=False,
                label=label,
                labelOpts={"position": 0.6, "color": color},
                pen=pg.mkPen(color, width=1.5, style=pg.QtCore.Qt.DashDotLine),
            )
            line.label.fill = pg.mkBrush(backdrop(colors))  # readable over the data
            charts[name].plot.addItem(line)
            lines.append((charts[name], line))
    return lines


class Overlays:
    """The stored results drawn over the live plots (`results`, the selected rows priced), and
    their lines: a result that is the run on screen is not drawn."""

    def __init__(self, charts: dict[str, Chart]) -> None:
        self.charts = charts
        self.results: list[dict[str, Any]] = []
        self.lines: list[tuple[Chart, pg.InfiniteLine]] = []

    def shown(self, run_id: str | None) -> list[dict[str, Any]]:
        """The results drawn while run `run_id` is on screen."""
        return [r for r in self.results if r.get("run_id") != run_id]

    def draw(self, run_id: str | None, colors: PlotColors, in_usd: bool) -> None:
        for chart, line in self.lines:
            chart.plot.removeItem(line)
        self.lines = overlay_lines(self.shown(run_id), self.charts, colors, in_usd)

    def levels(self, name: str) -> list[pg.InfiniteLine]:
        """The lines on chart `name`."""
        return [line for chart, line in self.lines if chart.name == name]
