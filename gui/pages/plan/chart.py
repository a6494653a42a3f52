"""The Plan tab's chart: one run's cost and wall time on every catalog GPU, side by side.

Two panels of horizontal bars share the hardware axis (cheapest on-demand at the top, as
engine.plan.targets.compare() orders them): on-demand and spot cost on the left, wall time on the
right. The chosen GPU is marked. One caption under both says what the bars rest on, so an
exported image stands on its own.
"""

from __future__ import annotations

import datetime as _dt
import textwrap

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetrics

from engine.plan.planner import PlanRow, Target
from gui.common.chart import Chart
from gui.common.theme import PlotColors

BAR = 0.38  # height of one of the two cost bars of a GPU (the row is 1)
CHOSEN = "▶ "
# An export is laid out at this size (logical pixels; gui/common/export.py scales it to its width),
# so the image reads the same whatever the size of the window.
EXPORT_WIDTH = 1000
EXPORT_ROW_HEIGHT = 26
EXPORT_MARGIN_HEIGHT = 190  # titles, axis, caption
CAPTION_CHARS = 90
# On screen a row is a line of text high at least (forty GPUs in 300 pixels printed their names
# over each other): the chart grows and its tab scrolls. A long name is cut to SCREEN_CHARS on
# screen, so that both panels fit beside the form; an export keeps names whole.
ROW_GAP_PX = 6
SCREEN_CHARS = 26
MIN_HEIGHT_PX = 320


def cost_scale(top_usd: float) -> tuple[float, str]:
    """Divisor and axis label that keep the cost ticks short."""
    if top_usd >= 1e6:
        return 1e6, "USD, millions"
    if top_usd >= 1e4:
        return 1e3, "USD, thousands"
    return 1.0, "USD"


def time_scale(top_hours: float) -> tuple[float, str]:
    return (24.0, "days") if top_hours >= 48 else (1.0, "hours")


