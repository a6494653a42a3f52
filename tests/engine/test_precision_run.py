"""Issue 42, "Stop when precise enough", on real tiny-mlp CPU runs: a loose target stops after
few windows, an unreachable one at its budget, saying how precise it got and about how long it
would have needed; the stored result and `results show` say so, and each window's interval
goes out as a `precision` event.

A run on the busy two-core test machine may not reach even a loose target: other processes'
share of the CPU widens its interval (engine/core/interval.py), and then the result must say
that this is why (engine/core/precision_target.py); these tests accept either, saying which.
"""

from __future__ import annotations

import json

import pytest

from engine.core.events import Finished, Precision
from engine.core.precision_target import achieved_text
from tests.engine.helpers import TINY, cli_here, run_events

RUN = ["run", "--model", "tiny-mlp", "--batch-size", "16", "--warmup-steps", "2", "--threads", "1"]
# Why a target may be missed on a loaded machine, whatever the code: the busy share, or windows
# that disagree (the machine's speed changed during the run).
MACHINE = ("other processes used", "disagree")


def _run(*options: str) -> dict:
    proc = cli_here(*RUN, *options, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _shown(run_id: str) -> str:
    proc = cli_here("results", "show", run_id)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_loose_target_stops_after_few_windows():
    result = _run(
        *("--min-steps", "5", "--max-steps", "20"),
        *("--target-precision", "50", "--max-seconds", "5"),
    )
    goal = result["target_precision"]
    assert goal["target"] == 0.5 and goal["budget_s"] == 5.0
    assert goal["windows"] == result["repeats"] == len(result["throughput_repeats"])
    low, high = result["throughput_ci95"]
    center = result["throughput_samples_per_s"]
    assert goal["achieved"] == pytest.approx(max(center - low, high - center) / center)
    if goal["reached"]:
        assert 3 <= goal["windows"] <= 10 and goal["achieved"] <= 0.5
        assert goal["why_not"] is None and goal["seconds_needed"] is None
        assert f"target ±50% reached ({achieved_text(goal['achieved'])}" in _shown(result["run_id"])
    else:  # the machine, not the rule: the result says which
        assert any(words in goal["why_not"] for words in MACHINE), goal
        assert "target ±50% not reached" in _shown(result["run_id"])


def test_an_unreachable_target_stops_at_the_budget_and_says_what_it_would_need(tmp_path):
    result = _run(
        *("--min-steps", "20", "--max-steps", "40"),
        *("--target-precision", "0.01", "--max-seconds", "2"),
    )
    goal = result["target_precision"]
    assert not goal["reached"] and goal["target"] == 0.0001 and goal["budget_s"] == 2.0
    assert 1.0 <= goal["seconds"] <= 2.5  # measured until the next window would not fit
    assert goal["achieved"] > 0.0001 and goal["windows"] >= 3
    shown = _shown(result["run_id"])
    line = next(x for x in shown.splitlines() if x.startswith("target"))
    # "±4.1%", or on a busy machine "far end 100% off" (never "±100%": issue 38)
    assert f"target ±0.01% not reached: {achieved_text(goal['achieved'])} after" in line
    if goal["seconds_needed"] is not None:  # a quiet machine: the time it would take
        assert goal["seconds_needed"] > goal["seconds"] * 100
        assert "of measuring would reach it (--max-seconds " in line
    else:  # a busy one: no time would
        assert any(words in goal["why_not"] for words in MACHINE), goal
    page = tmp_path / "report.html"
    assert cli_here("report", result["run_id"], "--out", str(page)).returncode == 0
    assert "target ±0.01% not reached" in page.read_text(encoding="utf-8")


def test_each_window_sends_the_interval_so_far():
    events = run_events(TINY.with_changes(target_precision_pct=50.0, max_seconds=3.0))
    result = next(e for e in events if isinstance(e, Finished)).result
    seen = [e for e in events if isinstance(e, Precision)]
    assert [e.windows for e in seen] == list(range(1, result["repeats"] + 1))
    assert all(e.target == 0.5 and e.budget_s == 3.0 for e in seen)
    assert all(e.low <= e.figure <= e.high for e in seen)
    assert seen[-1].reached or result["repeats"] >= 3
    assert not any(e.reached for e in seen[:-1])  # the first precise window is the last
    assert seen[-1].seconds <= 3.0 + 1.0
