"""The Compare page's charts, drawn from engine.pricing.compare's rows: $/epoch by machine (bars),
cost against epoch time (scatter), and owning against renting over days (break-even).

Each is a gui.common.chart.Chart, so it exports with its title, axis labels and caption. Measured
figures are solid; estimates are lighter, with their 80% range (the projection's checked
errors) as whiskers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from engine.pricing import buying
from engine.pricing.compare_rows import CompareRow
from engine.pricing.cost import BreakEven
from engine.results import report
from gui.common.chart import Chart
from gui.common.theme import PlotColors

CHART_TITLES = {
    "compare_bars": "Cost per epoch by machine",
    "compare_scatter": "Cost against epoch time",
    "compare_break_even": "Owning against renting",
}
MAX_BARS = 20  # more bars than this are unreadable; the table has every row
MAX_LABELS = 8  # machines named on the scatter (the cheapest for their speed)
ESTIMATE_ALPHA = 80


class CompareChart(Chart):
    """A Chart with a centred line of text for when there is nothing to draw."""

    def __init__(self, name: str, title: str, left_label: str, bottom_label: str) -> None:
        super().__init__(name, title, left_label)
        self.plot.setLabel("bottom", bottom_label)
        self.plot.setDownsampling(auto=False)
        self.plot.setClipToView(False)
        self.hint = pg.TextItem("", anchor=(0.5, 0.5))
        self.hint.setParentItem(self.plot.vb)  # view pixels, not data: survives plot.clear()
        self.plot.vb.sigResized.connect(self._place_hint)
        self.setMinimumHeight(220)

    def _place_hint(self, vb: pg.ViewBox) -> None:
        self.hint.setTextWidth(max(120.0, vb.width() * 0.8))
        self.hint.setPos(vb.width() / 2, vb.height() / 2)

    def reset(self, hint: str = "") -> None:
        """Remove everything drawn; show `hint` in the empty plot."""
        self.plot.clear()
        self.plot.setLogMode(False, False)
        self.plot.invertY(False)
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setTicks(None)
        self.hint.setText(hint)
        self.hint.setVisible(bool(hint))

    def set_colors(self, colors: PlotColors) -> None:
        super().set_colors(colors)
        self.hint.setColor(colors.foreground)


def make_charts() -> tuple[CompareChart, CompareChart, CompareChart]:
    """The page's three charts: $ per epoch (bars), cost against time, break-even."""
    return (
        CompareChart("compare_bars", CHART_TITLES["compare_bars"], "", "USD per epoch"),
        CompareChart(
            "compare_scatter", CHART_TITLES["compare_scatter"], "USD per epoch", "epoch time"
        ),
        CompareChart(
            "compare_break_even",
            CHART_TITLES["compare_break_even"],
            "cumulative cost (USD)",
            "days of use",
        ),
    )


def _kind(row: CompareRow) -> str:
    if row.local:
        return "local"
    return "estimated" if row.estimated else "measured"


def _label(row: CompareRow) -> str:
    if row.local:
        return "this machine"
    if row.cloud == buying.CLOUD:  # "buy RTX 4090" says it all
        return row.instance_type
    name = f"{row.cloud} {row.instance_type}"
    return name + " (hist.)" if row.historical else name


def priced(rows: Sequence[CompareRow], spot: bool) -> list[tuple[CompareRow, float]]:
    """Rows with a $/epoch (the spot one when `spot`), in the table's order."""
    out = []
    for r in rows:
        usd = r.usd_per_epoch_spot if spot and not r.local else r.usd_per_epoch
        if usd is not None:
            out.append((r, usd))
    return out


def _range(row: CompareRow, usd: float) -> tuple[float, float]:
    """The $/epoch range of a row (an estimate's, or the measurement's own 95% interval),
    scaled to the price shown (spot or on-demand)."""
    if not row.usd_per_epoch or row.usd_per_epoch_low is None:
        return usd, usd
    scale = usd / row.usd_per_epoch
    return row.usd_per_epoch_low * scale, (row.usd_per_epoch_high or row.usd_per_epoch) * scale


def _brush(colors: PlotColors, kind: str) -> pg.QtGui.QBrush:
    color = pg.mkColor(colors.median if kind == "local" else colors.measured)
    if kind == "estimated":
        color.setAlpha(ESTIMATE_ALPHA)
    return pg.mkBrush(color)


def _pen(colors: PlotColors, kind: str) -> pg.QtGui.QPen:
    return pg.mkPen(colors.median if kind == "local" else colors.measured, width=1.2)


BAR_LEGEND = {
    "measured": "measured",
    "estimated": "estimated (whiskers: 80% range)",
    "local": "this machine (measured)",
}
SCATTER_LEGEND = {**BAR_LEGEND, "estimated": "estimated"}


