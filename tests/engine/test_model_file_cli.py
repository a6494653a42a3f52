"""`epochcost models --model-file` and `epochcost run --model-file`, and the pieces they stand on
that never run the file: config validation and the literal declarations."""

from __future__ import annotations

import json
import sys

import pytest

from engine.cli import main
from engine.core.errors import ConfigError
from engine.measure.config import RunConfig
from engine.workloads.model_file_source import declared, default_name, guess_framework
from tests.engine.helpers import TINY_ARGS, cli_here
from tests.engine.model_files import BAD, EXAMPLES, VALID, write

RUN_ARGS = [a for a in TINY_ARGS if a not in ("--model", "tiny-mlp")]


def test_models_checks_a_file_and_says_what_it_holds():
    proc = cli_here("models", "--model-file", str(EXAMPLES / "torch_image_classifier.py"))
    assert proc.returncode == 0, proc.stderr
    for words in (
        "small-cnn-cifar  (torch,",
        "parameters  113,962",
        "input       3x32x32 float32 per sample",
        "target      classes: 10  (loss: default)",
        "epoch       50,000 images",
        "one step on a batch of 2 on the CPU: outputs 2x10",
    ):
        assert words in proc.stdout


def test_models_shows_a_broken_file_with_its_line_and_exits_2(tmp_path):
    path = write(tmp_path, BAD["forward fails on the declared input"][0])
    proc = cli_here("models", "--model-file", str(path))
    assert proc.returncode == 2
    assert "epochcost: error: --model-file: model.py, line 13: the model's forward failed" in (
        proc.stderr
    )
    assert "    return self.fc(x)" in proc.stderr  # the line itself
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    as_json = cli_here("models", "--model-file", str(path), "--json")
    assert as_json.returncode == 2
    verdict = json.loads(as_json.stdout)
    assert verdict["ok"] is False and verdict["error"]["line"] == 13


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["models", "--model-file", "nowhere.py"], "--model-file: nowhere.py does not exist"),
        (["run", "--model-file", "nowhere.py"], "--model-file: nowhere.py does not exist"),
        (["run", "--model-file", sys.executable], "is not a Python file; give a .py file"),
        (
            ["run", "--model", "tiny-mlp", "--model-file", str(EXAMPLES / "torch_char_lm.py")],
            "--model-file: give --model or --model-file, not both",
        ),
        (
            ["run", "--model-file", str(EXAMPLES / "torch_char_lm.py"), "--build-timeout", "0"],
            "--build-timeout: 0: give 1 to 86400 seconds",
        ),
    ],
)
def test_bad_model_file_options_exit_2(args, words, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_a_run_of_a_file_measures_stores_and_records_it(tmp_path):
    path = write(tmp_path, VALID.replace("EPOCH_SAMPLES = 1_000", "NAME = 'my-linear'"))
    proc = cli_here("run", "--model-file", str(path), *RUN_ARGS, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["config"]["model"] == "my-linear"  # read from the file, not run
    assert result["config"]["model_file"] == str(path)
    assert result["workload"]["name"] == "my-linear"
    assert len(result["workload"]["model_file"]["sha256"]) == 64
    assert "EPOCH_SAMPLES is not set" in result["warnings"][0]
    listed = json.loads(cli_here("results", "list", "--json").stdout)
    assert listed[0]["model"] == "my-linear"
    shown = cli_here("results", "show", result["run_id"])
    assert f"model file {path} (sha256 {result['workload']['model_file']['sha256'][:12]}" in (
        shown.stdout
    )


def test_a_run_of_a_broken_file_exits_2_with_the_line_and_stores_nothing(tmp_path):
    path = write(tmp_path, BAD["build raises"][0])
    proc = cli_here("run", "--model-file", str(path), *RUN_ARGS)
    assert proc.returncode == 2
    assert (
        "epochcost: error: --model-file: model.py, line 10: build_model failed: "
        "FileNotFoundError: cpu/weights.pt"
    ) in proc.stderr
    assert "Traceback" not in proc.stderr
    assert json.loads(cli_here("results", "list", "--json").stdout) == []


def test_config_takes_a_model_file_without_the_registry_and_never_runs_it(tmp_path):
    path = write(tmp_path, "raise SystemExit('must not run')\n" + VALID)
    config = RunConfig(model="anything", model_file=str(path)).validated()
    assert config.resolved_epoch_samples == 1_000  # the literal, read from the source
    with pytest.raises(ConfigError) as info:
        RunConfig(model="x", model_file=str(tmp_path / "gone.py")).validated()
    assert info.value.field == "model_file" and "does not exist" in info.value.message
    with pytest.raises(ConfigError, match="is not a file"):
        RunConfig(model="x", model_file=str(tmp_path)).validated()
    # A result from another machine names a file that is not here: accepted on import.
    data = {"model": "x", "model_file": "/elsewhere/model.py"}
    assert RunConfig.from_dict(data, check_files=False).model_file == "/elsewhere/model.py"


def test_declarations_are_read_from_the_source_without_running_it(tmp_path):
    path = write(
        tmp_path,
        "import sys\nimport keras\nsys.exit(1)\nNAME = 'k'\nEPOCH_SAMPLES = 60_000\n",
        "k.py",
    )
    found = declared(path)
    assert (found.name, found.epoch_samples) == ("k", 60_000)
    assert guess_framework(path) == "tensorflow"  # from `import keras`
    assert guess_framework(write(tmp_path, "FRAMEWORK = 'pytorch'\n", "p.py")) == "torch"
    broken = write(tmp_path, "def (:\n", "broken.py")
    assert default_name(broken) == "broken" and guess_framework(broken) == "torch"
