"""How the Run tab's live plots draw: the interval band's outline and where it is drawn, the
phase marks' text, the result level's wording, the colours of labels' backdrops and of the
per-step rates, and a point's label kept whole inside its plot."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from engine.core.events import Phase
from gui.common.theme import PlotColors, blend

GIB = float(2**30)  # the memory chart's unit

BAND_POINTS = 1_000  # the interval's outline is thinned to this many points a side
# The band is drawn where its high end is at most this many times the projection: a window's
# first steps give an interval up to unbounded (no slower end), which a y axis that holds all
# it draws would have to reach, flattening the window's line to the bottom.
BAND_REACH = 3.0
FADE = 0.45  # the per-step rates' colour: this much of theirs, the rest the background
# Phases worth a line on the time axis (importing and building come before it starts).
MARKED_PHASES = {"measuring": "measuring", "evaluating": "evaluating", "finishing": "done"}


def band_outline(t: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The closed outline of a band: along `high`, then back along `low` (thinned)."""
    if len(t) > BAND_POINTS:
        keep = np.linspace(0, len(t) - 1, BAND_POINTS).round().astype(int)
        t, low, high = t[keep], low[keep], high[keep]
    return np.concatenate([t, t[::-1]]), np.concatenate([high, low[::-1]])


def bounded_band(
    t: np.ndarray, low: np.ndarray, mid: np.ndarray, high: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The band's points (t, low, high) where it is bounded: its high end finite and at most
    BAND_REACH times the projection `mid` (from a window's first few steps on)."""
    with np.errstate(invalid="ignore"):
        keep = np.isfinite(high) & np.isfinite(low) & (high <= BAND_REACH * mid)
    return t[keep], low[keep], high[keep]


def mark_text(event: Phase) -> str:
    """A phase line's label ("": none); of several measured windows, "window 1" then "2", "3"
    (short: windows of a fast model sit close together). A run with a target ("repeat 2, until
    ±3% or 60 s") may measure hundreds: its first is marked, each window's figure shows the
    others."""
    if event.phase not in MARKED_PHASES:
        return ""
    head, until, _ = event.detail.removeprefix("repeat ").partition(", until ")
    repeat, _, total = head.partition(" of ")
    if event.phase == "measuring" and until and repeat.isdigit():
        return "window 1" if repeat == "1" else ""
    if event.phase == "measuring" and repeat.isdigit() and total not in ("", "1"):
        return "window 1" if repeat == "1" else repeat
    return MARKED_PHASES[event.phase]


def named(sides: str) -> str:
    """'95% interval -88% / +758%' on a second line of a result level's name (one line ran past
    a narrow plot's edge); nothing without an interval."""
    return "" if sides == "no interval" else f"\n95% interval {sides}"


def median_of(result: dict[str, Any]) -> str:
    """How the result's figure was found, for its level's label."""
    n = result.get("repeats") or len(result.get("throughput_repeats") or ())
    return f" (median of {n} windows)" if n and n > 1 else " (one window)" if n else ""


def turned(result: dict[str, Any], per_epoch: float) -> list[float | None] | None:
    """The 95% interval of a per-epoch figure (its cost or its time), which goes as 1 /
    throughput: the throughput's interval turned over, [x c / high, x c / low] (engine/core/
    interval.py, cost_interval); None without one, no upper end where it reaches zero."""
    ci, center = result.get("throughput_ci95"), result.get("throughput_samples_per_s")
    if not ci or not center or ci[1] is None or not ci[1] > 0:
        return None
    low, high = ci
    return [per_epoch * center / high, per_epoch * center / low if low else None]


def backdrop(colors: PlotColors) -> Any:
    """A label's background: the plot's, a little see-through."""
    backdrop = pg.mkColor(colors.background)
    backdrop.setAlpha(200)
    return backdrop


def faded(color: str, background: str) -> Any:
    """A colour drawn lighter, for the per-step rates under the window's line: mixed with the
    background, opaque (a translucent pen costs a software-rendered display much more)."""
    return blend(pg.mkColor(color), pg.mkColor(background), FADE)


def slide_inside(label: pg.TextItem, vb: pg.ViewBox) -> None:
    """Keep a point's label whole inside the plot: it starts at the point and slides left, as
    far as it must, when the point is near the right edge (or the plot narrow)."""
    (x0, x1), _ = vb.viewRange()
    view_px, text_px = vb.width(), label.textItem.boundingRect().width()
    if view_px <= 0 or text_px <= 0 or x1 <= x0:
        return
    point_px = (label.pos().x() - x0) / (x1 - x0) * view_px
    left_px = min(max(point_px, 0.0), max(view_px - text_px, 0.0))
    x = min(max((point_px - left_px) / text_px, 0.0), 1.0)
    label.setAnchor((x, label.anchor.y()))  # above or below: the labels' own rule
