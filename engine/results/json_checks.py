"""The building blocks of a result's checks (engine/results/schema.py): typed field checks
composed into objects and lists, and the limits every JSON value keeps (nesting depth, size,
finite numbers, integers within 64 bits, text UTF-8 can write). A check raises Bad with the
field's path.

Python reads a JSON integer of any length whole: every check here compares it exactly and
shows it through shown(), never through a float conversion that overflows (10**400 has no
float), so that a check says what is wrong instead of failing itself."""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable
from typing import Any

MAX_DEPTH = 32
MAX_NODES = 500_000
MAX_TEXT = 1_000_000  # characters in one string (a traceback, a model file's path)
# The largest integer a result holds: SQLite's INTEGER (8 bytes signed) is the narrowest place
# a number goes (a batch size, a byte count); past it the store itself fails.
MAX_INT = 2**63 - 1

Check = Callable[[Any, str], None]


class Bad(Exception):
    def __init__(self, path: str, what: str) -> None:
        super().__init__(what)
        self.path, self.what = path, what


def number(
    positive: bool = False, minimum: float | None = None, maximum: float | None = None
) -> Check:
    def check(value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Bad(path, "must be a number")
        if positive and not value > 0:
            raise Bad(path, f"must be more than 0, not {shown(value)}")
        if minimum is not None and not value >= minimum:
            raise Bad(path, f"must be at least {minimum:g}, not {shown(value)}")
        if maximum is not None and not value <= maximum:
            raise Bad(path, f"must be at most {maximum:g}, not {shown(value)}")

    return check


def whole(low: int = 0, high: int | None = None) -> Check:
    def check(value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise Bad(path, "must be a whole number")
        if value < low:
            raise Bad(path, f"must be at least {low}, not {shown(value)}")
        if high is not None and value > high:
            raise Bad(path, f"must be at most {high:,}, not {shown(value)}")

    return check


def text(value: Any, path: str) -> None:
    if not isinstance(value, str):
        raise Bad(path, "must be text")


def date(value: Any, path: str) -> None:
    text(value, path)
    try:
        _dt.date.fromisoformat(value) if len(value) == 10 else _dt.datetime.fromisoformat(value)
    except ValueError:
        raise Bad(path, "must be a date (YYYY-MM-DD) or an ISO date and time") from None


def optional(check: Check) -> Check:
    def optional(value: Any, path: str) -> None:
        if value is not None:
            check(value, path)

    return optional


def items(check: Check) -> Check:
    def items(value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise Bad(path, "must be a list")
        for i, item in enumerate(value):
            check(item, f"{path}[{i}]")

    return items


def pair(first: Check, second: Check) -> Check:
    """[low, high]: a list of two."""

    def pair(value: Any, path: str) -> None:
        if not isinstance(value, list) or len(value) != 2:
            raise Bad(path, "must be a list of two numbers [low, high]")
        first(value[0], f"{path}[0]")
        second(value[1], f"{path}[1]")

    return pair


def obj(spec: dict[str, Check], required: tuple[str, ...] = ()) -> Check:
    """A JSON object whose `spec` fields, where present, pass their checks."""

    def obj(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise Bad(path, "must be an object")
        for key in required:
            if key not in value:
                raise Bad(f"{path}.{key}", "is missing")
        for key, check in spec.items():
            if key in value:
                check(value[key], f"{path}.{key}")

    return obj


def limits(data: Any) -> tuple[str, int] | None:
    """Nesting depth, size, finite numbers, text: over the whole result, read or not. Returns
    the first integer beyond 64 bits with its path, or None: the caller refuses it after the
    fields' own checks, which name a field they bound in their own words."""
    stack: list[tuple[Any, int, str]] = [(data, 0, "result")]
    nodes = 0
    too_big: tuple[str, int] | None = None
    while stack:
        value, depth, path = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise Bad("result", f"has more than {MAX_NODES:,} values; no result is that big")
        if depth > MAX_DEPTH:
            raise Bad(path, f"is nested more than {MAX_DEPTH} deep")
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise Bad(path, "has a key that is not text")
                encodable(key, path)
                stack.append((item, depth + 1, f"{path}.{key}"))
        elif isinstance(value, list):
            stack.extend((item, depth + 1, f"{path}[{i}]") for i, item in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            raise Bad(path, "is not a finite number")
        elif isinstance(value, int) and abs(value) > MAX_INT and too_big is None:
            too_big = (path, value)
        elif isinstance(value, str):
            if len(value) > MAX_TEXT:
                raise Bad(path, f"is longer than {MAX_TEXT:,} characters")
            encodable(value, path)
    return too_big


def no_wide_int(found: tuple[str, int] | None) -> None:
    """Refuse the integer limits() found beyond 64 bits (None: there was none)."""
    if found is not None:
        path, value = found
        raise Bad(path, f"is {shown(value)}, larger than any measurement can have")


def encodable(text: str, path: str) -> None:
    """Text a terminal, a file or the store can take: UTF-8 cannot encode a lone surrogate
    ("\\ud800", which JSON can write), and every later print of it would fail."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = f"\\u{ord(text[exc.start]):04x}"
        raise Bad(
            path, f"holds {bad}, a lone surrogate: not text any program can write out"
        ) from None


def shown(value: float) -> str:
    """A number as a message shows it: 1e+308, -5, 0.25; an integer too long to write out (or
    to convert to a float) by its first digits and its length."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 60:
        digits = int(value.bit_length() * math.log10(2)) + 1  # within one of the true count
        if digits > 4000:  # Python refuses to write out more than 4,300 digits
            return f"an integer of about {digits:,} digits"
        return f"{str(value)[:12]}... ({digits:,} digits)"
    return f"{value:g}"


def short(value: Any) -> str:
    """A value as a message quotes it, cut to 60 characters."""
    if isinstance(value, int) and not isinstance(value, bool):
        return shown(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
