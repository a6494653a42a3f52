"""Training to accuracy for real: a worker process trains on the built-in data set on the CPU."""

from __future__ import annotations

import pytest

from engine.core.events import Eval, Failed, Finished, Phase
from engine.measure.accuracy_config import AccuracyConfig
from engine.process.launcher import WorkerProcess
from engine.results.schema import validate
from tests.engine.helpers import run_events

QUICK = AccuracyConfig(
    model="tiny-mlp",
    dataset="patterns10",
    batch_size=64,
    eval_every=25,
    target_accuracy=0.8,
    threads=1,
    max_seconds=120.0,
    usd_per_hour=2.0,
)


@pytest.mark.timeout(120)
def test_a_real_run_reaches_its_target_and_streams_the_learning_curve():
    events = run_events(QUICK)
    finished = events[-1]
    assert isinstance(finished, Finished), events[-1]
    evals = [e for e in events if isinstance(e, Eval)]
    result = finished.result
    acc = result["accuracy"]
    assert validate(result) is result and result["kind"] == "accuracy"
    assert [e.iteration for e in evals] == list(range(0, 25 * len(evals), 25))
    assert all(e.batch_size == 64 and e.repeat == 0 for e in evals)
    assert evals[0].accuracy < 0.3  # the untrained model starts the curve
    assert evals[-1].accuracy >= 0.8 > max(e.accuracy for e in evals[:-1])
    assert acc["reached"] and acc["stop_reason"] == "target"
    point = acc["point"]
    assert point["iteration"] == evals[-1].iteration and point["accuracy"] == evals[-1].accuracy
    assert point["seconds"] == point["train_seconds"] == evals[-1].train_seconds
    assert point["usd"] == pytest.approx(point["seconds"] / 3600 * 2.0)
    assert point["epochs"] == pytest.approx(point["iteration"] * 64 / 10_000)
    times = [e.train_seconds for e in evals]
    assert times == sorted(times) and times[0] == 0.0
    assert [p["accuracy"] for p in acc["curve"]] == [e.accuracy for e in evals]
    # Evaluation is timed apart from training, and the whole run includes both and set-up.
    assert acc["run"]["eval_seconds"] > 0
    assert acc["run"]["seconds"] > point["train_seconds"] + acc["run"]["eval_seconds"]
    assert result["throughput_samples_per_s"] == pytest.approx(
        point["iteration"] * 64 / point["train_seconds"]
    )
    assert result["epoch_samples"] == 10_000 and result["environment"]["threads"] == 1


def test_a_run_capped_before_it_settles_says_so_and_counts_evaluation_when_asked():
    config = QUICK.with_changes(
        target_accuracy=None, max_iterations=60, include_eval_time=True, patience=5
    )
    result = run_events(config)[-1].result
    acc = result["accuracy"]
    assert acc["reached"] is False and acc["point"] is None
    assert acc["stop_reason"] == "max_iterations"
    assert [p["iteration"] for p in acc["curve"]] == [0, 25, 50, 60]
    assert acc["rule"]["mode"] == "stable" and acc["rule"]["include_eval_time"] is True


def test_settling_at_the_first_trained_evaluation_needs_patience_more():
    # With a band of a whole 100 points anything counts as settled: the point is the first
    # evaluation after the untrained model, confirmed `patience` evaluations later.
    config = QUICK.with_changes(target_accuracy=None, band=1.0, patience=2, eval_every=10)
    result = run_events(config)[-1].result
    acc = result["accuracy"]
    assert acc["stop_reason"] == "stable"
    assert acc["point"]["iteration"] == 10
    assert acc["run"]["iterations"] == 30
    assert acc["point"]["seconds"] == acc["curve"][1]["train_seconds"]


def test_cancel_stops_training_between_steps():
    config = QUICK.with_changes(target_accuracy=None, band=0.0, max_iterations=1_000_000)
    worker = WorkerProcess(config).start()
    try:
        events = worker.events()
        for event in events:
            if isinstance(event, Eval) and event.iteration >= 50:
                worker.cancel()
                break
        last = list(events)[-1]
    finally:
        worker.close()
    assert isinstance(last, Failed) and last.kind == "cancelled"


