"""The one number field of every form, and the one parser beneath it.

Every form field that holds a number is a NumberField (a QLineEdit): its text is read by
`parse_number` (pure, no Qt), so every form takes the same input and words a mistake the same
way. A field's rules are a NumberSpec; forms whose values are read without widgets (the Plan
tab's, the sweep's) keep their specs beside their pure code and build their fields from them.

What reads as a number, in every field:
- surrounding spaces; a sign (+, - or −) in front
- thousands grouped in threes by ",", " " or "_" (one kind per number): 1,000  1 000  1_000
- decimals with a point: 1.5 (a comma is never a decimal comma: 1,5 is refused, not read as 15)
- scientific notation: 1e3, 2.5E-4
- a multiplier at the end: k (or K) thousand, M million, B billion, T trillion: 110M, 3.3B
- a % at the end divides by 100 (35% is 0.35), except in a field measured in percent (unit "%")
- the field's unit before or after the number: $1.25, 60 s, 10 %
Refused: nan and inf, numbers too large for a float, fractions in a whole-number field, values
outside the field's bounds. An empty field gives its default, None when it is optional, and
otherwise asks for a number.

A list field (several numbers: batch sizes) separates its numbers by commas or spaces, so it
takes no thousands separators ("1,000" there is 1 and 000); its tooltip says so.

A mistake raises InputError: the project's ConfigError for bad input, whose `field` is the
form's key for the field and whose text leads with the field's label:
"Batch size: 'abc' is not a whole number; give one such as 64". A field that holds a mistake is
marked (a red frame and the dynamic property `invalid`, which a style sheet can select) until it
is edited.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from PySide6.QtWidgets import QLineEdit, QWidget

from engine.core.checks import shown
from engine.core.errors import ConfigError
from gui.common.field_error import ERROR_COLOR

INVALID_PROPERTY = "invalid"  # a dynamic property: QLineEdit[invalid="true"] selects it
INVALID_STYLE = f"border: 1px solid {ERROR_COLOR};"  # the forms' error colour

MULTIPLIERS = {"k": 1_000, "K": 1_000, "M": 10**6, "B": 10**9, "T": 10**12}
_MINUS = "-−"  # ASCII hyphen-minus and the Unicode minus sign
_GROUP_SEPARATORS = ",_ \u00a0\u202f\u2009"  # comma, underscore, spaces (also no-break, thin)
_EXPONENT = r"(?:[eE][+-]?[0-9]+)?"
_PLAIN = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)" + _EXPONENT)
_GROUPED = re.compile(
    r"[0-9]{1,3}(?P<sep>[,_ \u00a0\u202f\u2009])[0-9]{3}(?:(?P=sep)[0-9]{3})*(?:\.[0-9]*)?"
    + _EXPONENT
)
_LIST_SEPARATORS = re.compile(r"[,;\s]+")


class InputError(ConfigError):
    """A number typed wrong: `field` is the form's key for it, `message` says what to fix, and
    the text leads with the field's label as the form shows it."""

    def __init__(self, field: str, message: str, label: str = "") -> None:
        super().__init__(field, message)
        self.label = label or field

    def __str__(self) -> str:
        return f"{self.label}: {self.message}"


@dataclass(frozen=True)
class NumberSpec:
    """What one field accepts. `default` is what an empty field means; with no default an empty
    field is None when `optional`, else a mistake (`missing` says what to give)."""

    label: str
    name: str = ""  # the form's key for the field (InputError.field); default: the label
    integer: bool = False
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False  # "above 0" rather than "0 or more"
    default: float | None = None
    optional: bool = False
    unit: str | None = None  # "$", "%", "s", "W": may be typed before or after the number
    example: str = ""  # a value to suggest in messages: "64", or "64, 128, 256" for a list
    missing: str = ""  # what an empty required field says; default: "give a number, ..."

    def __post_init__(self) -> None:
        if not self.example and self.default is not None:  # what an empty field means
            object.__setattr__(self, "example", shown(self.default))

    @property
    def key(self) -> str:
        return self.name or self.label

    def parse(self, text: str) -> int | float | None:
        return parse_number(text, self)

    def error(self, message: str) -> InputError:
        return InputError(self.key, message, self.label)

    def hint(self, several: bool = False) -> str:
        """One line for a tooltip: what the field takes."""
        kind = "Whole numbers" if self.integer else "Numbers"
        bounds = _bounds(self)
        if several:
            example = f", such as {self.example}" if self.example else ""
            within = f" ({bounds})" if bounds else ""
            return (
                f"{kind}{within} separated by commas or spaces{example}; no thousands "
                "separators (1000, not 1,000)."
            )
        text = _kind(self).capitalize() + (f", {bounds}" if bounds else "")
        if self.default is not None:
            text += f"; empty: {shown(self.default)}"
        elif self.optional:
            text += "; may be left empty"
        return text + ". 1,000, 1 000, 1e3 and 1k all read."


