"""Field checks shared by every config: each raises ConfigError naming the field and the range."""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any

from engine.core.errors import ConfigError


def choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(name, f"{value!r} is not one of {', '.join(allowed)}")


def shown(value: float) -> str:
    """A number as a message shows it: 64, 0.5, 1e+20; a whole number of 13 digits or more as
    1e+99, not its hundred digits (one word too wide for the panel: its fields went off its
    edge)."""
    if isinstance(value, int) and abs(value) < 10**12:
        return str(value)
    return f"{value:.12g}"


def int_range(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(name, f"{value!r} is not a whole number (allowed {low} to {high})")
    if not low <= value <= high:
        raise ConfigError(name, f"{shown(value)} is out of range (allowed {low} to {high})")


def number_range(name: str, value: Any, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(name, f"{value!r} is not a number (allowed {low:g} to {high:g})")
    if not low <= value <= high:
        raise ConfigError(name, f"{value:g} is out of range (allowed {low:g} to {high:g})")


def cell_number(name: str, text: str, label: str = "") -> float | None:
    """A number written in a data file's cell: None when the cell is empty, else the value
    (nan and inf among them: the caller's bounds decide); ConfigError(name) saying
    "<label>'<text>' is not a number" when it is none."""
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise ConfigError(name, f"{label}{text!r} is not a number") from None


def fraction(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(name, f"{value!r} is not a number; give a fraction (0.9 for 90%)")
    if not 0 < value <= 1:
        raise ConfigError(name, f"{value:g}: give a fraction above 0 and at most 1 (0.9 for 90%)")


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def iso_date(name: str, value: Any) -> None:
    """A calendar date written YYYY-MM-DD, nothing before or after it."""
    try:
        if not (isinstance(value, str) and _ISO_DATE.fullmatch(value)):
            raise ValueError(value)
        _dt.date.fromisoformat(value)
    except ValueError:
        raise ConfigError(name, f"{value!r}: use a date as YYYY-MM-DD") from None
