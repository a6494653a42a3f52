"""Issue 42, "Stop when precise enough": the stopping rule on synthetic windows
(engine/core/precision_target.py, engine/worker/measure/windows.py), the estimate of the time a
target needs, and the --target-precision option (engine/cli/numbers.py, RunConfig)."""

from __future__ import annotations

import math
import statistics

import pytest

from engine.cli import build_parser
from engine.cli.common import config_from_args
from engine.core.errors import ConfigError
from engine.core.interval import Steps, interval_of, t975, throughput_interval
from engine.core.precision_target import (
    MAX_WINDOWS,
    Tracker,
    achieved_text,
    judge,
    percent,
    target_text,
)
from engine.measure.config import DEFAULT_TARGET_PRECISION_PCT, RunConfig
from engine.worker.measure import windows as windows_module
from engine.worker.measure.windows import Windows
from tests.engine.helpers import TINY

STEADY = [0.010, 0.0101, 0.0099, 0.0100] * 5  # a window's step times: 20 steps, 1% noise


def _tracker(rates, target, steps=STEADY, **kw) -> Tracker:
    tracker = Tracker(target, **kw)
    for rate in rates:
        tracker.add(rate, steps)
    return tracker


def test_steady_windows_reach_the_target_from_the_third_window_on():
    tracker = Tracker(0.03)
    for rate in (1000.0, 1004.0):
        tracker.add(rate, STEADY)
        assert not tracker.verdict(1.0).reached  # two windows cannot be told to disagree
    tracker.add(998.0, STEADY)
    verdict = tracker.verdict(1.5)
    assert verdict.reached and verdict.windows == 3 and verdict.achieved <= 0.03
    assert verdict.why_not is None and verdict.seconds_needed is None


def test_the_tracker_judges_the_interval_the_result_stores():
    """Running sums give the same interval as every step time read at the end."""
    rates, steps = [990.0, 1010.0, 1003.0, 997.0], [0.01, 0.012, 0.009, 0.011, 0.0105] * 7
    tracker = _tracker(rates, 0.03, steps, threads=2)
    every = steps * len(rates)
    whole = throughput_interval(statistics.median(rates), rates, every, 0.1, 2)
    live = tracker.interval(0.1)
    assert (live.low, live.high) == pytest.approx((whole.low, whole.high), rel=1e-9)
    assert live.method == whole.method
    assert tracker.steps.sd == pytest.approx(statistics.stdev(every), rel=1e-9)


def test_windows_that_disagree_are_never_precise_however_loose_the_target():
    """Windows 950..1050 around steps whose noise says ±0.1%: the t over the windows is some
    40 times the steps' interval, within the 100% target, and still not precise."""
    tracker = _tracker([950.0, 1000.0, 1050.0, 1000.0, 960.0], 1.0, [0.01] * 19 + [0.0101])
    verdict = tracker.verdict(2.0)
    assert tracker.interval().disagree > 5 and verdict.achieved < 1.0
    assert not verdict.reached
    assert "disagree" in verdict.why_not and "quiet machine" in verdict.why_not
    assert verdict.seconds_needed is None  # more windows do not make them agree


def test_a_busy_share_that_alone_passes_the_target_is_said_and_gets_no_estimate():
    """Half the CPU to others, on one thread: the interval reaches figure / 0.5, +100%."""
    verdict = _tracker([1000.0, 1001.0, 999.0], 0.5).verdict(3.0, contention=0.5)
    assert not verdict.reached and verdict.achieved == pytest.approx(1.0)
    assert "other processes used 50% of the CPU" in verdict.why_not
    assert "however long" in verdict.why_not and verdict.seconds_needed is None
    # The same windows on a quiet machine are precise.
    assert _tracker([1000.0, 1001.0, 999.0], 0.5).verdict(3.0, contention=0.0).reached


def test_the_time_needed_extrapolates_the_windows_t():
    """Three windows 5% apart (s = 50 around 1000): t(2) 50 / sqrt(3) = 12.4%, wider than 3%.
    The fewest m with t(m - 1) x 5% / sqrt(m) <= 3% is 14, at 2 s a window: 28 s."""
    rates = [950.0, 1000.0, 1050.0]
    steps = Steps(60, 0.01, 0.0011)  # steps noisy enough not to call the windows disagreeing
    interval = interval_of(1000.0, rates, steps)
    assert interval.disagree is not None and interval.disagree <= 5
    verdict = judge(0.03, interval, rates, steps, 6.0)
    spread = statistics.stdev(rates) / 1000
    assert t975(13) * spread / math.sqrt(14) <= 0.03 < t975(12) * spread / math.sqrt(13)
    assert not verdict.reached and verdict.why_not == "the time ran out first"
    assert verdict.seconds_needed == pytest.approx(14 * 2.0)


