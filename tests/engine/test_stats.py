import pytest

from engine.core.stats import percentile, relative_iqr, summary
from engine.measure.config import RunConfig
from engine.measure.loop import _stop_reason


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
    assert _stop_reason(config, 5, steady, 5.0) == "stable"
    assert _stop_reason(config, 4, steady[:4], 4.0) == ""  # too few steps yet
    assert _stop_reason(config, 5, noisy, 5.0) == ""
    assert _stop_reason(config, 8, noisy + [1.0, 2.0, 1.0], 8.0) == "max_steps"
    assert _stop_reason(config, 6, noisy + [2.0], 101.0) == "max_seconds"
