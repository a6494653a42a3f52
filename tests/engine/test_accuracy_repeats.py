"""Repeats: mean and spread per batch size, carried into cost; projection to another machine."""

from __future__ import annotations

import statistics

import pytest

from engine.accuracy.cost import project, project_seconds
from engine.accuracy.repeats import study_total, summarise
from engine.accuracy.result import failed_result
from engine.core.events import Failed
from engine.core.stats import spread
from engine.measure.accuracy_config import AccuracyConfig
from engine.results.schema import validate
from engine.results.store import Store
from engine.worker.accuracy.loop import CurvePoint, LoopOutcome
from engine.worker.accuracy.result import build_result
from engine.worker.measure.monitor import MonitorSummary
from engine.workloads import registry
from engine.workloads.data import describe

PRICE = 3.06  # USD per hour
BASE = AccuracyConfig(model="tiny-mlp", usd_per_hour=PRICE, price_as_of="2026-01-01")
MONITOR = MonitorSummary(None, None, None, None, None, None, None, 1.0)


def _result(batch: int, repeat: int, point_at: int | None, seconds_per_eval: float) -> dict:
    """A run whose curve is evaluated every 50 iterations, reaching its point at `point_at`."""
    config = BASE.with_changes(batch_size=batch, repeat=repeat)
    outcome = LoopOutcome()
    for i in range(12):
        outcome.curve.append(
            CurvePoint(
                iteration=50 * i,
                accuracy=min(0.9, 0.1 + 0.1 * i) + 0.001 * repeat,
                loss=1.0,
                train_loss=1.0,
                train_seconds=seconds_per_eval * i,
                eval_seconds=0.1 * (i + 1),
                elapsed_s=(seconds_per_eval + 0.1) * i,
            )
        )
    outcome.interval_step_times_s = [seconds_per_eval / 50] * 11
    outcome.point_index = point_at
    outcome.stop_reason = "target" if point_at is not None else "max_iterations"
    return build_result(
        run_id=f"r{batch}-{repeat}",
        config=config,
        workload=registry.get("tiny-mlp"),
        info=describe("patterns10"),
        environment={"device": "cpu", "threads": 1},
        parameters=1,
        outcome=outcome,
        setup_seconds=2.0,
        monitor=MONITOR,
        device_memory=None,
        warnings=[],
    )


def test_spread_is_the_mean_and_sample_std_of_known_values():
    s = spread([2.0, 4.0, 9.0])
    assert s.mean == pytest.approx(5.0)
    assert s.std == pytest.approx(statistics.stdev([2.0, 4.0, 9.0]))
    assert spread([7.0]).to_dict() == {"mean": 7.0, "std": None, "n": 1}
    assert spread([None, None]).to_dict() == {"mean": None, "std": None, "n": 0}


def test_repeats_give_mean_and_std_of_iterations_time_accuracy_and_cost():
    results = [_result(64, 0, 8, 1.0), _result(64, 1, 9, 1.0), _result(64, 2, 10, 1.0)]
    (row,) = summarise(results)
    assert (row.batch_size, row.repeats, row.reached, row.failed) == (64, 3, 3, 0)
    assert row.stabilization_iteration.mean == pytest.approx(450)
    assert row.stabilization_iteration.std == pytest.approx(50)
    assert row.seconds.mean == pytest.approx(9.0) and row.seconds.std == pytest.approx(1.0)
    assert row.usd.mean == pytest.approx(9.0 / 3600 * PRICE)
    assert row.usd.std == pytest.approx(1.0 / 3600 * PRICE)
    assert row.accuracy.mean == pytest.approx(0.901)
    assert row.epochs.mean == pytest.approx(450 * 64 / 10_000)
    # The whole runs: set-up + all training + all evaluation, past the point.
    assert row.run_seconds.mean == pytest.approx(2.0 + 11.0 + 1.2)
    assert study_total(results)["usd"] == pytest.approx(3 * 14.2 / 3600 * PRICE)


def test_a_repeat_that_never_settles_is_counted_and_not_averaged_in():
    failure = Failed(run_id="r64-3", kind="oom", message="out of memory", batch_size=64)
    results = [
        _result(64, 0, 8, 1.0),
        _result(64, 1, None, 1.0),
        failed_result(failure, BASE.with_changes(batch_size=64), {}),
        _result(128, 0, 6, 2.0),
    ]
    small, large = summarise(results)
    assert (small.repeats, small.reached, small.never_reached, small.failed) == (3, 1, 1, 1)
    assert small.stabilization_iteration.to_dict() == {"mean": 400.0, "std": None, "n": 1}
    assert small.failures == ("out of memory",)
    assert small.run_seconds.n == 2  # the two runs that finished
    assert large.batch_size == 128 and large.seconds.mean == pytest.approx(12.0)
    assert results[1]["accuracy"]["reached"] is False and results[1]["accuracy"]["point"] is None


