"""The one number parser of every form (pure) and the NumberField over it (real Qt, offscreen):
what reads, what is refused and how it is said, and the mark a wrong field gets."""

from __future__ import annotations

import pytest

from engine.core.errors import ConfigError
from gui.common.number_field import (
    INVALID_PROPERTY,
    InputError,
    NumberField,
    NumberSpec,
    parse_number,
    parse_numbers,
)

WHOLE = NumberSpec("Batch size", name="batch_size", integer=True, example="64")
ANY = NumberSpec("Max. window (s)", name="max_seconds", unit="s", example="60")
DOLLARS = NumberSpec("Price ($/h)", optional=True, unit="$")
PERCENT = NumberSpec("Margin (%)", unit="%", minimum=0, maximum=90, example="10")
SIZES = NumberSpec("Batch sizes", name="batch_sizes", integer=True, example="64, 128")


@pytest.mark.parametrize(
    ("text", "spec", "expected"),
    [
        ("64", WHOLE, 64),
        ("  64\t", WHOLE, 64),
        ("1,000", WHOLE, 1000),
        ("1 000", WHOLE, 1000),
        ("1\u00a0000\u00a0000", WHOLE, 1_000_000),  # no-break spaces, as locales group
        ("1_000", WHOLE, 1000),
        ("1e3", WHOLE, 1000),
        ("1.5k", WHOLE, 1500),
        ("2K", WHOLE, 2000),
        ("+8", WHOLE, 8),
        ("64.0", WHOLE, 64),
        ("1.5e1", WHOLE, 15),  # a whole number however it is written
        ("12345678901234567", WHOLE, 12345678901234567),  # exact, not through a float
        ("1,234.5", ANY, 1234.5),
        ("2.5e-3", ANY, 0.0025),
        (".5", ANY, 0.5),
        ("-3", ANY, -3.0),
        ("−3", ANY, -3.0),  # the Unicode minus sign
        ("60 s", ANY, 60.0),
        ("60s", ANY, 60.0),
        ("110M", ANY, 110e6),
        ("3.3B", ANY, 3.3e9),
        ("2T", ANY, 2e12),
        ("35%", ANY, 0.35),  # a % divides by 100 ...
        ("10%", PERCENT, 10.0),  # ... except in a field measured in percent
        ("10 %", PERCENT, 10.0),
        ("$1,250.5", DOLLARS, 1250.5),
        ("1.25$", DOLLARS, 1.25),
        ("", DOLLARS, None),  # optional: empty is None
        ("", NumberSpec("Lifetime", default=3.0), 3.0),  # empty is the default
        ("", NumberSpec("Count", integer=True, default=8), 8),
    ],
)
def test_what_reads_as_a_number(text, spec, expected):
    value = parse_number(text, spec)
    assert value == expected
    assert type(value) is type(expected)  # whole-number fields give ints, others floats


