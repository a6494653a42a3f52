import json
import math

import pytest

from engine.core.events import Failed, Finished, Phase, Step, from_json


def test_events_round_trip_through_one_json_line():
    for event in (
        Phase(run_id="r", phase="warmup", expected_steps=10),
        Step(run_id="r", index=3, step_times_s=[0.25, 0.5], samples=64, loss=2.3),
        Step(
            run_id="r",
            step_times_s=[0.1],
            samples=8,
            repeat=2,
            elapsed_s=4.5,
            window_samples=80,
            window_seconds=1.25,
            window_done=True,
        ),
        Failed(run_id="r", kind="oom", message="out of memory", batch_size=512),
        Finished(run_id="r", result={"a": [1, 2]}),
    ):
        line = event.to_json()
        assert "\n" not in line
        assert from_json(line) == event


def test_non_finite_numbers_become_null():
    line = Step(run_id="r", step_times_s=[0.1, math.inf], loss=math.nan).to_json()
    data = json.loads(line)
    assert data["step_times_s"] == [0.1, None] and data["loss"] is None


def test_a_step_event_carries_its_steps_and_its_window_so_far():
    event = Step(run_id="r", step_times_s=[0.1, 0.2, 0.1], samples=16, window_samples=160)
    assert event.steps == 3
    assert event.window_throughput is None  # no wall time yet
    assert Step(run_id="r", window_samples=160, window_seconds=2.0).window_throughput == 80.0
    warmup = Step(run_id="r", measured=False, window_samples=160, window_seconds=2.0)
    assert warmup.window_throughput is None


def test_anything_else_is_refused():
    with pytest.raises(ValueError):
        from_json('{"type": "nonsense"}')
    with pytest.raises(ValueError):
        from_json("[1, 2]")