def test_a_config_the_worker_cannot_accept_is_a_config_failure():
    # Not validated here (run_events would): the worker validates what it is given.
    bad = AccuracyConfig(model="tiny-mlp", dataset="/no/such/folder")
    worker = WorkerProcess(bad).start()
    try:
        last = list(worker.events())[-1]
    finally:
        worker.close()
    assert isinstance(last, Failed) and last.kind == "config"
    assert "/no/such/folder" in last.message


@pytest.mark.slow
def test_resnet18_cifar_trains_on_32x32x3_data():
    config = QUICK.with_changes(
        model="resnet18-cifar", batch_size=8, eval_every=2, max_iterations=2, eval_samples=16
    )
    events = run_events(config)
    assert isinstance(events[-1], Finished), events[-1]
    assert any(isinstance(e, Phase) and "resnet18-cifar" in e.detail for e in events)
    assert [p["iteration"] for p in events[-1].result["accuracy"]["curve"]] == [0, 2]


def test_a_study_cancelled_from_another_thread_keeps_the_cancelled_run(tmp_path):
    import threading

    from engine.accuracy.study import StudyPlan, run_study, study_results
    from engine.results.store import Store

    cancel = threading.Event()

    def on_event(event):
        if isinstance(event, Eval) and event.iteration >= 50:
            cancel.set()  # as a GUI's cancel button would, from its own thread

    base = QUICK.with_changes(target_accuracy=None, band=0.0, max_iterations=1_000_000)
    plan = StudyPlan(base, (32, 64), repeats=2).validated()
    assert [(c.batch_size, c.repeat, c.seed) for c in plan.configs()] == [
        (32, 0, 0),
        (64, 0, 0),
        (32, 1, 1),
        (64, 1, 1),
    ]
    store = Store(tmp_path / "r.sqlite3")
    outcome = run_study(plan, store=store, on_event=on_event, cancel=cancel)
    assert outcome.cancelled and outcome.failed
    (only,) = outcome.results
    assert only["status"] == "cancelled" and only["config"]["batch_size"] == 32
    assert study_results(store, plan.study_id) == [only]
    (row,) = outcome.summaries
    assert (row.repeats, row.failed, row.failures) == (1, 1, ("cancelled by the user",))


def test_a_memory_cap_is_the_runs_device_and_going_past_it_is_an_oom_result():
    capped = run_events(QUICK.with_changes(memory_limit_bytes=1 << 30))[-1]
    assert isinstance(capped, Finished), capped
    result = capped.result
    assert result["memory_total_bytes"] == 1 << 30 and 0 < result["memory_fill"] < 1
    assert result["memory_source"] == "memory limit (resident memory of the workload)"
    # The normalised held-out split alone (2,000 images, 23 MiB) is more than 8 MiB.
    failed = run_events(QUICK.with_changes(memory_limit_bytes=8 << 20))[-1]
    assert isinstance(failed, Failed) and failed.kind == "oom", failed
    assert "more than the memory limit of 8.00 MiB" in failed.message


def test_a_data_set_that_is_not_read_in_the_studys_time_limit_fails_naming_it(monkeypatch):
    """Issue 39: the study's limit (max_seconds) holds while its data set is read (a disk
    that hangs); the failure names the data set. In this process: the slow read is a stand-in
    for a disk that hangs, which a test cannot make."""
    import threading
    import time

    from engine.worker.accuracy import runner
    from engine.workloads import data

    monkeypatch.setattr(data, "load", lambda spec: time.sleep(600))
    t0 = time.monotonic()
    events = list(runner.run(QUICK.with_changes(max_seconds=1.0), threading.Event()))
    assert time.monotonic() - t0 < 30
    failed = events[-1]
    assert isinstance(failed, Failed) and failed.kind == "config", failed
    assert failed.message.startswith(
        "data: --dataset patterns10 was not read in 1 s, the run's time limit (max_seconds): "
        "a study cannot wait for its data longer than it may train"
    ), failed.message
