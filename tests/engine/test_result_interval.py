"""Issue 30: a result whose figure lies outside its own 95% interval, or whose interval is not
[low, high] of finite numbers in order, is refused wherever it is read (import, project,
compare, report), naming the file and the field, never a traceback."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.core.errors import ConfigError
from engine.results.files import read_result_file
from tests.engine.price_results import result


def _file(tmp_path, ci, samples_per_s=523.0):
    data = result(samples_per_s=samples_per_s)
    data["throughput_ci95"] = ci
    path = tmp_path / "inconsistent.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("ci", "words"),
    [
        ([3.9, 25.4], "does not hold the result's own throughput_samples_per_s 523"),
        ([600.0, 700.0], "does not hold"),
        ([500.0, 400.0], "not a pair [low, high] in order"),
        ([-5.0, 600.0], "low end -5.0 is not a number of 0 or more"),
        ([500.0, 0.0], "not a pair [low, high] in order"),
    ],
)
def test_an_inconsistent_interval_is_refused_naming_the_file_and_the_field(tmp_path, ci, words):
    path = _file(tmp_path, ci)
    with pytest.raises(ConfigError) as refused:
        read_result_file(path)
    message = str(refused.value)
    assert str(path) in message and "'throughput_ci95'" in message and words in message


@pytest.mark.parametrize(
    "command",
    [
        ["results", "import"],
        ["project", "--gpu", "all"],
        ["compare"],
        ["report", "--out", "REPORT"],
    ],
)
def test_every_reader_refuses_it_with_exit_2(tmp_path, capsys, command):
    path = _file(tmp_path, [3.9, 25.4])
    args = [str(tmp_path / "r.html") if a == "REPORT" else a for a in command]
    args.insert(1 if command[0] != "results" else 2, str(path))
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "throughput_ci95" in err and str(path) in err and "Traceback" not in err


def test_a_consistent_interval_and_one_reaching_zero_pass(tmp_path):
    # The worker writes a low of 0 when the noise is wider than the figure.
    for ci in ([500.0, 550.0], [0.0, 1100.0], [523.0, 523.0]):
        assert read_result_file(_file(tmp_path, ci))["throughput_ci95"] == ci
