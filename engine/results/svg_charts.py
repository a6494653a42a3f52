"""Charts as SVG text, without Qt, for the HTML report (engine/results/html_report.py): horizontal
bars with their 95% interval, and lines. Legends sit under the plot, never on the data; every
text is escaped; sizes are in CSS pixels and the SVG scales to the page (viewBox)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from engine.core.ticks import tick_text

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf")
FONT = "font-family:Helvetica,Arial,sans-serif"
CHAR_W = 7.0  # a wide average character at 11 px, for laying out labels (no clipping)


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    low: float | None = None  # its 95% interval, when known
    high: float | None = None
    highlight: bool = False  # drawn in the second colour (the measured machine)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering low..high (1, 2 or 5 times a power of ten apart)."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        high = low + 1.0
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    if ticks[-1] < high:
        ticks.append(ticks[-1] + step)
    return ticks


def tick_labels(ticks: list[float]) -> list[str]:
    """nice_ticks' values as every chart writes them (engine/core/ticks.py)."""
    return tick_text(ticks, ticks[1] - ticks[0] if len(ticks) > 1 else 0.0)


def number(value: float) -> str:
    """A value's text beside its bar: 12,000, 1.5, 0.002, 3e-05."""
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 0.01:
        return f"{value:.4g}"
    return f"{value:.2g}"


def _text(
    x: float, y: float, text: str, anchor: str = "start", size: int = 11, **extra: str
) -> str:
    attrs = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in extra.items())
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" '
        f'style="{FONT}"{attrs}>{escape(text)}</text>'
    )


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'width="{width:.0f}" height="{height:.0f}" role="img" aria-label="{escape(title)}">'
        f"<title>{escape(title)}</title>"
        f'<rect width="100%" height="100%" fill="#ffffff"/>' + "".join(body) + "</svg>"
    )


def bar_chart(
    title: str,
    bars: Sequence[Bar],
    axis_label: str,
    fmt: Callable[[float], str] = number,
    width: float = 900.0,
) -> str:
    """Horizontal bars, one a row, labelled on the left, the value at the bar's end, whiskers
    for the 95% interval; the axis under them names the unit."""
    row_h, top = 22.0, 34.0
    label_w = min(260.0, max(60.0, max((len(b.label) for b in bars), default=4) * CHAR_W + 12))
    value_w = max((len(fmt(b.value)) for b in bars), default=4) * CHAR_W + 16
    left, right = label_w, width - value_w
    highest = max([b.value for b in bars] + [b.high or 0.0 for b in bars] + [0.0])
    ticks = nice_ticks(0.0, highest or 1.0)
    scale = (right - left) / ticks[-1]
    bottom = top + row_h * len(bars)
    body = [_text(8, 18, title, size=13, font_weight="bold")]
    for t, text in zip(ticks, tick_labels(ticks), strict=True):
        x = left + t * scale
        body.append(_line(x, top - 4, x, bottom, "#e3e3e3"))
        body.append(_text(x, bottom + 14, text, "middle", 10, fill="#444"))
    for n, b in enumerate(bars):
        y = top + n * row_h
        colour = PALETTE[1] if b.highlight else PALETTE[0]
        w = max(b.value * scale, 0.0)
        body.append(_text(left - 6, y + 15, _clip(b.label, label_w - 12), "end"))
        body.append(_rect(left, y + 4, w, row_h - 8, colour))
        if b.low is not None and b.high is not None:
            x1, x2, ym = left + b.low * scale, left + b.high * scale, y + row_h / 2
            body.append(
                f'<path d="M{x1:.1f},{ym:.1f}H{x2:.1f}M{x1:.1f},{ym - 4:.1f}v8M{x2:.1f},'
                f'{ym - 4:.1f}v8" stroke="#222" stroke-width="1.2" fill="none"/>'
            )
        end = max(left + w, left + (b.high or 0) * scale)
        body.append(_text(end + 4, y + 15, fmt(b.value), fill="#222"))
    body.append(_line(left, top - 4, left, bottom, "#222"))
    body.append(_text((left + right) / 2, bottom + 30, axis_label, "middle", 11))
    return _svg(width, bottom + 40, title, body)


def line_chart(
    title: str,
    series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    x_label: str,
    y_label: str,
    width: float = 900.0,
    height: float = 300.0,
) -> str:
    """Lines through (x, y) points, one colour each, the legend under the x axis."""
    points = [p for _, pts in series for p in pts]
    xs, ys = [p[0] for p in points] or [0.0], [p[1] for p in points] or [0.0]
    x_ticks = nice_ticks(min(xs + [0.0]), max(xs))
    y_ticks = nice_ticks(min(ys + [0.0]), max(ys))
    x_labels, y_labels = tick_labels(x_ticks), tick_labels(y_ticks)
    y_text = max(len(text) for text in y_labels) * CHAR_W
    left, right, top, bottom = 30 + y_text, width - 16, 32.0, height - 64
    sx = (right - left) / (x_ticks[-1] - x_ticks[0])
    sy = (bottom - top) / (y_ticks[-1] - y_ticks[0])

    def at(x: float, y: float) -> tuple[float, float]:
        return left + (x - x_ticks[0]) * sx, bottom - (y - y_ticks[0]) * sy

    body = [_text(8, 18, title, size=13, font_weight="bold")]
    for t, text in zip(y_ticks, y_labels, strict=True):
        _, y = at(x_ticks[0], t)
        body.append(
            f'<line x1="{left:.1f}" y1="{y:.1f}" x2="{right:.1f}" y2="{y:.1f}" stroke="#e3e3e3"/>'
        )
        body.append(_text(left - 5, y + 4, text, "end", 10, fill="#444"))
    for t, text in zip(x_ticks, x_labels, strict=True):
        x, _ = at(t, y_ticks[0])
        body.append(_text(x, bottom + 14, text, "middle", 10, fill="#444"))
    body.append(
        f'<path d="M{left:.1f},{top:.1f}V{bottom:.1f}H{right:.1f}" stroke="#222" fill="none"/>'
    )
    body.append(_text((left + right) / 2, bottom + 30, x_label, "middle"))
    body.append(
        _text(
            12,
            (top + bottom) / 2,
            y_label,
            "middle",
            transform=f"rotate(-90 12 {(top + bottom) / 2:.1f})",
        )
    )
    legend_x = left
    for n, (name, pts) in enumerate(series):
        colour = PALETTE[n % len(PALETTE)]
        if pts:
            path = "M" + "L".join("{:.1f},{:.1f}".format(*at(x, y)) for x, y in pts)
            body.append(f'<path d="{path}" stroke="{colour}" stroke-width="2.2" fill="none"/>')
        body.append(_rect(legend_x, bottom + 42, 14, 4, colour))
        body.append(_text(legend_x + 18, bottom + 48, name))
        legend_x += 30 + len(name) * CHAR_W
    return _svg(width, height, title, body)


def _line(x1: float, y1: float, x2: float, y2: float, stroke: str) -> str:
    return f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}"/>'


def _rect(x: float, y: float, w: float, h: float, fill: str) -> str:
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}"/>'


def _clip(text: str, width: float) -> str:
    most = max(4, int(width / CHAR_W))
    return text if len(text) <= most else text[: most - 1] + "…"
