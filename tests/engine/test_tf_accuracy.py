"""Cost to accuracy with TensorFlow, for real: Keras models trained on the built-in data set in
worker processes on the CPU. This pytest process never imports tensorflow."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.core.events import Eval, Failed, Finished
from engine.results.schema import validate
from engine.worker.accuracy.stabilisation import stabilisation_index
from tests.engine.helpers import besides_noise, run_events
from tests.engine.test_accuracy_run import QUICK
from tests.engine.test_cli import cli

TF_QUICK = QUICK.with_changes(framework="tensorflow")
TINY_MLP_PARAMETERS = 3072 * 128 + 128 + 128 * 10 + 10  # as torch's tiny_mlp


@pytest.mark.timeout(120)
def test_a_keras_model_reaches_its_target_and_streams_the_learning_curve():
    events = run_events(TF_QUICK)
    finished = events[-1]
    assert isinstance(finished, Finished), finished
    result = finished.result
    acc, env = result["accuracy"], result["environment"]
    evals = [e for e in events if isinstance(e, Eval)]
    assert validate(result) is result and result["kind"] == "accuracy"
    assert env["framework"] == "tensorflow" and env["device"] == "cpu" and env["threads"] == 1
    assert result["workload"]["parameters"] == TINY_MLP_PARAMETERS
    assert [e.iteration for e in evals] == list(range(0, 25 * len(evals), 25))
    assert evals[0].accuracy < 0.3  # the untrained model starts the curve
    assert evals[-1].accuracy >= 0.8 > max(e.accuracy for e in evals[:-1])
    assert acc["reached"] and acc["stop_reason"] == "target"
    point = acc["point"]
    assert point["iteration"] == evals[-1].iteration <= 1_000
    assert point["seconds"] == point["train_seconds"] == evals[-1].train_seconds < 60
    assert point["usd"] == pytest.approx(point["seconds"] / 3600 * 2.0)
    # Evaluation is timed apart; the step's graph is traced at set-up, outside the time to
    # accuracy, and the whole run holds set-up, training and evaluation.
    assert acc["run"]["eval_seconds"] > 0
    assert 0 < env["trace_seconds"] < acc["run"]["setup_seconds"]
    assert acc["run"]["seconds"] == pytest.approx(
        acc["run"]["setup_seconds"] + point["train_seconds"] + acc["run"]["eval_seconds"]
    )
    assert result["throughput_samples_per_s"] == pytest.approx(
        point["iteration"] * 64 / point["train_seconds"]
    )
    assert (
        result["memory_source"] == "rss" and besides_noise(result["warnings"]) == []
    )  # a shared machine may be busy


@pytest.mark.timeout(180)
def test_until_stable_settles_where_the_pytorch_twin_does():
    config = TF_QUICK.with_changes(target_accuracy=None)
    results = {}
    for framework in ("tensorflow", "torch"):
        finished = run_events(config.with_changes(framework=framework))[-1]
        assert isinstance(finished, Finished), finished
        results[framework] = finished.result["accuracy"]
    acc = results["tensorflow"]
    assert acc["stop_reason"] == "stable" and acc["reached"]
    curve = [p["accuracy"] for p in acc["curve"]]
    # The point is the rule's, on the trained curve (the untrained model never counts), and
    # the run went on `patience` evaluations past it to confirm it.
    index = 1 + stabilisation_index(curve[1:], config.band, config.patience)
    assert acc["point"]["iteration"] == acc["curve"][index]["iteration"]
    assert acc["run"]["iterations"] == acc["point"]["iteration"] + config.patience * 25
    assert acc["point"]["seconds"] == acc["curve"][index]["train_seconds"]
    # The same model, initialisation scheme, optimizer and data: the same level.
    torch_point = results["torch"]["point"]
    assert torch_point is not None
    assert acc["point"]["accuracy"] == pytest.approx(torch_point["accuracy"], abs=0.02)
    assert acc["point"]["accuracy"] > 0.8


@pytest.mark.timeout(300)
def test_the_cli_prints_mean_and_std_per_batch_size_for_tensorflow():
    proc = cli(
        "accuracy",
        "--framework",
        "tensorflow",
        "--model",
        "tiny-mlp",
        "--dataset",
        "patterns10",
        "--batch-sizes",
        "32,64",
        "--target",
        "0.8",
        "--repeats",
        "2",
        "--eval-every",
        "25",
        "--threads",
        "1",
        "--price-per-hour",
        "2.0",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["framework"] == "tensorflow" and summary["devices"] == ["cpu"]
    assert [row["batch_size"] for row in summary["batch_sizes"]] == [32, 64]
    for row in summary["batch_sizes"]:
        assert (row["repeats"], row["reached"], row["failed"]) == (2, 2, 0)
        for key in ("stabilization_iteration", "seconds", "accuracy", "usd"):
            assert row[key]["mean"] is not None and row[key]["std"] is not None, key
            assert row[key]["n"] == 2
        assert row["accuracy"]["mean"] >= 0.8
        assert row["usd"]["mean"] == pytest.approx(row["seconds"]["mean"] / 3600 * 2.0)
    assert "Traceback" not in proc.stderr


def test_a_memory_cap_holds_tensorflow_and_running_out_is_an_oom_result():
    capped = run_events(TF_QUICK.with_changes(memory_limit_bytes=512 * 2**20))[-1]
    assert isinstance(capped, Finished), capped
    result = capped.result
    assert result["environment"]["tensor_memory_cap_bytes"] == 512 * 2**20
    assert result["environment"]["onednn_opts"] == "0"  # oneDNN crashes where it runs out
    assert result["memory_total_bytes"] == 512 * 2**20 and 0 < result["memory_fill"] < 1
    assert any(w.startswith("memory cap: TensorFlow ran") for w in result["warnings"])
    # The held-out split alone (2,000 normalised images, 23 MiB) does not fit 16 MiB.
    failed = run_events(TF_QUICK.with_changes(memory_limit_bytes=16 * 2**20))[-1]
    assert isinstance(failed, Failed) and failed.kind == "oom", failed
    assert failed.message == (
        "out of memory at batch size 64: OOM when allocating tensor with shape[2000,32,32,3] "
        "and type float on CPU:0 by allocator bfc_cpu_allocator_for_gpu"
    )


def test_a_device_tensorflow_cannot_use_is_refused_with_exit_2(capsys):
    code = main(
        ["accuracy", "--framework", "tensorflow", "--model", "tiny-mlp"]
        + ["--device", "mps", "--target", "0.8", "--repeats", "1", "--no-store"]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "mps is PyTorch's Apple GPU; TensorFlow runs on cpu or cuda" in err
    assert "Traceback" not in err
