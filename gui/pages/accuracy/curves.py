"""Live learning curves of a cost-to-accuracy study: held-out accuracy against training
iterations and against training time, one curve per batch size and repeat.

A curve is created when its run's first evaluation arrives and then only fed: events append
to plain lists, and a timer pushes the lists that changed into their curves with setData. A
run's stabilisation point (or the evaluation that met the target) is marked with a star in
the curve's colour once the run's result says where it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer

from engine.core.events import Eval
from gui.common.chart import Chart
from gui.common.theme import PlotColors

REFRESH_HZ = 20
REPEAT_STYLES = (
    Qt.PenStyle.SolidLine,
    Qt.PenStyle.DashLine,
    Qt.PenStyle.DotLine,
    Qt.PenStyle.DashDotLine,
)
ACCURACY_LABEL = "held-out accuracy (%)"
EMPTY_HINT = "curves appear as runs train"


def series_colors(colors: PlotColors) -> tuple[str, ...]:
    """One colour per batch size, each legible on the plot background (theme.py checks them)."""
    return (
        colors.measured,
        colors.median,
        colors.process_memory,
        colors.device_memory,
        colors.phase,
        *colors.overlay,
    )


@dataclass
class _Curve:
    iterations: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    accuracy: list[float] = field(default_factory=list)
    items: tuple[pg.PlotDataItem, pg.PlotDataItem] | None = None
    dirty: bool = False


def add_hint(chart: Chart, text: str) -> pg.TextItem:
    """A line of text in the middle of an empty chart (view pixels: it stays put)."""
    hint = pg.TextItem(text, anchor=(0.5, 0.5))
    hint.setParentItem(chart.plot.vb)
    chart.plot.vb.sigResized.connect(lambda vb: hint.setPos(vb.width() / 2, vb.height() / 2))
    chart.labels.add_hint(hint)
    return hint


class LearningCurves:
    """The two curve charts, fed with Eval events; `charts` maps names to Charts."""

    def __init__(self, colors: PlotColors) -> None:
        self.by_iteration = Chart("curves_iterations", "Learning curves", ACCURACY_LABEL)
        self.by_iteration.plot.setLabel("bottom", "training iterations")
        self.by_time = Chart("curves_time", "Learning curves over time", ACCURACY_LABEL)
        self.by_time.plot.setLabel("bottom", "training time (s)")
        self.charts = {c.name: c for c in (self.by_iteration, self.by_time)}
        self._hints = [add_hint(c, EMPTY_HINT) for c in self.charts.values()]
        for chart in self.charts.values():
            chart.plot.setYRange(0, 100)
            chart.plot.getViewBox().setLimits(yMin=-5, yMax=105)
        self._curves: dict[tuple[int, int], _Curve] = {}
        self._batch_sizes: tuple[int, ...] = ()
        self._stars: list[pg.ScatterPlotItem] = []
        self._targets: list[pg.InfiniteLine] = []
        self.timer = QTimer()
        self.timer.setInterval(1000 // REFRESH_HZ)
        self.timer.timeout.connect(self.refresh)
        self.set_colors(colors)

    def set_colors(self, colors: PlotColors) -> None:
        self.colors = colors
        for chart in self.charts.values():
            chart.set_colors(colors)
        for hint in self._hints:
            hint.setColor(colors.foreground)
        for (batch, repeat), curve in self._curves.items():
            for item in curve.items or ():
                item.setPen(self._pen(batch, repeat))
        for line in self._targets:
            line.setPen(pg.mkPen(colors.limit, width=1.5, style=Qt.PenStyle.DashLine))
            line.label.setColor(colors.limit)

    def color(self, batch_size: int) -> str:
        palette = series_colors(self.colors)
        index = self._batch_sizes.index(batch_size) if batch_size in self._batch_sizes else 0
        return palette[index % len(palette)]

    def _pen(self, batch_size: int, repeat: int) -> Any:
        style = REPEAT_STYLES[repeat % len(REPEAT_STYLES)]
        return pg.mkPen(self.color(batch_size), width=2, style=style)

    def begin(
        self, batch_sizes: tuple[int, ...], repeats: int, target: float | None, caption: str
    ) -> None:
        """Clear the charts for a new study; a target (fraction) draws its level."""
        for chart in self.charts.values():
            chart.plot.clear()  # curves, stars and target lines
            chart.legend.clear()
            chart.set_caption(caption)
            chart.plot.enableAutoRange(x=True)
            chart.plot.setYRange(0, 100)
        self._curves.clear()
        self._stars.clear()
        self._targets.clear()
        self._batch_sizes = tuple(batch_sizes)
        for hint in self._hints:
            hint.show()
        self._add_keys(repeats, "target met" if target is not None else "settled")
        if target is not None:
            for chart in self.charts.values():
                line = pg.InfiniteLine(
                    pos=target * 100,
                    angle=0,
                    movable=False,
                    label=f"target {target:.1%}",
                    # Left-aligned just above the line, clear of the axis.
                    labelOpts={"position": 0.01, "anchors": [(0, 1), (0, 1)]},
                )
                chart.plot.addItem(line, ignoreBounds=True)
                self._targets.append(line)
        self.set_colors(self.colors)
        self.timer.start()

    def _add_keys(self, repeats: int, star: str) -> None:
        """The legend: a colour per batch size and a line style per repeat (a key for each
        of the batch sizes x repeats curves would not fit beside them)."""
        keys = [(f"batch {b}", pg.mkPen(self.color(b), width=2)) for b in self._batch_sizes]
        if repeats > 1:
            keys += [
                (
                    f"repeat {r + 1}",
                    pg.mkPen(self.colors.foreground, width=1.5, style=REPEAT_STYLES[r % 4]),
                )
                for r in range(min(repeats, len(REPEAT_STYLES)))
            ]
        for chart in self.charts.values():
            for name, pen in keys:
                chart.legend.addItem(pg.PlotDataItem(pen=pen), name)
            chart.legend.addItem(
                pg.ScatterPlotItem(symbol="star", size=12, brush=pg.mkBrush(self.colors.limit)),
                star,
            )

    def add(self, event: Eval) -> None:
        """One evaluation of a run (the untrained model's first)."""
        key = (event.batch_size or 0, event.repeat)
        curve = self._curves.get(key)
        if curve is None:
            curve = self._curves[key] = _Curve(items=self._new_items(*key))
            for hint in self._hints:
                hint.hide()
        curve.iterations.append(event.iteration)
        curve.seconds.append(event.train_seconds)
        curve.accuracy.append(event.accuracy * 100)
        curve.dirty = True

    def _new_items(self, batch_size: int, repeat: int) -> tuple[pg.PlotDataItem, pg.PlotDataItem]:
        items = []
        for chart in self.charts.values():
            item = pg.PlotDataItem(pen=self._pen(batch_size, repeat))
            chart.plot.addItem(item)
            items.append(item)
        return items[0], items[1]

    def mark_point(self, result: dict[str, Any]) -> None:
        """A star where a finished run met its target or settled."""
        section = result.get("accuracy") or {}
        point = section.get("point")
        if not point:
            return
        batch = int(result["config"]["batch_size"])
        y = point["accuracy"] * 100
        verb = "settled" if section.get("stop_reason") == "stable" else "reached the target"
        for chart, x in (
            (self.by_iteration, point["iteration"]),
            (self.by_time, point["train_seconds"]),
        ):
            star = pg.ScatterPlotItem(
                [x],
                [y],
                symbol="star",
                size=16,
                brush=pg.mkBrush(self.color(batch)),
                pen=pg.mkPen(self.colors.foreground, width=1),
                hoverable=True,
                tip=lambda x, y, data, v=verb: f"{v} at {x:,.4g}: {y:.1f}%",
            )
            star.setZValue(10)
            chart.plot.addItem(star)
            self._stars.append(star)

    def refresh(self) -> None:
        """Push the runs that changed into their curves (the timer calls this)."""
        for curve in self._curves.values():
            if not curve.dirty or curve.items is None:
                continue
            curve.dirty = False
            acc = np.asarray(curve.accuracy)
            curve.items[0].setData(np.asarray(curve.iterations), acc)
            curve.items[1].setData(np.asarray(curve.seconds), acc)

    def end(self) -> None:
        self.refresh()
        self.timer.stop()

    @property
    def curve_count(self) -> int:
        return len(self._curves)

    def points(self, batch_size: int, repeat: int) -> tuple[list[float], list[float]]:
        """A run's curve as drawn: iterations and accuracy (%)."""
        curve = self._curves[(batch_size, repeat)]
        assert curve.items is not None
        x, y = curve.items[0].getData()
        return ([] if x is None else list(x)), ([] if y is None else list(y))
