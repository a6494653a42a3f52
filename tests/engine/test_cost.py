import pytest

from engine import cost


def test_cost_per_epoch_is_time_times_hourly_price():
    # 7 minutes on a $0.90/h machine: 420 s / 3600 s * 0.90 = $0.105
    assert cost.usd_per_epoch(420.0, 0.90) == pytest.approx(0.105)
    # p3.2xlarge at $3.06/h for a 90 s epoch: 0.025 h * 3.06 = $0.0765
    assert cost.usd_per_epoch(90.0, 3.06) == pytest.approx(0.0765)


def test_cost_of_a_run_scales_with_epochs():
    assert cost.usd_per_run(600.0, 1.20, epochs=90) == pytest.approx(18.0)


def test_epoch_seconds_from_throughput():
    # CIFAR-10: 50,000 images at 1,250 images/s = 40 s
    assert cost.epoch_seconds(50_000, 1_250.0) == pytest.approx(40.0)
    with pytest.raises(ValueError):
        cost.epoch_seconds(50_000, 0.0)


def test_negative_inputs_are_refused():
    with pytest.raises(ValueError):
        cost.usd_for_seconds(-1.0, 1.0)
    with pytest.raises(ValueError):
        cost.usd_per_run(1.0, 1.0, epochs=-2)
