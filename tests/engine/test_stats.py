import pytest

from engine.core.stats import percentile, relative_iqr, summary
from engine.measure.config import RunConfig
from engine.worker.measure.stop_rule import STABILITY_CHECK_SHARE, StopRule, stop_reason


def test_percentiles_interpolate():
    values = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert percentile(values, 50) == 3.0
    assert percentile(values, 10) == pytest.approx(1.4)
    assert summary(values)["p90"] == pytest.approx(4.6)


def test_stop_rule_waits_for_a_stable_spread_or_a_cap():
    config = RunConfig(min_steps=5, max_steps=8, max_seconds=100.0)
    noisy = [1.0, 2.0, 1.0, 2.0, 1.0]
    steady = [1.0, 1.01, 0.99, 1.0, 1.02]
    assert relative_iqr(steady) < 0.10 < relative_iqr(noisy)
    # the loop keeps the times in order as they come (the rule is then O(1) a step)
    assert stop_reason(config, 5, sorted(steady), 5.0) == "stable"
    assert stop_reason(config, 4, sorted(steady[:4]), 4.0) == ""  # too few steps yet
    assert stop_reason(config, 5, sorted(noisy), 5.0) == ""
    assert stop_reason(config, 8, sorted(noisy + [1.0, 2.0, 1.0]), 8.0) == "max_steps"
    assert stop_reason(config, 6, sorted(noisy + [2.0]), 101.0) == "max_seconds"
    fixed = RunConfig(min_steps=5, max_steps=8, stability_threshold=0.0)
    assert stop_reason(fixed, 5, sorted(steady), 5.0) == ""  # 0: a fixed step count


def test_the_window_rule_checks_stability_at_min_steps_then_as_the_window_grows():
    config = RunConfig(min_steps=10, max_steps=100_000, max_seconds=100.0)
    times: list[float] = []
    rule = StopRule(config, times)
    # Noisy for 2,000 steps, then steady: the spread falls under 0.10 at some step, and the
    # rule says so at its next check, at most 1/256 of the steps later.
    settled_at = None
    for step in range(1, 100_001):
        times.append(1.0 if step > 2000 else (0.5, 1.5)[step % 2])
        settled = step >= config.min_steps and relative_iqr(times) < config.stability_threshold
        if settled_at is None and settled:
            settled_at = step
        reason = rule.reason(step, 1.0)
        if reason:
            break
    assert reason == "stable" and settled_at is not None
    assert settled_at <= step <= settled_at + settled_at * STABILITY_CHECK_SHARE + 1
    # Steady from the start: stable at min_steps exactly.
    steady = RunConfig(min_steps=10, max_steps=50, max_seconds=100.0)
    times = [1.0] * 9
    rule = StopRule(steady, times)
    assert [rule.reason(s, 1.0) for s in range(1, 10)] == [""] * 9
    times.append(1.0)
    assert rule.reason(10, 1.0) == "stable"
    # The limits are checked at every step, between stability's checks too.
    rule = StopRule(RunConfig(min_steps=10, max_steps=13, max_seconds=5.0), [0.5, 1.5] * 10)
    assert rule.reason(10, 1.0) == ""  # a check: not stable
    assert rule.reason(11, 5.0) == "max_seconds"
    assert rule.reason(13, 1.0) == "max_steps"


def test_the_spread_of_sorted_times_is_the_spread_of_the_times():
    import random

    from engine.core.stats import relative_iqr_of_sorted

    rng = random.Random(3)
    for n in (1, 2, 3, 10, 101):
        values = [rng.uniform(0.5, 2.0) for _ in range(n)]
        assert relative_iqr_of_sorted(sorted(values)) == pytest.approx(relative_iqr(values))
    # by hand: 1..5 -> median 3, p25 2, p75 4: (4 - 2) / 3
    assert relative_iqr([5.0, 1.0, 4.0, 2.0, 3.0]) == pytest.approx(2 / 3)
