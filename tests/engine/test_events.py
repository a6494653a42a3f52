import json
import math

import pytest

from engine.core.events import Failed, Finished, Phase, Step, from_json


def test_events_round_trip_through_one_json_line():
    for event in (
        Phase(run_id="r", phase="warmup", expected_steps=10),
        Step(run_id="r", index=3, step_time_s=0.25, samples=64, loss=2.3),
        Failed(run_id="r", kind="oom", message="out of memory", batch_size=512),
        Finished(run_id="r", result={"a": [1, 2]}),
    ):
        line = event.to_json()
        assert "\n" not in line
        assert from_json(line) == event


def test_non_finite_numbers_become_null():
    line = Step(run_id="r", step_time_s=math.inf, loss=math.nan).to_json()
    data = json.loads(line)
    assert data["step_time_s"] is None and data["loss"] is None


def test_anything_else_is_refused():
    with pytest.raises(ValueError):
        from_json('{"type": "nonsense"}')
    with pytest.raises(ValueError):
        from_json("[1, 2]")
