"""The stabilisation rule on scripted learning curves, and the streaming detector against it."""

from __future__ import annotations

import numpy as np
import pytest

from engine.worker.accuracy.stabilisation import StabilisationDetector, stabilisation_index

BAND = 0.005  # half a percentage point
PATIENCE = 5


def _streamed(curve, band=BAND, patience=PATIENCE):
    detector = StabilisationDetector(band, patience)
    for i, accuracy in enumerate(curve):
        found = detector.add(accuracy)
        if found is not None:
            return found, i  # the point, and the evaluation that confirmed it
    return None, None


def test_a_noisy_plateau_settles_at_its_first_evaluation():
    rise = [0.10, 0.35, 0.55, 0.70, 0.80, 0.86]
    noise = [0.002, -0.003, 0.001, 0.004, -0.002, 0.0, 0.003, -0.001]
    curve = rise + [0.90 + n for n in noise]
    point = stabilisation_index(curve, BAND, PATIENCE)
    assert point == len(rise)  # 0.902, and the next five stay within 0.897..0.907
    assert _streamed(curve) == (point, point + PATIENCE)


def test_a_slow_rise_settles_only_once_it_flattens():
    # +0.2 points per evaluation: 1 point over five evaluations, twice the band.
    rising = [0.5 + 0.002 * i for i in range(40)]
    curve = rising + [rising[-1]] * 10
    assert stabilisation_index(rising, BAND, PATIENCE) is None
    point = stabilisation_index(curve, BAND, PATIENCE)
    # 0.574 at 37: the next five are 0.576, 0.578, 0.578, 0.578, 0.578, all within 0.5 points.
    assert point == 37
    assert _streamed(curve)[0] == 37


def test_a_curve_that_keeps_swinging_never_settles():
    curve = [0.80 + (0.01 if i % 2 else -0.01) for i in range(60)]
    assert stabilisation_index(curve, BAND, PATIENCE) is None
    assert _streamed(curve) == (None, None)
    # ... but it does within a band as wide as its swing.
    assert stabilisation_index(curve, 0.02, PATIENCE) == 0


def test_too_few_evaluations_cannot_confirm_a_point():
    flat = [0.9] * PATIENCE
    assert stabilisation_index(flat, BAND, PATIENCE) is None
    assert stabilisation_index([*flat, 0.9], BAND, PATIENCE) == 0


def test_a_change_of_exactly_the_band_stays_within_it():
    # 0.885 - 0.880 is 0.0050000000000000044 in floating point.
    assert stabilisation_index([0.880, 0.885, 0.875, 0.885, 0.880, 0.880], BAND, PATIENCE) == 0


@pytest.mark.parametrize("seed", range(20))
def test_the_detector_and_the_rule_agree_on_random_curves(seed):
    rng = np.random.default_rng(seed)
    steps = rng.normal(0.004, 0.006, 80)
    curve = np.clip(0.1 + np.cumsum(steps), 0, 1).round(3).tolist()
    assert _streamed(curve, 0.005, 4)[0] == stabilisation_index(curve, 0.005, 4)


def test_bad_rule_parameters_are_refused():
    with pytest.raises(ValueError):
        StabilisationDetector(-0.1, 5)
    with pytest.raises(ValueError):
        StabilisationDetector(0.005, 0)