def test_the_time_needed_extrapolates_the_steps_half_as_one_over_sqrt_steps():
    """One window (a budget that held one): the steps' half 1.96 x 0.5 / sqrt(100) = 9.8%
    needs (9.8 / 1)^2 = 96.04 times the steps for ±1%: 97 windows of 0.5 s."""
    steps = Steps(100, 1.0, 0.5)
    interval = interval_of(64.0, [64.0], steps)
    verdict = judge(0.01, interval, [64.0], steps, 0.5)
    assert not verdict.reached and "held 1 window" in verdict.why_not
    assert verdict.seconds_needed == pytest.approx(97 * 0.5)


def test_more_windows_are_asked_for_than_repeats_says_when_repeats_is_more():
    tracker = _tracker([1000.0, 1001.0, 999.0], 0.5, min_windows=5)
    assert not tracker.verdict(1.0).reached
    tracker.add(1000.0, STEADY)
    tracker.add(1000.5, STEADY)
    assert tracker.verdict(1.0).reached


def test_target_text_says_how_precise_it_got_and_what_would_reach_it():
    reached = {"target": 0.03, "achieved": 0.024, "reached": True, "windows": 7, "seconds": 41.2}
    assert target_text(reached) == "target ±3% reached (±2.4%, 7 windows in 41.2 s)"
    short = {
        "target": 0.03,
        "achieved": 0.041,
        "reached": False,
        "windows": 9,
        "seconds": 58.0,
        "why_not": "the time ran out first",
        "seconds_needed": 130.0,
    }
    assert target_text(short) == (
        "target ±3% not reached: ±4.1% after 9 windows in 58.0 s; the time ran out first; "
        "about 2 min 10 s of measuring would reach it (--max-seconds 156, or Max. time (s) "
        "in the app)"
    )
    assert percent(0.0001) == "0.01%" and percent(2.29) == "229%"
    # An interval wider than its figure is never written "±758%": read as such, the throughput
    # could be negative (issue 38); its far end is named as what it is.
    busy = {**short, "achieved": 7.58, "why_not": None, "seconds_needed": None}
    assert target_text(busy) == "target ±3% not reached: far end 758% off after 9 windows in 58.0 s"
    assert "±" not in achieved_text(1.0) and "±" not in achieved_text(0.996)  # reads 100%
    assert achieved_text(0.994) == "±99%"


# The worker's windows, on a clock the test moves ------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(windows_module.time, "perf_counter", clock)
    return clock


def _run(plan: Windows, rates, clock: Clock, window_s: float = 1.0) -> list:
    """Feed the plan windows of these rates, each `window_s` long, until it stops."""
    events = []
    for rate in rates:
        limits = plan.next()
        if limits is None:
            break
        clock.now += min(window_s, limits.max_seconds)
        events.append(plan.ended(rate, STEADY, "run", clock.now))
    return events


def test_without_a_target_the_repeats_are_measured_each_up_to_max_seconds(clock):
    plan = Windows(TINY.with_changes(repeats=3), lambda: None)
    events = _run(plan, [1000.0] * 10, clock)
    assert events == [None, None, None] and plan.next() is None and plan.count == 3


def test_a_target_stops_the_windows_once_the_interval_is_within_it(clock):
    config = TINY.with_changes(target_precision_pct=3.0, max_seconds=60.0)
    plan = Windows(config, lambda: 0.0)
    events = _run(plan, [1000.0, 1004.0, 998.0, 1001.0, 1000.0], clock)
    assert [e.reached for e in events] == [False, False, True]
    assert plan.next() is None
    last = events[-1]
    assert last.windows == 3 and last.target == 0.03 and last.budget_s == 60.0
    assert last.low < last.figure < last.high and last.achieved <= 0.03


