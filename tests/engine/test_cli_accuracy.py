"""epochcost accuracy and epochcost data: exit codes, messages, the JSON summary, the store."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from engine.cli import main
from engine.process.launcher import _engine_root
from tests.engine.helpers import cli_here

QUICK = [
    "--model",
    "tiny-mlp",
    "--eval-every",
    "25",
    "--threads",
    "1",
]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--target", "90"], "--target: 90: give a fraction above 0 and at most 1 (0.9 for 90%)"),
        (["--target", "0.9", "--batch-sizes", "64,x"], "--batch-sizes: 'x' is not a whole number"),
        (["--target", "0.9", "--batch-sizes", "64,64"], "--batch-sizes: '64,64' names 64 twice"),
        (["--until-stable", "--dataset", "/no/such"], "--dataset: '/no/such' is neither a built"),
        (["--until-stable", "--model", "bert-base"], "--model: bert-base does not take 32x32x3"),
        (["--until-stable", "--repeats", "0"], "--repeats: 0 is out of range (allowed 1 to 100)"),
        (["--until-stable", "--band", "-1"], "--band: -1 is out of range"),
        (["--until-stable", "--eval-every", "0"], "--eval-every: 0 is out of range"),
        (["--until-stable", "--price-per-hour", "-3"], "--price-per-hour: -3 is out of range"),
        (["--until-stable", "--batch-sizes", "20000"], "--batch-sizes: 20000 is larger than"),
        (
            ["--until-stable", "--model-file", "assets/examples/torch_image_classifier.py"],
            "--model-file: a cost-to-accuracy study trains a built-in model on real data",
        ),
    ],
)
def test_bad_input_exits_2_with_a_message_naming_the_option(args, words, capsys):
    assert main(["accuracy", *args]) == 2
    err = capsys.readouterr().err
    assert words in err
    assert "Traceback" not in err


@pytest.mark.parametrize("goal", [[], ["--target", "0.9", "--until-stable"]])
def test_exactly_one_goal_is_required(goal, capsys):
    with pytest.raises(SystemExit) as info:
        main(["accuracy", *goal])
    assert info.value.code == 2
    assert "--target" in capsys.readouterr().err


def test_a_study_prints_mean_and_std_per_batch_size_and_stores_every_run(tmp_path):
    out = tmp_path / "study.json"
    proc = cli_here(
        "accuracy",
        *QUICK,
        "--batch-sizes",
        "32",
        "--target",
        "0.6",
        "--repeats",
        "2",
        "--price-per-hour",
        "2.0",
        "--json",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert json.loads(out.read_text()) == summary
    (row,) = summary["batch_sizes"]
    assert (row["batch_size"], row["repeats"], row["reached"]) == (32, 2, 2)
    for key in ("stabilization_iteration", "seconds", "accuracy", "usd"):
        assert row[key]["mean"] is not None and row[key]["std"] is not None, key
    assert row["accuracy"]["mean"] >= 0.6
    assert row["usd"]["mean"] == pytest.approx(row["seconds"]["mean"] / 3600 * 2.0)
    assert summary["rule"]["mode"] == "target" and summary["devices"] == ["cpu"]
    assert (summary["cheapest_batch"], summary["cheapest_rivals"]) == (32, [])  # the verdict
    assert summary["total"]["usd"] > row["usd"]["mean"]  # set-up and evaluation cost too
    listed = json.loads(cli_here("results", "list", "--json").stdout)
    assert sorted(r["run_id"] for r in listed) == sorted(row["run_ids"])
    assert {r["group_id"] for r in listed} == {summary["study_id"]}
    assert "reached the target at iteration" in proc.stderr


def test_ctrl_c_stops_the_study_keeps_what_finished_and_exits_3():
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "accuracy", *QUICK, "--until-stable"]
        + ["--band", "0", "--max-iterations", "1000000", "--no-store"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=_engine_root(),
    )
    try:
        assert proc.stderr is not None
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if "training until stable" in line:
                break
        proc.send_signal(signal.SIGINT)  # to the CLI only, as a terminal's Ctrl-C reaches it
        stdout, rest = proc.communicate(timeout=60)
        stderr = "".join(seen) + rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 3, stderr
    assert "cancelled" in stderr and "Traceback" not in stderr
    assert "(cancelled)" in stdout


def test_data_commands_list_check_and_explain(tmp_path, capsys):
    assert main(["data", "list", "--json"]) == 0
    (builtin,) = json.loads(capsys.readouterr().out)
    assert builtin["name"] == "patterns10" and builtin["train_samples"] == 10_000
    assert main(["data", "check", "patterns10"]) == 0
    assert "10,000 training and 2,000 held-out 32x32x3 images" in capsys.readouterr().out
    assert main(["data", "check", str(tmp_path)]) == 2
    assert "has no CIFAR-10 binary files" in capsys.readouterr().err
    missing = (tmp_path / "none.tar.gz").as_uri()
    assert main(["data", "download", "cifar10", "--to", str(tmp_path), "--url", missing]) == 2
    assert "--url: cannot download" in capsys.readouterr().err
