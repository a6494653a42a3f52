"""The study's cost charts, redrawn after each run (they change once a run, not a frame).

Bars: cost to accuracy per batch size, the mean over the repeats that got there, with the
sample std as error bars (seconds instead of dollars when no price is set). Scatter: cost
against time to accuracy, one filled point per run on this machine and a hollow one per cloud
instance it projects to (engine.accuracy.cost.across_instances), on log axes, since the
instances span orders of magnitude in both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg

from engine.accuracy.repeats import BatchSummary
from engine.results import report
from gui.common.chart import Chart
from gui.common.theme import PlotColors
from gui.pages.accuracy.curves import add_hint, series_colors

if TYPE_CHECKING:  # it imports pandas (engine.pricing.compare_rows)
    from engine.accuracy.cost import InstanceCostToAccuracy

BAR_WIDTH = 0.6


def _log10(values: Sequence[float]) -> np.ndarray:
    return np.log10(np.maximum(np.asarray(values, dtype=float), 1e-12))


class CostCharts:
    """The bar chart and the scatter; `charts` maps names to Charts."""

    def __init__(self, colors: PlotColors) -> None:
        self.bars = Chart("cost_bars", "Cost to accuracy per batch size", "USD")
        self.bars.plot.setLabel("bottom", "batch size")
        self.bars.plot.setMouseEnabled(x=False)
        self.scatter = Chart("cost_scatter", "Cost against time to accuracy", "USD to accuracy")
        self.scatter.plot.setLabel("bottom", "time to accuracy (s)")
        self.charts = {c.name: c for c in (self.bars, self.scatter)}
        self._bar_hint = add_hint(self.bars, "bars appear as runs end")
        self._scatter_hint = add_hint(self.scatter, "points appear as runs end")
        self.batch_sizes: tuple[int, ...] = ()
        self.priced = True
        self._log = False
        self._caption = ""
        self.set_colors(colors)

    def set_colors(self, colors: PlotColors) -> None:
        self.colors = colors
        for chart in self.charts.values():
            chart.set_colors(colors)
        for hint in (self._bar_hint, self._scatter_hint):
            hint.setColor(colors.foreground)

    def color(self, batch_size: int) -> str:
        palette = series_colors(self.colors)
        index = self.batch_sizes.index(batch_size) if batch_size in self.batch_sizes else 0
        return palette[index % len(palette)]

    def begin(self, batch_sizes: tuple[int, ...], priced: bool, caption: str) -> None:
        self.batch_sizes = tuple(batch_sizes)
        self.priced = priced
        unit = "USD" if priced else "seconds"
        self.bars.plot.setTitle(
            "Cost to accuracy per batch size" if priced else "Time to accuracy per batch size"
        )
        self.bars.plot.setLabel("left", f"{unit} to accuracy (mean ± std)")
        self.bars.plot.getAxis("bottom").setTicks(
            [[(i, str(b)) for i, b in enumerate(self.batch_sizes)]]
        )
        self._caption = caption
        for chart in self.charts.values():
            chart.set_caption(caption)
            chart.plot.clear()
            chart.legend.clear()
        self.bars.legend.hide()
        self._bar_hint.setText("bars appear as runs end")
        self._scatter_hint.setText(
            "points appear as runs end" if priced else "no price: set one on the left"
        )
        self._bar_hint.show()
        self._scatter_hint.show()

    # Bars ---------------------------------------------------------------------------------

    def show_summaries(self, summaries: Sequence[BatchSummary]) -> None:
        """Redraw the bars from the per-batch-size summaries so far."""
        plot = self.bars.plot
        plot.clear()
        drawn = False
        top = 0.0
        for s in summaries:
            x = self.batch_sizes.index(s.batch_size) if s.batch_size in self.batch_sizes else 0
            spread = s.usd if self.priced else s.seconds
            color = self.color(s.batch_size)
            if spread.mean is None:
                why = "failed" if s.failed == s.repeats else "never reached"
                self._label(x, 0.0, f"{why} ({s.never_reached + s.failed}/{s.repeats})")
                continue
            drawn = True
            std = spread.std or 0.0
            top = max(top, spread.mean + std)
            fill = pg.mkColor(color)
            fill.setAlpha(170)
            plot.addItem(
                pg.BarGraphItem(
                    x=[x], height=[spread.mean], width=BAR_WIDTH, brush=fill, pen=pg.mkPen(color)
                )
            )
            if spread.std is not None:
                plot.addItem(
                    pg.ErrorBarItem(
                        x=np.array([x]),
                        y=np.array([spread.mean]),
                        height=np.array([2 * std]),
                        beam=BAR_WIDTH / 3,
                        pen=pg.mkPen(self.colors.foreground, width=1.5),
                    )
                )
            short = f" (n={spread.n})" if spread.n < s.repeats else ""  # fewer got there
            self._label(x, spread.mean + std, self._value_text(spread.mean) + short)
        self._bar_hint.setVisible(not drawn and not summaries)
        plot.setXRange(-0.6, max(len(self.batch_sizes), 1) - 0.4, padding=0)
        plot.setYRange(0, top * 1.18 if top > 0 else 1.0, padding=0)

    def _value_text(self, mean: float) -> str:
        if not self.priced:
            return report.duration(mean)
        # report.money keeps five decimals: too few for the fractions of a cent seen here.
        return report.money(mean) if mean >= 0.01 else f"${mean:.3g}"

    def _label(self, x: float, y: float, text: str) -> None:
        label = pg.TextItem(text, color=self.colors.foreground, anchor=(0.5, 1.0))
        label.setPos(x, y)
        self.bars.plot.addItem(label)

    # Scatter ------------------------------------------------------------------------------

    def show_runs(
        self,
        results: Sequence[dict[str, Any]],
        projections: dict[int, list[InstanceCostToAccuracy]] | None = None,
        note: str = "",
    ) -> None:
        """One point per run that reached its goal here; with projections, one hollow point
        per cloud instance (mean over the repeats) for each batch size. Log axes only with
        instances: at one price the runs here lie on a line through the origin."""
        plot = self.scatter.plot
        plot.clear()
        self.scatter.legend.clear()
        points = _run_points(results) if self.priced else []
        there = {
            batch: [r for r in rows if not r.local and r.usd.mean and r.seconds.mean]
            for batch, rows in (projections or {}).items()
        }
        self._log = self.priced and any(there.values())
        scale = ", log" if self._log else ""
        plot.setLabel("left", f"USD to accuracy{scale}")
        plot.setLabel("bottom", f"time to accuracy (s{scale})")
        for batch in self.batch_sizes:
            mine = [p for p in points if p[0] == batch]
            if mine:
                self._points(batch, mine)
        for batch, rows in there.items():
            if rows and self.priced:
                self._instances(batch, rows)
        self._keys(sorted({p[0] for p in points} | {b for b, v in there.items() if v}))
        # Why no cloud instance is shown: under the plot, with the caption (and so in an
        # export), never over the points as a note in the plot's corner was.
        self.scatter.set_caption(self._caption + (f"<br>{note}" if note else ""))
        if not self.priced:
            self._scatter_hint.setText("no price: set one on the left")
        elif not points:
            self._scatter_hint.setText("no run has reached its goal yet" if results else "")
        self._scatter_hint.setVisible(not points)
        if self._log:
            seconds = [p[1] for p in points] + [
                r.seconds.mean or 0 for v in there.values() for r in v
            ]
            usd = [p[2] for p in points] + [r.usd.mean or 0 for v in there.values() for r in v]
            plot.getAxis("bottom").setTicks([log_ticks(min(seconds), max(seconds), "{:g}")])
            plot.getAxis("left").setTicks([log_ticks(min(usd), max(usd), "${:g}")])
            x0, x1 = math.log10(min(seconds)), math.log10(max(seconds))
            y0, y1 = math.log10(min(usd)), math.log10(max(usd))
            plot.setXRange(x0 - 0.05, x1 + 0.05, padding=0.02)
            plot.setYRange(y0 - 0.05, y1 + 0.35 * (y1 - y0) + 0.1, padding=0.02)  # room for keys
        else:
            for axis in ("bottom", "left"):
                plot.getAxis(axis).setTicks(None)
            if points:
                plot.setXRange(0, max(p[1] for p in points) * 1.1)
                plot.setYRange(0, max(p[2] for p in points) * 1.1)

    def _keys(self, batch_sizes: list[int]) -> None:
        """A colour per batch size, and one key for the hollow cloud points (a key per batch
        size and kind would cover the points in a half-page chart)."""
        for batch in batch_sizes:
            sample = pg.ScatterPlotItem(symbol="o", size=10, brush=pg.mkBrush(self.color(batch)))
            self.scatter.legend.addItem(sample, f"batch {batch}")
        if self._log:
            pen = pg.mkPen(self.colors.foreground, width=1.3)
            cloud = pg.ScatterPlotItem(symbol="t1", size=9, brush=pg.mkBrush(None), pen=pen)
            self.scatter.legend.addItem(cloud, "cloud (projected)")

    def _xy(self, values: Sequence[float]) -> np.ndarray:
        return _log10(values) if self._log else np.asarray(values, dtype=float)

    def _points(self, batch: int, points: list[tuple[int, float, float]]) -> None:
        item = pg.ScatterPlotItem(
            self._xy([p[1] for p in points]),
            self._xy([p[2] for p in points]),
            data=[f"batch {batch} here: {p[1]:.3g} s, ${p[2]:.3g}" for p in points],
            symbol="o",
            size=10,
            brush=pg.mkBrush(self.color(batch)),
            pen=pg.mkPen(self.colors.foreground, width=0.8),
            hoverable=True,
            tip=lambda x, y, data: data,
        )
        item.setZValue(5)
        self.scatter.plot.addItem(item)

    def _instances(self, batch: int, rows: list[InstanceCostToAccuracy]) -> None:
        seconds = [r.seconds.mean or math.nan for r in rows]
        usd = [r.usd.mean or math.nan for r in rows]
        item = pg.ScatterPlotItem(
            self._xy(seconds),
            self._xy(usd),
            data=[
                f"batch {batch} on {r.cloud} {r.instance_type} ({r.gpu_model}, {r.status}): "
                f"{t:.3g} s, ${u:.3g}"
                for r, t, u in zip(rows, seconds, usd, strict=True)
            ],
            symbol="t1",
            size=8,
            brush=pg.mkBrush(None),
            pen=pg.mkPen(self.color(batch), width=1.3),
            hoverable=True,
            tip=lambda x, y, data: data,
        )
        self.scatter.plot.addItem(item)


def log_ticks(low: float, high: float, fmt: str) -> list[tuple[float, str]]:
    """Ticks at 1-2-5 (or 1-3, or decades when the range is wide) between low and high, as
    (log10 position, label): the points are drawn at log10 of their values, so the labels
    say the values themselves ("0.5", "$0.002"), never "10^-2.7"."""
    if not 0 < low <= high:
        return []
    decades = math.log10(high) - math.log10(low)
    steps = (1, 2, 5) if decades <= 1.5 else (1, 3) if decades <= 3 else (1,)
    ticks = []
    for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for step in steps:
            value = step * 10.0**exponent
            if low / 1.5 <= value <= high * 1.5:
                ticks.append((math.log10(value), fmt.format(float(f"{value:.3g}"))))
    return ticks


def _run_points(results: Sequence[dict[str, Any]]) -> list[tuple[int, float, float]]:
    """(batch size, seconds, usd) of each run that reached its goal and has a price."""
    out = []
    for r in results:
        point = (r.get("accuracy") or {}).get("point") if r.get("status") == "ok" else None
        if point and point.get("usd") and point.get("seconds"):
            out.append((int(r["config"]["batch_size"]), point["seconds"], point["usd"]))
    return out
