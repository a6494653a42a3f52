"""Tick labels for every chart: the app's axes (gui/common/chart_axis.py) and the HTML
report's SVG charts (engine/results/svg_charts.py) write a level of ticks the same way, in one
form: pyqtgraph's own labels read "5e-05" beside "0.0001" (Compare's USD per epoch of a small
model) and "800000" beside "1e+06", the report's "5e-05" beside "0.0001" too."""

from __future__ import annotations

import math

# Tick values from here (or a spacing under its inverse) are written in scientific form; the
# thousands are separated on a level whose labels reach SEPARATED, as the tables write them.
SCIENTIFIC_FROM = 1e6
SEPARATED = 1_000


def tick_text(values: list[float], spacing: float) -> list[str]:
    """One level of an axis's tick labels in one form: fixed point with the decimals the
    spacing needs ("0.00005", "0.00010"; "0.25", "0.50"), the thousands separated once a label
    reaches SEPARATED ("1,500"); scientific from SCIENTIFIC_FROM, or for a spacing under its
    inverse, with the mantissa digits the spacing needs ("2.5e-07"). Zero is "0" in either
    form. Without a spacing, each value in %g.

    pyqtgraph asks level by level (the major ticks, then the finer levels it has room to label),
    so a finer level may carry a digit more than the major one ("0.0001", "0.00015"): the same
    form, each label as short as its level allows."""
    if not values:
        return []
    step = abs(spacing)
    if not math.isfinite(step) or step == 0:
        return [f"{v:.6g}" for v in values]
    largest = max(abs(v) for v in values)
    last = _last_digit(step)
    if largest >= SCIENTIFIC_FROM or step < 1 / SCIENTIFIC_FROM:
        digits = max(0, _exponent(largest) - last) if largest else 0
        return ["0" if _zero(v, step) else f"{v:.{digits}e}" for v in values]
    group = "," if largest >= SEPARATED else ""
    return [f"{0.0 if _zero(v, step) else v:{group}.{max(0, -last)}f}" for v in values]


def _exponent(value: float) -> int:
    """The power of ten of `value`'s leading digit (0.00005 -> -5, 20,000 -> 4), robust to the
    float noise of a tick computed as a sum (0.30000000000000004)."""
    return math.floor(math.log10(abs(value)) + 1e-9)


def _last_digit(value: float) -> int:
    """The power of ten of `value`'s last significant digit (0.25 -> -2, 20,000 -> 4), to 15
    digits."""
    power = _exponent(value)
    for _ in range(15):
        quotient = abs(value) / 10.0**power
        if abs(quotient - round(quotient)) <= 1e-6 * max(1.0, quotient):
            break
        power -= 1
    return power


def _zero(value: float, step: float) -> bool:
    """A tick at zero, give or take the float noise of its computation (never "-0.00")."""
    return abs(value) < step * 1e-6
