"""The measuring loop asks the stop rule only from StopRule.next_check() on (or at the time
limit): it must end every window at the step, and for the reason, that asking at every step
would."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.worker.measure.stop_rule import StopRule
from tests.engine.helpers import TINY


def _ends(config, times_s, gated):  # (steps, reason) where the window ends
    times: list[float] = []
    rule = StopRule(config, times)
    check_at, elapsed = rule.next_check(), 0.0
    for steps, t in enumerate(times_s, start=1):
        times.append(t)
        elapsed += t
        if gated and steps < check_at and elapsed < config.max_seconds:
            continue
        reason = rule.reason(steps, elapsed)
        check_at = rule.next_check()
        if reason:
            return steps, reason
    return None


@pytest.mark.parametrize("seed", range(40))
def test_gated_rule_ends_where_the_rule_asked_every_step_would(seed):
    rng = random.Random(seed)
    config = dataclasses.replace(
        TINY,
        min_steps=rng.choice([1, 5, 10]),
        max_steps=rng.choice([20, 300, 3000]),
        max_seconds=rng.choice([0.05, 1.0, 100.0]),
        stability_threshold=rng.choice([0.0, 0.05, 0.1, 1e-9]),
    )
    spread = rng.choice([0.01, 0.2, 1.0])  # settles soon, late, or never
    times = [1e-3 * (1 + spread * rng.random()) for _ in range(config.max_steps)]
    assert _ends(config, times, gated=True) == _ends(config, times, gated=False)
