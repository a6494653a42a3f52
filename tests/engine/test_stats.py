import pytest

from engine.core.stats import percentile, relative_iqr, summary
from engine.measure.config import RunConfig
from engine.worker.measure.loop import _stop_reason


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
    assert _stop_reason(config, 5, sorted(steady), 5.0) == "stable"
    assert _stop_reason(config, 4, sorted(steady[:4]), 4.0) == ""  # too few steps yet
    assert _stop_reason(config, 5, sorted(noisy), 5.0) == ""
    assert _stop_reason(config, 8, sorted(noisy + [1.0, 2.0, 1.0]), 8.0) == "max_steps"
    assert _stop_reason(config, 6, sorted(noisy + [2.0]), 101.0) == "max_seconds"
    fixed = RunConfig(min_steps=5, max_steps=8, stability_threshold=0.0)
    assert _stop_reason(fixed, 5, sorted(steady), 5.0) == ""  # 0: a fixed step count


def test_the_spread_of_sorted_times_is_the_spread_of_the_times():
    import random

    from engine.core.stats import relative_iqr_of_sorted

    rng = random.Random(3)
    for n in (1, 2, 3, 10, 101):
        values = [rng.uniform(0.5, 2.0) for _ in range(n)]
        assert relative_iqr_of_sorted(sorted(values)) == pytest.approx(relative_iqr(values))
    # by hand: 1..5 -> median 3, p25 2, p75 4: (4 - 2) / 3
    assert relative_iqr([5.0, 1.0, 4.0, 2.0, 3.0]) == pytest.approx(2 / 3)