class PlanChart(Chart):
    """Cost (on-demand, spot) and wall time of one run across hardware; export_item draws
    both panels and the caption."""

    def __init__(self, label_chars: int | None = SCREEN_CHARS) -> None:
        super().__init__("plan", "Cost of one run", "")
        self.label_chars = label_chars  # a GPU name's most characters (None: whole)
        self.time_plot: pg.PlotItem = self.add_plot(row=0, col=1, title="Wall time")
        # Chart's legend and caption sit under its one plot; under two they span both.
        self.place_legend(row=1, colspan=2, columns=2)
        self.adopt(self.time_plot)
        self.view_reset.connect(self._draw)  # the bars' own ranges
        for plot in (self.plot, self.time_plot):
            plot.invertY(True)  # first row (cheapest) at the top
            plot.showGrid(x=True, y=False, alpha=0.15)
            plot.getAxis("left").showLabel(False)
            plot.setMouseEnabled(x=True, y=False)
        self.time_plot.getAxis("bottom").enableAutoSIPrefix(False)
        self.time_plot.setYLink(self.plot)
        self.time_plot.getAxis("left").setStyle(showValues=False, tickLength=0)
        self.ci.layout.setColumnStretchFactor(0, 3)  # the cost panel holds the GPU names
        self.ci.layout.setColumnStretchFactor(1, 2)
        self.setMinimumHeight(MIN_HEIGHT_PX)
        self.rows: list[tuple[PlanRow, Target]] = []
        self.chosen_gpu = ""
        self._items: list[tuple[pg.PlotItem, pg.GraphicsObject]] = []
        self.colors: PlotColors | None = None

    def set_colors(self, colors: PlotColors) -> None:
        super().set_colors(colors)
        self.colors = colors
        ax = self.time_plot.getAxis("bottom")
        ax.setPen(colors.foreground)
        ax.setTextPen(colors.foreground)
        self.time_plot.getAxis("left").setPen(colors.foreground)
        self.time_plot.titleLabel.setText(self.time_plot.titleLabel.text, color=colors.foreground)
        self._draw()

    def show_rows(self, rows: list[tuple[PlanRow, Target]], chosen_gpu: str, caption: str) -> None:
        """Draw the comparison (compare()'s rows, in its order); mark `chosen_gpu`."""
        self.rows = rows
        self.chosen_gpu = chosen_gpu
        self.set_caption(caption)
        self._draw()

    def export_copy(self) -> PlanChart:
        """The same chart laid out at the export size (the caller exports its export_item)."""
        copy = PlanChart(label_chars=None)
        if self.colors is not None:
            copy.set_colors(self.colors)
        copy.show_rows(self.rows, self.chosen_gpu, self.caption.text)
        height = EXPORT_MARGIN_HEIGHT + EXPORT_ROW_HEIGHT * len(self.rows)
        copy.ci.setGeometry(QRectF(0, 0, EXPORT_WIDTH, height))
        copy.ci.layout.activate()
        return copy

    def clear_rows(self) -> None:
        self.show_rows([], "", "")

    def _draw(self) -> None:
        for plot, item in self._items:
            plot.removeItem(item)
        self._items.clear()
        self.legend.clear()
        if self.colors is None:
            return
        rows = self.rows
        ticks = [
            (
                i,
                (CHOSEN if r.gpu == self.chosen_gpu else "")
                + cut(bar_label(r, t), self.label_chars),
            )
            for i, (r, t) in enumerate(rows)
        ]
        for plot in (self.plot, self.time_plot):
            plot.getAxis("left").setTicks([ticks, []])
        # The axis widens to its labels only once painted; an export may come first.
        metrics = QFontMetrics(QFont())
        row_px = metrics.height() + ROW_GAP_PX
        self.setMinimumHeight(max(MIN_HEIGHT_PX, EXPORT_MARGIN_HEIGHT + row_px * len(rows)))
        widest = max((metrics.horizontalAdvance(text) for _, text in ticks), default=0)
        self.plot.getAxis("left").setWidth(int(widest * 1.1) + 16)
        if not rows:
            self.plot.setTitle("Cost of one run", color=self.colors.foreground)
            self.plot.setLabel("bottom", "USD")
            self.time_plot.setTitle("Wall time", color=self.colors.foreground)
            self.time_plot.setLabel("bottom", "wall time")
            return
        self._draw_cost(rows)
        self._draw_time(rows)
        self.plot.setYRange(-0.6, len(rows) - 0.4, padding=0)

    def _pens(self, rows: list[tuple[PlanRow, Target]]) -> list[pg.QtGui.QPen]:
        assert self.colors is not None
        chosen = pg.mkPen(self.colors.foreground, width=2)
        return [chosen if r.gpu == self.chosen_gpu else pg.mkPen(None) for r, _ in rows]

    def _add(self, plot: pg.PlotItem, item: pg.GraphicsObject, name: str = "") -> None:
        plot.addItem(item)
        self._items.append((plot, item))
        if name:
            self.legend.addItem(item, name)

    def _draw_cost(self, rows: list[tuple[PlanRow, Target]]) -> None:
        assert self.colors is not None
        c = self.colors
        top = max(max(r.usd_ondemand or 0.0, r.usd_spot or 0.0) for r, _ in rows)
        scale, unit = cost_scale(top)
        self.plot.setLabel("bottom", unit)
        self.plot.setTitle(f"Cost of one run on {gpus(rows[0][0].count)} each", color=c.foreground)
        pens = self._pens(rows)
        for name, key, offset, color in (
            ("on-demand", "usd_ondemand", -BAR / 2, c.measured),
            ("spot", "usd_spot", BAR / 2, c.process_memory),
        ):
            priced = [i for i, (r, _) in enumerate(rows) if getattr(r, key) is not None]
            if not priced:
                continue
            bars = pg.BarGraphItem(
                x0=0,
                y=[i + offset for i in priced],
                height=BAR,
                width=[getattr(rows[i][0], key) / scale for i in priced],
                brush=color,
                pens=[pens[i] for i in priced],
            )
            self._add(self.plot, bars, name)
        for i, (r, _) in enumerate(rows):
            if r.usd_ondemand is None and r.usd_spot is None:
                text = pg.TextItem("no cloud price in the catalog", color=c.warmup, anchor=(0, 0.5))
                text.setPos(0, i)
                self._add(self.plot, text)
        self.plot.setXRange(0, top / scale * 1.05 or 1.0, padding=0)

    def _draw_time(self, rows: list[tuple[PlanRow, Target]]) -> None:
        assert self.colors is not None
        top = max(r.wall_hours for r, _ in rows)
        scale, unit = time_scale(top)
        self.time_plot.setLabel("bottom", unit)
        self.time_plot.setTitle("Wall time", color=self.colors.foreground)
        bars = pg.BarGraphItem(
            x0=0,
            y=list(range(len(rows))),
            height=0.6,
            width=[r.wall_hours / scale for r, _ in rows],
            brush=self.colors.device_memory,
            pens=self._pens(rows),
        )
        self._add(self.time_plot, bars)
        self.time_plot.setXRange(0, top / scale * 1.05, padding=0)


def gpus(count: int) -> str:
    return f"{count} GPU{'s' if count != 1 else ''}"


def bar_label(row: PlanRow, target: Target) -> str:
    """A bar's hardware: the GPU, and the GPUs billed where whole instances hold more than the
    run uses (an 8-GPU instance for 1 GPU)."""
    billed = target.billed_gpus
    return row.gpu + (f" (billed {billed})" if billed and billed > row.count else "")


def cut(text: str, chars: int | None) -> str:
    """`text` shortened to `chars` characters, ending in "…" where cut (None: whole)."""
    if chars is None or len(text) <= chars:
        return text
    return text[: chars - 1].rstrip() + "…"


def caption(what: str, basis: str, prices: str) -> str:
    """The lines under the chart: what, on what basis, priced from where and when. Wrapped:
    a caption does not wrap by itself, and its width is the chart's least width."""
    today = _dt.date.today().isoformat()
    text = f"{what} · {basis} · {prices} · {today} · epochcost"
    return "<br>".join(textwrap.wrap(text, CAPTION_CHARS))