def draw_bars(
    chart: CompareChart,
    rows: Sequence[CompareRow],
    spot: bool,
    colors: PlotColors,
    limit: int = MAX_BARS,
) -> int:
    """Horizontal bars of $/epoch, the cheapest `limit` at the top (the axis says how many more
    the table has); returns how many rows were left out."""
    shown = priced(rows, spot)
    left_out = max(0, len(shown) - limit)
    shown = shown[:limit]
    chart.reset("" if shown else "no machine with a price to show")
    price = "spot where there is one" if spot else "on-demand"
    more = f" · {left_out} more machines in the table" if left_out else ""
    chart.plot.setLabel("bottom", f"USD per epoch ({price}){more}")
    if not shown:
        return left_out
    for kind in BAR_LEGEND:
        ys = [y for y, (r, _) in enumerate(shown) if _kind(r) == kind]
        if not ys:
            continue
        widths = [shown[y][1] for y in ys]
        bars = pg.BarGraphItem(
            x0=0,
            y=ys,
            height=0.7,
            width=widths,
            brush=_brush(colors, kind),
            pen=_pen(colors, kind),
            name=BAR_LEGEND[kind],
        )
        chart.plot.addItem(bars)
        # Whiskers: an estimate's range, or a measurement's own 95% interval.
        spans = [(y, *_range(*shown[y])) for y in ys]
        spans = [(y, low, high) for y, low, high in spans if high > low]
        if spans:
            at, low, high = (np.array(v, dtype=float) for v in zip(*spans, strict=True))
            mid = np.array([shown[int(y)][1] for y in at])
            whiskers = pg.ErrorBarItem(
                x=mid,
                y=at,
                left=mid - low,
                right=high - mid,
                beam=0.25,
                pen=pg.mkPen(colors.foreground, width=1),
            )
            chart.plot.addItem(whiskers)
    # Each machine's figure beside its name: labels at the bars would sit on the whiskers.
    ticks = [
        (y, f"{_label(r)}  {'~' if r.estimated else ''}{report.money(usd)}")
        for y, (r, usd) in enumerate(shown)
    ]
    chart.plot.getAxis("left").setTicks([ticks])
    chart.plot.invertY(True)  # the cheapest on top, as in the table
    top = max(_range(r, usd)[1] for r, usd in shown)
    chart.plot.setXRange(0, top * 1.05 if top > 0 else 1.0, padding=0)  # all $0: a free hour
    # room for a few bars even when there are fewer (as many as fit), so one bar is not a wall
    chart.plot.setYRange(-0.6, max(len(shown), min(limit, 6)) - 0.4, padding=0)
    return left_out


def time_unit(seconds: Sequence[float]) -> tuple[float, str]:
    """(divisor, unit) that keeps epoch times readable: s, min or h."""
    longest = max(seconds, default=0.0)
    if longest >= 3 * 3600:
        return 3600.0, "h"
    if longest >= 180:
        return 60.0, "min"
    return 1.0, "s"


