"""The epochcost command line: exit codes, messages, JSON output, the store round trip."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from tests.engine.helpers import TINY_ARGS, cli, cli_here


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["run", "--batch-size", "0"], "--batch-size: 0 is out of range (allowed 1 to"),
        (["run", "--model", "nope"], "--model: unknown model 'nope'; known: resnet18-cifar"),
        (["run", "--device", "gpu"], "--device: 'gpu': use auto, cpu, cuda, cuda:N or mps"),
        (["run", "--price-per-hour", "-2"], "--price-per-hour: -2 is out of range"),
        (["results", "show", "nothing-like-this"], "no result 'nothing-like-this'"),
    ],
)
def test_bad_input_exits_2_with_a_message_naming_the_option(args, words, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert words in err
    assert "Traceback" not in err


def test_cost_refuses_a_number_out_of_range(capsys):
    with pytest.raises(SystemExit) as info:
        main(["cost", "--epoch-seconds", "-5", "--price-per-hour", "1"])
    assert info.value.code == 2
    assert "argument --epoch-seconds: -5 is out of range" in capsys.readouterr().err


def test_a_value_of_the_wrong_type_exits_2_with_argparse_message(capsys):
    with pytest.raises(SystemExit) as info:
        main(["run", "--batch-size", "ten"])
    assert info.value.code == 2
    assert "--batch-size: invalid int value: 'ten'" in capsys.readouterr().err


def test_cost_arithmetic_as_json(capsys):
    assert (
        main(
            [
                "cost",
                "--epoch-seconds",
                "420",
                "--price-per-hour",
                "0.9",
                "--epochs",
                "10",
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["usd_per_epoch"] == pytest.approx(0.105)
    assert data["usd_total"] == pytest.approx(1.05)


def test_models_and_devices_list_what_is_here(capsys):
    assert main(["models", "--json"]) == 0
    models = json.loads(capsys.readouterr().out)
    names = {m["name"] for m in models}
    assert {
        "resnet18-cifar",
        "resnet50-cifar",
        "resnet50",
        "inception-v3",
        "lstm-char-cnn",
        "bert-base",
        "tiny-mlp",
    } <= names
    assert all("torch" in m["frameworks"] for m in models)
    assert main(["devices", "--json"]) == 0
    devices = json.loads(capsys.readouterr().out)
    assert devices[-1]["id"] == "cpu" and devices[-1]["memory_total_bytes"] > 0


def test_run_json_prints_one_result_stores_it_and_exports_it(tmp_path):
    out = tmp_path / "r.json"
    proc = cli_here("run", *TINY_ARGS, "--price-per-hour", "0.90", "--json", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)  # exactly one JSON object on stdout
    assert result["status"] == "ok" and result["price"]["usd_per_hour"] == 0.90
    assert json.loads(out.read_text()) == result
    listed = json.loads(cli_here("results", "list", "--json").stdout)
    assert [r["run_id"] for r in listed] == [result["run_id"]]
    # export, delete, import: the same result comes back
    exported = tmp_path / "exported.json"
    exporting = cli_here("results", "export", result["run_id"][:17], "--out", str(exported))
    assert exporting.returncode == 0
    assert cli_here("results", "delete", result["run_id"]).returncode == 0
    assert json.loads(cli_here("results", "list", "--json").stdout) == []
    assert cli_here("results", "import", str(exported)).returncode == 0
    shown = json.loads(cli_here("results", "show", result["run_id"], "--json").stdout)
    assert shown == result


def test_run_summary_is_readable(tmp_path):
    proc = cli("run", *TINY_ARGS, "--price-per-hour", "2.5", "--price-source", "my quote")
    assert proc.returncode == 0, proc.stderr
    for words in (
        "throughput",
        "samples/s",
        "epoch",
        "50,000 images",
        "memory",
        "peak of",
        "per epoch (",
        "at $2.50/h (my quote,",
    ):
        assert words in proc.stdout
    assert "measuring" in proc.stderr  # progress goes to stderr


def test_a_run_that_runs_out_of_memory_exits_3_and_is_stored_as_oom():
    proc = cli(
        "run", "--model", "tiny-mlp", "--batch-size", "200000", "--memory-limit-mb", "256", "--json"
    )
    assert proc.returncode == 3
    result = json.loads(proc.stdout)
    assert result["status"] == "oom" and result["error"]["batch_size"] == 200_000
    assert "out of memory at batch size 200000" in proc.stderr
    listed = json.loads(cli("results", "list", "--json").stdout)
    assert listed[0]["status"] == "oom"


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "no such file"),
        ("not json at all", "is not valid JSON (line 1"),
        ('{"schema": "something/2"}', "schema is 'something/2'"),
        ('{"schema": "epochcost.result/1", "run_id": "x"}', "field 'status' is missing"),
    ],
)
def test_import_refuses_what_is_not_a_result(tmp_path, capsys, content, words):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    assert main(["results", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