def parse_number(text: str, spec: NumberSpec) -> int | float | None:
    """The number `text` holds under `spec`'s rules (the module's docstring lists them): an int
    for a whole-number field, else a float; the default or None for an empty text. Raises
    InputError saying what to fix."""
    stripped = text.strip()
    if not stripped:
        if spec.default is not None:
            return int(spec.default) if spec.integer else float(spec.default)
        if spec.optional:
            return None
        example = f", such as {spec.example}" if spec.example else ""
        raise spec.error(spec.missing or f"give {_kind(spec)}{example}")
    value = _read(stripped, spec, grouping=True)
    _check(value, spec)
    return value


def parse_numbers(text: str, spec: NumberSpec) -> tuple[int | float, ...]:
    """The numbers of a list field, in the order typed, separated by commas, semicolons or
    spaces (so no thousands separators). Each is read and checked as `parse_number` would."""
    items = [p for p in _LIST_SEPARATORS.split(text.strip()) if p]
    if not items:
        if spec.optional:
            return ()
        kind = "whole numbers" if spec.integer else "numbers"
        example = f", such as {spec.example}" if spec.example else ""
        raise spec.error(spec.missing or f"give one or more {kind}{example}")
    values = []
    for item in items:
        value = _read(item, spec, grouping=False)
        _check(value, spec)
        values.append(value)
    return tuple(values)


def _read(text: str, spec: NumberSpec, grouping: bool) -> int | float:
    """One number (text already stripped, not empty)."""
    body, sign = text, 1
    if body[0] in "+" + _MINUS:
        sign, body = (-1 if body[0] in _MINUS else 1), body[1:].strip()
    unit = spec.unit
    if unit and body.lower().startswith(unit.lower()):
        body = body[len(unit) :].strip()
    elif unit and body.lower().endswith(unit.lower()):
        body = body[: -len(unit)].strip()
    if sign == 1 and body and body[0] in "+" + _MINUS:  # $-5
        sign, body = (-1 if body[0] in _MINUS else 1), body[1:].strip()
    scale = Decimal(1)
    if body.endswith("%") and unit != "%":
        scale, body = Decimal("0.01"), body[:-1].strip()
    if body[-1:] in MULTIPLIERS and len(body) > 1:
        scale, body = scale * MULTIPLIERS[body[-1]], body[:-1].strip()
    if _PLAIN.fullmatch(body):
        digits = body
    elif grouping and _GROUPED.fullmatch(body):
        digits = "".join(c for c in body if c not in _GROUP_SEPARATORS)
    else:
        raise spec.error(_not_a_number(text, body, spec, grouping))
    try:
        number = Decimal(digits) * scale * sign
    except InvalidOperation:  # the patterns above let only decimals through
        raise spec.error(_not_a_number(text, body, spec, grouping)) from None
    if not math.isfinite(float(number)):
        raise spec.error(f"{text!r} is too large a number")
    if spec.integer:
        if number != number.to_integral_value():
            raise spec.error(f"{shown(float(number))} is not a whole number{_such_as(spec)}")
        return int(number)
    return float(number) + 0.0  # no -0.0


def _check(value: float, spec: NumberSpec) -> None:
    low, high = spec.minimum, spec.maximum
    too_low = low is not None and (value <= low if spec.exclusive_minimum else value < low)
    if too_low or (high is not None and value > high):
        raise spec.error(f"{shown(value)} is out of range (allowed {_bounds(spec)})")


def _not_a_number(text: str, body: str, spec: NumberSpec, grouping: bool) -> str:
    what = f"{text!r} is not {_kind(spec)}"
    if not grouping:  # an item of a list
        if any(c in body for c in _GROUP_SEPARATORS):
            return f"{what}: a list takes no thousands separators (1000, not 1_000)"
        kind = "whole numbers" if spec.integer else "numbers"
        example = f", such as {spec.example}" if spec.example else ""
        return f"{what}; give {kind} separated by commas or spaces{example}"
    if "," in body:
        return f"{what}; write decimals with a point (1.5) and thousands in threes (1,000)"
    return what + _such_as(spec)