@pytest.mark.parametrize(
    ("text", "spec", "message"),
    [
        ("abc", WHOLE, "'abc' is not a whole number; give one such as 64"),
        ("abc", ANY, "'abc' is not a number; give one such as 60"),
        ("2.5", WHOLE, "2.5 is not a whole number; give one such as 64"),
        ("", WHOLE, "give a whole number, such as 64"),
        ("", ANY, "give a number, such as 60"),
        ("", NumberSpec("Runs", missing="give the number of full-size runs"), "give the num"),
        ("1,5", ANY, "'1,5' is not a number; write decimals with a point (1.5) and thousands"),
        ("1,0000", ANY, "'1,0000' is not a number; write decimals with a point"),
        ("1,000 000", ANY, "'1,000 000' is not a number"),  # one kind of separator per number
        ("1e999", ANY, "'1e999' is too large a number"),
        ("$5", WHOLE, "'$5' is not a whole number"),  # a unit the field does not have
        ("5 ms", ANY, "'5 ms' is not a number"),
        ("5m", ANY, "'5m' is not a number"),  # no milli or minutes: M is million
        ("0x10", WHOLE, "'0x10' is not a whole number"),
        ("1/2", ANY, "'1/2' is not a number"),
        ("٣", WHOLE, "'٣' is not a whole number"),  # ASCII digits only
        ("-", ANY, "'-' is not a number"),
        ("95", PERCENT, "95 is out of range (allowed 0 to 90)"),
        ("-1", PERCENT, "-1 is out of range (allowed 0 to 90)"),
        ("0", NumberSpec("Size", integer=True, minimum=1), "0 is out of range (allowed 1 or more)"),
        ("1e99", NumberSpec("Steps", integer=True, maximum=100_000), "1e+99 is out of range"),
        ("91", NumberSpec("Share", maximum=90), "91 is out of range (allowed up to 90)"),
        (
            "0",
            NumberSpec("Target (%)", unit="%", minimum=0, exclusive_minimum=True, maximum=100),
            "0 is out of range (allowed above 0 and up to 100)",
        ),
    ],
)
def test_what_is_refused_says_what_to_fix(text, spec, message):
    with pytest.raises(InputError) as caught:
        parse_number(text, spec)
    exc = caught.value
    assert exc.message.startswith(message)
    assert exc.field == spec.key and exc.label == spec.label
    assert str(exc) == f"{spec.label}: {exc.message}"


@pytest.mark.parametrize(
    "text", ["nan", "NaN", "-nan", "inf", "+inf", "-inf", "Infinity", "infinity", "1e400"]
)
@pytest.mark.parametrize("spec", [WHOLE, ANY, DOLLARS])
def test_non_finite_numbers_are_refused(text, spec):
    with pytest.raises(InputError) as caught:
        parse_number(text, spec)
    assert repr(text) in caught.value.message


def test_the_error_is_the_projects_config_error_and_names_the_field_by_its_label():
    with pytest.raises(ConfigError) as caught:  # every `except ConfigError` catches it
        WHOLE.parse("abc")
    assert isinstance(caught.value, InputError)
    assert caught.value.field == "batch_size"  # the form's key: where to show it
    assert str(caught.value) == "Batch size: 'abc' is not a whole number; give one such as 64"
    assert NumberSpec("Epochs").key == "Epochs"  # no key: the label


def test_a_default_is_the_example_a_message_gives():
    spec = NumberSpec("Use (hours/day)", default=24.0, optional=True)
    with pytest.raises(InputError, match=r"'lots' is not a number; give one such as 24$"):
        spec.parse("lots")


def test_a_list_separates_by_commas_or_spaces_in_the_order_typed():
    assert parse_numbers("64, 128 256;512", SIZES) == (64, 128, 256, 512)
    assert parse_numbers(" 64,,128 ", SIZES) == (64, 128)
    assert parse_numbers("128, 64, 64", SIZES) == (128, 64, 64)  # as typed: the engine judges
    assert parse_numbers("1k 2e3", SIZES) == (1000, 2000)
    # "1,000" in a list is two numbers; thousands separators are not taken at all
    assert parse_numbers("1,000", SIZES) == (1, 0)
    assert all(type(v) is int for v in parse_numbers("64 128", SIZES))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("64, x", "'x' is not a whole number; give whole numbers separated by commas or spaces"),
        ("64, 1_000", "'1_000' is not a whole number: a list takes no thousands separators"),
        ("64 2.5", "2.5 is not a whole number"),
        ("64, nan", "'nan' is not a whole number"),
        ("", "give one or more whole numbers, such as 64, 128"),
        (" , ", "give one or more whole numbers, such as 64, 128"),
    ],
)
def test_a_wrong_list_says_what_to_fix(text, message):
    with pytest.raises(InputError) as caught:
        parse_numbers(text, SIZES)
    assert caught.value.message.startswith(message)
    assert caught.value.field == "batch_sizes"


def test_list_items_keep_the_fields_bounds():
    spec = NumberSpec("Batch sizes", integer=True, minimum=1)
    with pytest.raises(InputError, match=r"^Batch sizes: 0 is out of range \(allowed 1 or more\)"):
        parse_numbers("64 0", spec)
    assert parse_numbers("", NumberSpec("Sizes", optional=True)) == ()


