"""The max-fit search plan, batch-size lists and the sweep verdicts: pure logic, no worker.

The search is driven here by a rule standing in for "does batch B train" (fits iff B <= a
boundary), so every case has a known answer; tests/engine/test_sweep.py runs it on real workers.
"""

from __future__ import annotations

import math

import pytest

from engine.core.errors import ConfigError
from engine.sweep.batch_sizes import (
    MaxFitSearch,
    parse_batch_sizes,
    powers_of_two,
    recommended_size,
)
from engine.sweep.events import Trial
from engine.sweep.plan import SweepPlan
from engine.sweep.summary import cheapest, knee, points, verdict_points


def search_to_end(search: MaxFitSearch, boundary: int) -> list[int]:
    tried = []
    while (size := search.next_size()) is not None:
        assert size not in search.tried, "a size is never tried twice"
        tried.append(size)
        search.record(size, size <= boundary)
    return tried


@pytest.mark.parametrize("boundary", [2049, 2500, 3000, 3071, 3072, 4000, 4095])
def test_doubling_then_bisection_takes_a_known_number_of_trials(boundary):
    search = MaxFitSearch(start=256, multiple=128)
    tried = search_to_end(search, boundary)
    # 256..2048 fit and 4096 does not (5 trials); then 15 multiples of 128 lie strictly
    # between 2048 and 4096, and bisecting them takes exactly 4 trials.
    assert len(tried) == 5 + 4
    assert tried[:5] == [256, 512, 1024, 2048, 4096]
    assert search.largest_fit == boundary // 128 * 128
    assert search.smallest_failure == search.largest_fit + 128
    assert search.largest_fit in tried and search.smallest_failure in tried


@pytest.mark.parametrize(
    ("start", "multiple", "boundary"), [(16, 8, 1000), (24, 8, 777), (8, 1, 99)]
)
def test_the_answer_is_the_largest_fitting_multiple_and_was_tried(start, multiple, boundary):
    search = MaxFitSearch(start=start, multiple=multiple)
    tried = search_to_end(search, boundary)
    assert search.largest_fit == boundary // multiple * multiple
    assert search.largest_fit in tried
    doublings = math.ceil(math.log2(boundary / start)) + 1
    assert len(tried) <= doublings + math.ceil(math.log2(boundary / multiple)) + 1


def test_a_start_that_does_not_fit_halves_then_bisects():
    search = MaxFitSearch(start=512, multiple=8)
    tried = search_to_end(search, 100)
    assert tried[:4] == [512, 256, 128, 64]
    assert search.largest_fit == 96
    assert search.smallest_failure == 104


def test_nothing_fits_ends_with_no_answer_after_reaching_one():
    search = MaxFitSearch(start=16, multiple=8)
    tried = search_to_end(search, 0)
    assert tried == [16, 8, 4, 2, 1]
    assert search.largest_fit is None


def test_a_limit_stops_the_doubling_and_is_tried_itself():
    search = MaxFitSearch(start=16, multiple=8, limit=100)
    tried = search_to_end(search, 10_000)
    assert tried == [16, 32, 64, 100]
    assert search.largest_fit == 100 and search.reached_limit

    search = MaxFitSearch(start=16, multiple=8, limit=100)
    search_to_end(search, 90)
    assert search.largest_fit == 88 and not search.reached_limit


@pytest.mark.parametrize(
    ("max_fit", "margin", "multiple", "expected"),
    [
        (3456, 0.1, 128, 3072),
        (1000, 0.1, 8, 896),
        (1000, 0.0, 8, 1000),
        (5, 0.1, 8, 4),
        (1, 0.5, 8, 1),
    ],
)
def test_recommended_is_margin_below_rounded_down_to_the_multiple(
    max_fit, margin, multiple, expected
):
    assert recommended_size(max_fit, margin, multiple) == expected


def test_batch_size_lists_ranges_and_steps():
    assert parse_batch_sizes("16,32,64") == (16, 32, 64)
    assert parse_batch_sizes("64, 16,16") == (16, 64)
    assert parse_batch_sizes("16:256") == (16, 32, 64, 128, 256)
    assert parse_batch_sizes("16:64:16,8") == (8, 16, 32, 48, 64)
    assert powers_of_two(16, 100) == [16, 32, 64]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("16,abc", "'abc' is not a whole number"),
        ("0,16", "0 is out of range"),
        ("64:16", "the range ends below its start"),
        ("1:2:3:4", "use N, LO:HI or LO:HI:STEP"),
        ("", "give batch sizes"),
        ("1:1000:1", "more than 64 batch sizes"),
    ],
)
def test_bad_batch_sizes_say_what_to_fix(text, words):
    with pytest.raises(ConfigError) as info:
        parse_batch_sizes(text)
    assert info.value.field == "batch_sizes"
    assert words in info.value.message


@pytest.mark.parametrize(
    ("plan", "field"),
    [
        (SweepPlan(batch_sizes=(16,), max_fit=True), "batch_sizes"),
        (SweepPlan(margin=1.5), "margin"),
        (SweepPlan(multiple=0), "multiple"),
        (SweepPlan(start=64, max_batch=32), "max_batch"),
    ],
)
def test_a_bad_plan_names_its_field(plan, field):
    with pytest.raises(ConfigError) as info:
        plan.validated()
    assert info.value.field == field


def point(batch, throughput, usd=None, role="point", status="ok"):
    result = None
    if status == "ok":
        result = {"throughput_samples_per_s": throughput, "usd_per_epoch": usd}
    return Trial(batch, batch, role, status, f"run-{batch}-{role}", 1.0, "", result)


def test_knee_is_the_smallest_batch_within_5_percent_of_the_best_throughput():
    trials = [point(16, 500.0), point(32, 900.0), point(64, 960.0), point(128, 1000.0)]
    assert knee(trials, 0.05) == (64, 1000.0)
    assert knee(trials, 0.0) == (128, 1000.0)


def test_cheapest_uses_the_price_and_without_one_the_fastest_epoch():
    priced = [point(16, 500.0, 0.02), point(32, 900.0, 0.011), point(64, 880.0, 0.0113)]
    assert cheapest(priced) == (32, "usd_per_epoch")
    unpriced = [point(16, 500.0), point(32, 900.0), point(64, 880.0)]
    assert cheapest(unpriced) == (32, "epoch_seconds")


def test_points_prefer_a_full_run_and_verdicts_stay_within_the_margin():
    trials = [
        point(16, 400.0, role="probe"),
        point(32, 700.0, role="probe"),
        point(64, 0.0, role="probe", status="oom"),
        point(48, 800.0, role="probe"),
        point(40, 780.0, role="confirm"),
        point(16, 450.0, role="point"),
        point(32, 760.0, role="point"),
    ]
    by_batch = {p.batch_size: p for p in points(trials)}
    assert sorted(by_batch) == [16, 32, 40, 48, 64]
    assert by_batch[16].role == "point" and by_batch[64].status == "oom"
    # 48 trained only in a probe and lies above the recommended 40: not a verdict candidate.
    assert [p.batch_size for p in verdict_points(points(trials), ceiling=40)] == [16, 32, 40]