def _kind(spec: NumberSpec) -> str:
    return "a whole number" if spec.integer else "a number"


def _such_as(spec: NumberSpec) -> str:
    return f"; give one such as {spec.example}" if spec.example else ""


def _bounds(spec: NumberSpec) -> str:
    """ "1 to 90", "0 or more", "above 0 and up to 100", "up to 90", or ""."""
    low, high = spec.minimum, spec.maximum
    if low is None:
        return "" if high is None else f"up to {shown(high)}"
    if spec.exclusive_minimum:
        above = f"above {shown(low)}"
        return above if high is None else f"{above} and up to {shown(high)}"
    return f"{shown(low)} or more" if high is None else f"{shown(low)} to {shown(high)}"


# The widget ----------------------------------------------------------------------------------


def mark_invalid(widget: QWidget, invalid: bool) -> None:
    """Frame `widget` as holding a mistake (or not): the forms' red frame, and the dynamic
    property `invalid` for style sheets and tests."""
    if bool(widget.property(INVALID_PROPERTY)) == invalid:
        return
    widget.setProperty(INVALID_PROPERTY, invalid)
    widget.setStyleSheet(INVALID_STYLE if invalid else "")


class NumberField(QLineEdit):
    """A text field that holds a number (or, `several`, a list of them) under a NumberSpec.

    `NumberField("Batch size", integer=True)` states the rules here; `NumberField(spec)` takes
    a spec kept beside a form's pure code. `value()` (`values()` for a list) reads the text, or
    marks the field and raises InputError; a form marks a mistake found elsewhere (an engine
    range check) with `set_error`. Editing the text clears the mark; the form's next check puts
    it back if the mistake remains.
    """

    def __init__(
        self,
        label: str | NumberSpec,
        *,
        name: str = "",
        text: str = "",
        object_name: str = "",
        placeholder: str = "",
        tooltip: str = "",
        several: bool = False,
        parent: QWidget | None = None,
        integer: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
        exclusive_minimum: bool = False,
        default: float | None = None,
        optional: bool = False,
        unit: str | None = None,
        example: str = "",
        missing: str = "",
    ) -> None:
        super().__init__(text, parent)
        if isinstance(label, NumberSpec):
            spec = label
        else:
            spec = NumberSpec(
                label,
                name=name,
                integer=integer,
                minimum=minimum,
                maximum=maximum,
                exclusive_minimum=exclusive_minimum,
                default=default,
                optional=optional,
                unit=unit,
                example=example,
                missing=missing,
            )
        if not spec.example and text.strip():  # the starting text is the natural example
            spec = replace(spec, example=text.strip())
        self.spec = spec
        self.several = several
        self._tooltip = ""
        self._error: str | None = None
        self.setObjectName(object_name or spec.key)
        if placeholder:
            self.setPlaceholderText(placeholder)
        self.setToolTip(tooltip)
        self.textChanged.connect(self._edited)

    @property
    def label(self) -> str:
        return self.spec.label

    def value(self) -> int | float | None:
        """The number typed (the default or None when empty, as the spec says)."""
        assert not self.several, "a list field: use values()"
        try:
            value = parse_number(self.text(), self.spec)
        except InputError as exc:
            self.set_error(exc.message)
            raise
        self.set_error(None)
        return value

    def values(self) -> tuple[int | float, ...]:
        """The numbers of a list field, in the order typed."""
        assert self.several, "a single number: use value()"
        try:
            values = parse_numbers(self.text(), self.spec)
        except InputError as exc:
            self.set_error(exc.message)
            raise
        self.set_error(None)
        return values

    # marking -------------------------------------------------------------------------------

    @property
    def error(self) -> str | None:
        """The mistake the field is marked with ("" when marked without words), or None."""
        return self._error

    def set_error(self, message: str | None) -> None:
        """Mark the field with `message` (its tooltip says it), or clear the mark (None)."""
        self._error = message
        mark_invalid(self, message is not None)
        self._show_tooltip()

    def _edited(self) -> None:
        if self._error is not None:
            self.set_error(None)

    def setToolTip(self, text: str) -> None:  # noqa: N802 (Qt's name)
        """The form's tooltip, followed by what the field takes."""
        self._tooltip = text
        self._show_tooltip()

    def _show_tooltip(self) -> None:
        parts = [self._error or "", self._tooltip, self.spec.hint(self.several)]
        super().setToolTip("\n".join(p for p in parts if p))