def test_an_accuracy_result_is_a_valid_stored_result(tmp_path):
    result = _result(64, 0, 8, 1.0)
    assert validate(result) is result
    store = Store(tmp_path / "r.sqlite3")
    store.add(result, group_id="study-1")
    assert store.get(result["run_id"]) == result
    assert store.list(group_id="study-1")["run_id"].tolist() == [result["run_id"]]
    assert summarise([store.get(result["run_id"]), {"status": "ok", "config": {}}])[0].reached == 1


def test_projection_scales_time_and_cost_with_throughput_not_iterations():
    (row,) = summarise([_result(64, 0, 8, 1.0), _result(64, 1, 10, 1.0)])
    there = project(row, throughput_ratio=4.0, usd_per_hour=12.24)
    assert there.stabilization_iteration == row.stabilization_iteration
    assert there.seconds.mean == pytest.approx(row.seconds.mean / 4)
    assert there.seconds.std == pytest.approx(row.seconds.std / 4)
    assert there.usd.mean == pytest.approx(row.seconds.mean / 4 / 3600 * 12.24)
    assert project(row, 2.0, None).usd.mean is None
    assert project_seconds(100.0, 0.5) == pytest.approx(200.0)
    with pytest.raises(ValueError):
        project_seconds(100.0, 0.0)


def test_cost_to_accuracy_follows_every_priced_row_of_a_comparison():
    from engine.accuracy.cost import across_instances
    from engine.pricing import catalog
    from engine.pricing.compare import compare
    from tests.engine.price_results import result as gpu_result

    (row,) = summarise([_result(64, 0, 8, 1.0), _result(64, 1, 10, 1.0)])
    comparison = compare(gpu_result(samples_per_s=1000.0, usd_per_hour=0.5), catalog.load())
    costs = across_instances(row, comparison)
    p3 = next(c for c in costs if c.instance_type == "p3.2xlarge")
    p3_row = next(r for r in comparison.rows if r.instance_type == "p3.2xlarge")
    assert p3.throughput_ratio == pytest.approx(p3_row.throughput_samples_per_s / 1000.0)
    assert p3.seconds.mean == pytest.approx(
        row.seconds.mean * 1000.0 / p3_row.throughput_samples_per_s
    )
    assert p3.usd.mean == pytest.approx(p3.seconds.mean / 3600 * p3_row.usd_per_hour)
    assert p3.usd_low < p3.usd.mean < p3.usd_high  # the estimate's range
    assert p3.status == "estimated" and p3.to_row()["usd_std"] == pytest.approx(
        p3.seconds.std / 3600 * p3_row.usd_per_hour
    )
    local = next(c for c in costs if c.local)
    assert local.throughput_ratio == 1.0 and local.seconds == row.seconds
    assert [c.usd.mean for c in costs] == sorted(c.usd.mean for c in costs)


def test_results_show_says_where_a_run_reached_its_goal_or_that_it_never_did():
    from engine.results import report

    reached = report.summary(_result(64, 0, 8, 1.0))
    assert "reached the target on patterns10 at iteration 400 (90.0%) after 8.0 s" in reached
    never = report.summary(_result(64, 0, None, 1.0))
    assert "never reached its goal on patterns10 (max_iterations at iteration 550" in never


def _batch(batch: int, usd: list[float], reached: int | None = None):
    from engine.accuracy.repeats import BatchSummary

    none = spread([])
    return BatchSummary(
        batch, len(usd), len(usd) if reached is None else reached, 0, *[none] * 4,
        spread(usd), none, none, spread([s * 10 for s in usd]), (), (),
    )  # fmt: skip


def test_the_verdict_says_no_clear_winner_where_the_repeats_overlap():
    from engine.accuracy.repeats import cheapest

    close = cheapest([_batch(32, [1.0, 1.4, 1.2]), _batch(64, [1.1, 1.3, 1.5])], priced=True)
    assert close is not None and close.best.batch_size == 32 and close.rivals == (64,)
    tie = close.tie()
    assert tie is not None and tie.startswith("no clear winner between batch 32 and batch 64")
    assert "more repeats" in tie and "a quieter machine" in tie
    apart = cheapest([_batch(32, [1.0, 1.01, 0.99]), _batch(64, [2.0, 2.01, 1.99])], priced=True)
    assert apart is not None and apart.rivals == () and apart.tie() is None
    one_each = cheapest([_batch(32, [1.0]), _batch(64, [2.0])], priced=True)  # no interval
    assert one_each is not None and one_each.best.batch_size == 32 and one_each.tie() is None
    assert cheapest([_batch(32, [], reached=0)], priced=True) is None