def test_disagreeing_windows_go_on_until_the_budget_and_a_window_starts_only_if_it_fits(clock):
    """Windows that disagree are never precise: they run until the next would not fit in the
    10 s budget (2.5 s each: four of them, 10 s; a fifth would end past it)."""
    config = TINY.with_changes(target_precision_pct=50.0, max_seconds=10.0)
    plan = Windows(config, lambda: 0.0)
    rates = [950.0, 1050.0] * 20
    events = _run(plan, rates, clock, window_s=2.5)
    assert len(events) == 4 and not any(e.reached for e in events)
    assert events[-1].seconds == pytest.approx(10.0) and plan.next() is None


def test_a_later_window_is_limited_to_what_is_left_of_the_budget(clock):
    config = TINY.with_changes(target_precision_pct=0.01, max_seconds=10.0)
    plan = Windows(config, lambda: 0.0)
    assert plan.next() is config  # the first may take the whole budget
    assert plan.detail() == "repeat 1, until ±0.01% or 10 s"
    clock.now += 3.0
    plan.ended(1000.0, STEADY, "run", clock.now)
    assert plan.next().max_seconds == pytest.approx(7.0)


def test_tiny_windows_stop_at_max_windows(clock):
    config = TINY.with_changes(target_precision_pct=0.01, max_seconds=600_000.0)
    plan = Windows(config, lambda: 0.0)
    events = _run(plan, [1000.0, 1010.0] * MAX_WINDOWS, clock, window_s=0.001)
    assert len(events) == MAX_WINDOWS and plan.next() is None


# The option --------------------------------------------------------------------------------


def _args(*options: str):
    return build_parser().parse_args(["run", "--model", "tiny-mlp", *options])


def test_the_command_line_starts_at_the_default_target_and_off_turns_it_off():
    assert DEFAULT_TARGET_PRECISION_PCT <= 3.0
    assert config_from_args(_args()).target_precision_pct == DEFAULT_TARGET_PRECISION_PCT
    assert config_from_args(_args("--target-precision", "5%")).target_precision_pct == 5.0
    assert config_from_args(_args("--target-precision", "off")).target_precision_pct is None
    assert RunConfig().target_precision_pct is None  # a stored config without one ran without


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("0", "0 is out of range: give 0.01 to 100 percent, or off"),
        ("-3", "-3 is out of range: give 0.01 to 100 percent, or off"),
        ("101", "101 is out of range: give 0.01 to 100 percent, or off"),
        ("three", "'three' is not a number: give 0.01 to 100 percent, or off"),
        ("nan", "nan is not a finite number"),
    ],
)
def test_a_bad_target_is_refused_naming_the_option(capsys, text, words):
    with pytest.raises(SystemExit) as exit_:
        _args("--target-precision", text)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --target-precision: {words}" in err


@pytest.mark.parametrize("value", [0, -1.0, 100.5, "3", True])
def test_the_config_refuses_a_bad_target_too(value):
    with pytest.raises(ConfigError) as error:
        TINY.with_changes(target_precision_pct=value)
    assert error.value.field == "target_precision_pct"


@pytest.mark.parametrize("command", ["sweep", "scaling"])
def test_studies_take_the_target_as_a_run_does(command):
    options = {"sweep": ["--batch-sizes", "8,16"], "scaling": ["--nproc", "1,2"]}[command]
    args = build_parser().parse_args(
        [command, "--model", "tiny-mlp", *options, "--target-precision", "4"]
    )
    config = config_from_args(args)
    assert config.target_precision_pct == 4.0
    assert config.with_changes(batch_size=32).target_precision_pct == 4.0  # each trial's
    assert config.measuring_seconds == config.max_seconds  # a budget for all the windows


def test_a_sweeps_fit_probe_measures_one_window_without_a_target():
    from engine.sweep.runner import probe_config

    probe = probe_config(TINY.with_changes(target_precision_pct=3.0))
    assert probe.target_precision_pct is None and probe.repeats == 1


def test_the_measuring_time_is_said_as_the_config_runs_it():
    """The cloud dialog's words for how long a run measures (issue 42: it said 'N windows of up
    to X s' although a target runs windows until precise, X s in all)."""
    from engine.measure.config import RunConfig

    plain = RunConfig(model="tiny-mlp", repeats=3, max_seconds=60.0)
    assert plain.measuring_text == "3 windows of up to 60 s"
    targeted = plain.with_changes(target_precision_pct=3.0)
    assert targeted.measuring_text == "windows until its 95% interval is within ±3%, 60 s in all"
    assert targeted.measuring_seconds == 60.0 and plain.measuring_seconds == 180.0
