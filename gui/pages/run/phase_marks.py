"""The phase marks of the live plots: a dotted vertical line where a phase began ("window 1",
"evaluating", "done"; plot_style.mark_text says which are marked), labelled at its top, on the
throughput and memory charts (the cost chart only begins once measuring does)."""

from __future__ import annotations

import pyqtgraph as pg

from gui.common.chart import Chart
from gui.common.theme import PlotColors
from gui.pages.run.plot_style import backdrop


class PhaseMarks:
    """The marks of one run on `charts`."""

    def __init__(self, charts: tuple[Chart, ...], colors: PlotColors) -> None:
        self.charts = charts
        self.colors = colors
        self.lines: list[tuple[Chart, pg.InfiniteLine]] = []

    def add(self, t: float, name: str) -> None:
        """A mark named `name` at `t` seconds on each chart."""
        for chart in self.charts:
            line = pg.InfiniteLine(
                pos=t, angle=90, movable=False, label=name, labelOpts={"position": 0.92}
            )
            chart.plot.addItem(line, ignoreBounds=True)
            self.lines.append((chart, line))
            self._style(line)

    def clear(self) -> None:
        for chart, line in self.lines:
            chart.plot.removeItem(line)
        self.lines.clear()

    def set_colors(self, colors: PlotColors) -> None:
        self.colors = colors
        for _, line in self.lines:
            self._style(line)

    def _style(self, line: pg.InfiniteLine) -> None:
        line.setPen(pg.mkPen(self.colors.phase, style=pg.QtCore.Qt.DotLine))
        line.label.setColor(self.colors.phase)
        line.label.fill = pg.mkBrush(backdrop(self.colors))  # readable over the data