def cheapest_for_speed(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of the points no other point beats on both time and cost (the Pareto front),
    fastest first."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1]))
    front, best = [], math.inf
    for i in order:
        if points[i][1] < best:
            front.append(i)
            best = points[i][1]
    return front


def log_span(values: Sequence[float]) -> tuple[float, float]:
    """A range around positive `values` for a log axis, wider when they are few or close
    (ValueError when none is positive: a log axis has no place for them)."""
    positive = [v for v in values if v > 0]
    if not positive:
        raise ValueError("a log axis needs a positive value")
    low, high = min(positive), max(positive)
    margin = 1.4 if high / low > 3 else 2.0
    return low / margin, high * margin


def log_ticks(low: float, high: float, text: Callable[[float], str]) -> list[tuple[float, str]]:
    """Ticks at 1, 2 and 5 times the powers of ten in [low, high] (every digit when that gives
    fewer than three), placed in log10 units as a log axis of pyqtgraph takes them."""
    for digits in ((1, 2, 5), range(1, 10)):
        ticks = []
        for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
            for m in digits:
                v = float(f"{m * 10.0**exponent:.6g}")
                if low <= v <= high:
                    ticks.append((math.log10(v), text(v)))
        if len(ticks) >= 3:
            break
    return ticks


def draw_scatter(
    chart: CompareChart, rows: Sequence[CompareRow], spot: bool, colors: PlotColors
) -> int:
    """Cost against epoch time on log axes; the line joins the cheapest machine for each speed,
    the bottom-left corner is the answer. Returns how many machines cost $0 an epoch (a free
    hour: a log axis has no place for them; the table and the bars show them)."""
    timed = [(r, usd) for r, usd in priced(rows, spot) if r.epoch_seconds]
    shown = [(r, usd) for r, usd in timed if usd > 0]
    free = len(timed) - len(shown)
    hint = "no machine with an epoch time and a price"
    if free and not shown:
        hint = "every machine here costs $0 an epoch: a log scale has no place for $0"
    chart.reset("" if shown else hint)
    divisor, unit = time_unit([r.epoch_seconds or 0.0 for r, _ in shown])
    off = f" · {free} at $0 an epoch, off the scale" if free and shown else ""
    prices = "spot prices where there are some" if spot else "on-demand prices"
    # One line under the plot says it all: a long label up the side overran a short chart.
    chart.plot.setLabel("bottom", f"epoch time ({unit}) · {prices} · log scales{off}")
    chart.plot.setLabel("left", "USD per epoch")
    if not shown:
        return free
    chart.plot.setLogMode(True, True)
    points = [((r.epoch_seconds or 0.0) / divisor, usd) for r, usd in shown]
    symbols = {"measured": "o", "estimated": "o", "local": "star"}
    for kind in SCATTER_LEGEND:
        mine = [p for p, (r, _) in zip(points, shown, strict=True) if _kind(r) == kind]
        if not mine:
            continue
        x, y = zip(*mine, strict=True)
        chart.plot.addItem(
            pg.PlotDataItem(
                x,
                y,
                pen=None,
                symbol=symbols[kind],
                symbolSize=14 if kind == "local" else 9,
                symbolBrush=_brush(colors, kind),
                symbolPen=_pen(colors, kind),
                name=SCATTER_LEGEND[kind],
            )
        )
    xs, ys = zip(*points, strict=True)
    (x0, x1), (y0, y1) = log_span(xs), log_span(ys)
    chart.plot.getAxis("bottom").setTicks([log_ticks(x0, x1, lambda v: f"{v:g}")])
    chart.plot.getAxis("left").setTicks([log_ticks(y0, y1, lambda v: f"${v:g}")])
    chart.plot.setXRange(math.log10(x0), math.log10(x1), padding=0)
    chart.plot.setYRange(math.log10(y0), math.log10(y1), padding=0)
    front = cheapest_for_speed(points)
    if len(front) > 1:
        fx, fy = zip(*(points[i] for i in front), strict=True)
        chart.plot.addItem(
            pg.PlotDataItem(
                fx,
                fy,
                pen=pg.mkPen(colors.limit, width=1, style=Qt.PenStyle.DashLine),
                name="cheapest for its speed",
            )
        )
    for i in front[:MAX_LABELS]:
        label = pg.TextItem(_label(shown[i][0]), color=colors.foreground, anchor=(-0.05, 1.0))
        label.setPos(math.log10(points[i][0]), math.log10(points[i][1]))
        chart.plot.addItem(label)
    return free


def draw_break_even(
    chart: CompareChart,
    be: BreakEven | None,
    renting: str,
    colors: PlotColors,
    hint: str,
    row: CompareRow | None = None,
) -> None:
    """Cumulative money spent owning (purchase, then electricity) and renting the same work;
    the break-even day with its range (`row`'s, engine/pricing/breakeven.py) shaded."""
    chart.reset("" if be is not None else hint)
    if be is None:
        return
    high = row.break_even_days_high if row is not None else None
    # The days run past the range's far end, so the whole range lies on the lines.
    horizon = max(2 * (be.days or 0.0), 1.1 * high) if be.days and high else None
    series = be.series(horizon)
    day = [p["day"] for p in series]
    chart.plot.addItem(
        pg.PlotDataItem(
            day,
            [p["owned_usd"] for p in series],
            pen=pg.mkPen(colors.process_memory, width=2.5),
            name="owning: purchase + electricity",
        )
    )
    chart.plot.addItem(
        pg.PlotDataItem(
            day,
            [p["rented_usd"] for p in series],
            pen=pg.mkPen(colors.measured, width=2.5),
            name=f"renting {renting} for the same work",
        )
    )
    days = be.days
    if days is None:
        chart.hint.setText("renting stays cheaper: owning never pays off at these figures")
        chart.hint.show()
        return
    text = row.break_even_text if row is not None and row.break_even_text else f"{days:,.1f}"
    if row is not None and row.break_even_days_low is not None:
        shade = pg.mkColor(colors.limit)
        shade.setAlpha(40)
        region = pg.LinearRegionItem(
            (row.break_even_days_low, day[-1] if high is None else high),
            movable=False,
            brush=pg.mkBrush(shade),
            pen=pg.mkPen(None),
        )
        region.setToolTip("break-even over both machines' throughput ranges")
        chart.plot.addItem(region)
    line = pg.InfiniteLine(
        pos=days,
        angle=90,
        movable=False,
        label=f"break-even after {text} days",
        labelOpts={"position": 0.85, "color": colors.limit},
        pen=pg.mkPen(colors.limit, width=1.5, style=Qt.PenStyle.DashLine),
    )
    chart.plot.addItem(line)