def test_tooltips_say_what_a_field_takes():
    assert SIZES.hint(several=True).endswith("no thousands separators (1000, not 1,000).")
    assert "separated by commas or spaces" in SIZES.hint(several=True)
    hint = NumberSpec("Size", integer=True, minimum=1, maximum=90, default=64).hint()
    assert hint.startswith("A whole number, 1 to 90; empty: 64.")
    assert "1,000" in hint and "1e3" in hint
    assert "may be left empty" in DOLLARS.hint()


# The widget, on real Qt ------------------------------------------------------------------------


@pytest.fixture
def field(qtbot):
    f = NumberField("Batch size", name="batch_size", text="64", integer=True, minimum=1)
    qtbot.addWidget(f)
    f.show()
    return f


def marked(widget) -> bool:
    return bool(widget.property(INVALID_PROPERTY)) and bool(widget.styleSheet())


def test_the_field_reads_its_text(field):
    assert field.objectName() == "batch_size"
    assert field.value() == 64
    field.setText(" 1,024 ")
    assert field.value() == 1024
    assert not marked(field)


def test_a_wrong_field_is_marked_until_edited(field, qtbot):
    field.setText("abc")
    with pytest.raises(InputError) as caught:
        field.value()
    # the starting text is the example
    assert str(caught.value) == "Batch size: 'abc' is not a whole number; give one such as 64"
    assert marked(field) and field.error == caught.value.message
    assert field.toolTip().startswith(caught.value.message)  # the tooltip says it too
    qtbot.keyClicks(field, "1")  # editing clears the mark; the next check judges again
    assert not marked(field) and field.error is None
    assert not field.toolTip().startswith("Batch size")
    field.setText("0")
    with pytest.raises(InputError, match=r"0 is out of range \(allowed 1 or more\)"):
        field.value()
    assert marked(field)
    field.setText("32")
    assert field.value() == 32 and not marked(field)


def test_a_form_marks_a_mistake_found_elsewhere(field):
    field.set_error("0 is out of range (allowed 1 to 1048576)")  # an engine check's words
    assert marked(field)
    field.set_error(None)
    assert not marked(field) and field.styleSheet() == ""
    field.set_error("")  # marked without words (the message is said elsewhere)
    assert marked(field) and field.error == ""


def test_a_tooltip_set_later_keeps_the_fields_hint(field):
    field.setToolTip("Samples per training step")
    assert field.toolTip().splitlines()[0] == "Samples per training step"
    assert field.toolTip().splitlines()[1].startswith("A whole number, 1 or more.")


def test_a_field_built_from_a_spec_and_a_list_field(qtbot):
    single = NumberField(PERCENT, text="10", object_name="sweep_margin")
    sizes = NumberField(SIZES, text="64, 128, 256", several=True)
    for f in (single, sizes):
        qtbot.addWidget(f)
    assert single.objectName() == "sweep_margin" and single.spec is PERCENT
    assert single.value() == 10.0
    assert sizes.objectName() == "batch_sizes"
    assert sizes.values() == (64, 128, 256)
    assert "no thousands separators" in sizes.toolTip()
    sizes.setText("64, x")
    with pytest.raises(InputError):
        sizes.values()
    assert marked(sizes)
    sizes.setText("64")
    assert sizes.values() == (64,) and not marked(sizes)


def test_an_optional_field_and_a_default(qtbot):
    price = NumberField("Price ($/h)", optional=True, unit="$", placeholder="none")
    epochs = NumberField("Epochs", default=1.0, minimum=0)
    for f in (price, epochs):
        qtbot.addWidget(f)
    assert price.value() is None and price.placeholderText() == "none"
    price.setText("$0.90")
    assert price.value() == pytest.approx(0.9)
    assert epochs.value() == 1.0
    epochs.setText("-1")
    with pytest.raises(InputError, match=r"^Epochs: -1 is out of range \(allowed 0 or more\)$"):
        epochs.value()
