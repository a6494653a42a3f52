"""Issue 15: the 95% interval of throughput and cost, against hand-worked cases."""

from __future__ import annotations

import math

import pytest

from engine.core.interval import (
    DISAGREE,
    cost_interval,
    interval_text,
    repeat_warning,
    t975,
    throughput_interval,
)


def test_t_quantiles():
    assert t975(1) == 12.706 and t975(2) == 4.303 and t975(30) == 2.042
    assert t975(45) == 2.0 and t975(1000) == 1.96
    with pytest.raises(ValueError):
        t975(0)


def test_three_windows_by_hand():
    """Windows 90, 100, 110 samples/s: mean 100, s = 10, half width = 4.303 * 10 / sqrt(3)
    = 24.84 around the median 100; steps all equal add nothing."""
    ci = throughput_interval(100.0, [90.0, 100.0, 110.0], [0.1] * 30)
    half = 4.303 * 10 / math.sqrt(3)
    assert ci.low == pytest.approx(100 - half) and ci.high == pytest.approx(100 + half)
    assert ci.relative == pytest.approx(half / 100)
    assert ci.method == "Student t over 3 windows"


def test_one_window_uses_the_step_times():
    """Steps 0.09, 0.11 (x 50 each): mean 0.1, s = 0.01005 (n-1), SE = s / 10; relative half
    width 1.96 * 0.001005 / 0.1 = 1.97%."""
    steps = [0.09, 0.11] * 50
    ci = throughput_interval(640.0, [640.0], steps)
    s = math.sqrt(sum((x - 0.1) ** 2 for x in steps) / 99)
    rel = 1.96 * s / 10 / 0.1
    assert ci.relative == pytest.approx(rel)
    assert "one window" in ci.method and "100 steps" in ci.method


def test_the_wider_of_windows_and_steps():
    """Windows that agree closely but noisy steps: the step interval is the wider."""
    ci = throughput_interval(100.0, [100.0, 100.1, 99.9], [0.05, 0.15] * 10)
    assert "step times" in ci.method and "wider than the t over 3 windows" in ci.method
    assert ci.low < 100 < ci.high


def test_the_interval_never_goes_below_zero():
    ci = throughput_interval(10.0, [1.0, 10.0, 100.0], [0.1, 0.2])
    assert ci.low == 0.0 and ci.high > 10.0


def test_cost_interval_turns_the_throughput_interval_over():
    """$2.00 per epoch at 100 samples/s, throughput 80..125: cost 1.60..2.50."""
    ci = throughput_interval(100.0, [100.0], [])
    assert cost_interval(2.0, ci) == [2.0, 2.0]
    from engine.core.interval import Interval

    wide = Interval(100.0, 80.0, 125.0, "hand")
    assert cost_interval(2.0, wide) == pytest.approx([1.6, 2.5])
    assert cost_interval(2.0, Interval(100.0, 0.0, 200.0, "hand")) == [1.0, None]


def test_interval_text():
    assert interval_text([75.1, 78.3], 76.7) == "±2.1%"
    assert interval_text(None, 76.7) == "no interval"
    assert interval_text([1.0, None], 2.0) == "-50% / no upper bound"


def test_an_old_result_without_an_interval_still_loads_and_says_so():
    from engine.results import report
    from engine.results.store import Store
    from tests.engine.test_store import _result

    old = _result("20250101T000000-00000001")  # as stored before intervals were recorded
    assert "throughput_ci95" not in old
    Store().add(old)
    text = report.summary(Store(readonly=True).get(old["run_id"]))
    assert "100.0 samples/s, no interval: measured before epochcost recorded one" in text


# issue 32: intervals that hold between runs ---------------------------------------------------


def test_other_processes_share_of_the_cpu_widens_both_sides():
    """Windows 99, 100, 101 and steady steps: a narrow interval. With other processes taking
    half the CPU, another run may have lost none of it or twice as much: 50 to 200."""
    quiet = throughput_interval(100.0, [99.0, 100.0, 101.0], [0.1] * 30, contention=0.0)
    assert quiet.high - quiet.low < 10 and "widened" not in quiet.method
    busy = throughput_interval(100.0, [99.0, 100.0, 101.0], [0.1] * 30, contention=0.5)
    assert (busy.low, busy.high) == pytest.approx((50.0, 200.0))
    assert "widened for other processes' 50% of the CPU (1 thread)" in busy.method
    both = throughput_interval(100.0, [99.0, 100.0, 101.0], [0.1] * 30, 0.5, threads=2)
    assert (both.low, both.high) == pytest.approx((25.0, 400.0))  # both threads on a core: 1/4


def test_a_slowed_run_reaches_the_others():
    """Issue 32's case: one run at half the others' speed (1200 vs 2500 samples/s) with other
    processes taking 80% of the CPU and two threads: its interval reaches the others' figure."""
    ci = throughput_interval(1204.0, [1199.0, 1232.0, 1204.0], [0.05] * 300, 0.8, threads=2)
    assert ci.low <= 1204.0 <= 2585.0 <= ci.high


def test_contention_past_the_cap_is_capped():
    ci = throughput_interval(100.0, [100.0], [0.1, 0.1], contention=1.0)
    assert ci.low == pytest.approx(10.0) and ci.high == pytest.approx(1000.0)


def test_windows_that_disagree_more_than_their_steps_explain_say_so():
    """Steps all 10 ms give almost no step noise; windows 50, 100, 150 disagree far more."""
    steps = [0.010, 0.0101] * 50
    ci = throughput_interval(100.0, [50.0, 100.0, 150.0], steps)
    assert ci.disagree is not None and ci.disagree > DISAGREE
    warning = repeat_warning(ci)
    assert warning is not None and warning.startswith("may not repeat")
    assert ci.low < 50.0 or ci.high > 150.0  # the interval keeps the windows' spread


def test_windows_that_agree_as_their_steps_predict_say_nothing():
    """Windows drawn from the steps' own noise: no warning."""
    steps = [0.09, 0.11] * 150
    ci = throughput_interval(100.0, [99.0, 100.0, 101.5], steps)
    assert repeat_warning(ci) is None
    assert repeat_warning(throughput_interval(100.0, [100.0, 120.0], steps)) is None  # 2 windows
