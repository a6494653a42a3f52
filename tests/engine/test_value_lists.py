"""The one reader of typed lists (issue 41): every command's lists read alike, each list's own
bounds and rule for a repeat, and a mistake said naming the field, never a traceback."""

from __future__ import annotations

import pytest

from engine.core.errors import ConfigError
from engine.core.value_lists import parse_values
from engine.study.axes import AXES, BATCH_SIZES


@pytest.mark.parametrize(
    ("axis", "text", "values"),
    [
        ("batch", "64,16:32", (16, 32, 64)),
        ("loader-workers", "4,0:2:1", (4, 0, 1, 2)),  # as typed: a run takes the first
        ("processes", "4,1,2,2", (1, 2, 4)),
        ("precision", "BF16, fp32", ("fp32", "bf16")),  # the list's own order
        ("power-limit", "250,150.5", (150.5, 250.0)),
        ("power-limit", "150:300:50", (150.0, 200.0, 250.0, 300.0)),
    ],
)
def test_each_axis_reads_its_list(axis, text, values):
    assert AXES[axis]().parse(text) == values


@pytest.mark.parametrize(
    ("axis", "text", "words"),
    [
        ("loader-workers", "0:4:0", "the step must be above 0"),
        ("loader-workers", "1,1", "names 1 twice"),
        ("loader-workers", "0:4", "a doubling range starts above 0"),
        ("batch", "16:8", "the range ends below its start"),
        ("processes", "2", "give at least 2 process counts"),
        ("precision", "fp64", "is not one of fp32, tf32, fp16, bf16"),
        ("power-limit", "nan", "is out of range"),
    ],
)
def test_a_mistake_names_the_field_and_what_to_fix(axis, text, words):
    spec = AXES[axis]().values
    with pytest.raises(ConfigError) as info:
        parse_values(text, spec)
    assert info.value.field == spec.field and words in info.value.message


def test_a_list_past_its_length_is_refused():
    with pytest.raises(ConfigError, match="more than 64 batch sizes"):
        parse_values("1:1000:1", BATCH_SIZES)
