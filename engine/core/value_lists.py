"""The one reader of a list of values a user types: batch sizes, loader-worker and process
counts, power limits in watts, precisions. Every command and the app read lists through it, each
list with its own `ListSpec` (field, bounds, what a repeat means), so "16:64" means the same
everywhere.

    parse_values("16:64,100", BATCH_SIZES)      -> (16, 32, 64, 100)
    parse_values("fp32, bf16", PRECISION_VALUES) -> ("fp32", "bf16")

Numbers: items separated by commas; an item is N, LO:HI (doubling from LO, HI included where
reached) or LO:HI:STEP (steps of STEP). Choices: names from the spec's list. Errors are
ConfigError naming the spec's field and saying what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.errors import ConfigError


@dataclass(frozen=True)
class ListSpec:
    """How one kind of list is read and checked."""

    field: str  # the config field the values are for (errors name it)
    what: str  # "batch sizes", "process counts": in messages
    example: str  # "16,32,64 or 16:256"
    low: float = 1
    high: float = 1 << 20
    whole: bool = True  # whole numbers (else decimals: watts)
    choices: tuple[str, ...] = ()  # names instead of numbers
    ranges: bool = True  # LO:HI and LO:HI:STEP allowed
    repeats: str = "merge"  # "merge": a value given twice counts once; "refuse": an error
    sort: bool = True  # ascending (numbers) or the order of `choices`; else as typed
    min_count: int = 1
    max_count: int = 64


def parse_values(text: str | None, spec: ListSpec) -> tuple:
    """The values `text` names under `spec`; ConfigError naming `spec.field` otherwise."""
    items = [p.strip() for p in str(text or "").split(",")]
    items = [p for p in items if p]
    values: list = []
    for item in items:
        for value in _item(item, spec):
            if value in values:
                if spec.repeats == "refuse":
                    raise ConfigError(spec.field, f"{text!r} names {_show(value)} twice")
                continue
            values.append(value)
        if len(values) > spec.max_count:
            raise ConfigError(spec.field, f"more than {spec.max_count} {spec.what}")
    if len(values) < spec.min_count:
        need = "give" if spec.min_count == 1 else f"give at least {spec.min_count}"
        raise ConfigError(spec.field, f"{need} {spec.what}, e.g. {spec.example}")
    if spec.sort:
        values.sort(key=spec.choices.index if spec.choices else None)
    return tuple(values)


def _item(item: str, spec: ListSpec) -> list:
    if spec.choices:
        name = item.lower()
        if name not in spec.choices:
            raise ConfigError(
                spec.field, f"{item!r} is not one of {', '.join(spec.choices)} ({spec.what})"
            )
        return [name]
    bounds = [_number(x, item, spec) for x in item.split(":")]
    if len(bounds) == 1:
        return bounds
    if not spec.ranges or len(bounds) > 3:
        form = "N, LO:HI or LO:HI:STEP" if spec.ranges else f"plain numbers, as {spec.example}"
        raise ConfigError(spec.field, f"{item!r}: use {form}")
    lo, hi = bounds[0], bounds[1]
    if hi < lo:
        raise ConfigError(spec.field, f"{item!r}: the range ends below its start")
    if len(bounds) == 3:
        step = bounds[2]
        if step <= 0:
            raise ConfigError(spec.field, f"{item!r}: the step must be above 0")
        count = int((hi - lo) // step) + 1
        if count > spec.max_count:
            raise ConfigError(spec.field, f"more than {spec.max_count} {spec.what}")
        return [lo + i * step for i in range(count)]
    if lo <= 0:
        raise ConfigError(spec.field, f"{item!r}: a doubling range starts above 0")
    out = []
    value = lo
    while value <= hi:
        out.append(value)
        value *= 2
    return out


def _number(text: str, item: str, spec: ListSpec) -> int | float:
    where = "" if text == item else f"{item!r}: "
    try:
        value: int | float = int(text) if spec.whole else float(text)
    except ValueError:
        kind = "whole number" if spec.whole else "number"
        raise ConfigError(spec.field, f"{where}{text.strip()!r} is not a {kind}") from None
    if value != value or not spec.low <= value <= spec.high:
        raise ConfigError(
            spec.field,
            f"{where}{_show(value)} is out of range (allowed {_show(spec.low)} to "
            f"{_show(spec.high)})",
        )
    return value


def _show(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
