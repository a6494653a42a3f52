"""Timed runs that load their data (PyTorch): an image folder's images are the epoch, a data
set that sleeps in each item is called input-bound, synthetic runs are not, and a corrupt image
met in the worker or a bad folder on the command line is named, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.core.events import Failed, Finished, Step
from engine.results.schema import validate
from tests.engine.data_helpers import SLOW_TORCH, corrupt_one, image_folder
from tests.engine.helpers import TINY, TINY_ARGS, run_events

SHORT = TINY.with_changes(max_seconds=2.0, repeats=2)


def _result(events) -> dict:
    ends = [e for e in events if isinstance(e, Finished | Failed)]
    assert isinstance(ends[-1], Finished), ends[-1]
    return validate(ends[-1].result)


@pytest.mark.parametrize("workers", [0, 2])
def test_an_image_folder_run_takes_the_folders_images_as_its_epoch(tmp_path, workers):
    folder = image_folder(tmp_path / "set", images=48, classes=3)
    config = SHORT.with_changes(data=f"imagefolder:{folder}", loader_workers=workers)
    events = run_events(config)
    result = _result(events)
    assert result["epoch_samples"] == 48
    assert result["data"]["kind"] == "imagefolder"
    assert result["data"]["loader_workers"] == workers
    assert result["data"]["persistent_workers"] is (workers > 0)
    assert 0.0 <= result["input_wait_fraction"] <= 1.0
    assert len(result["input_wait_repeats"]) == 2
    measured = [e for e in events if isinstance(e, Step) and e.measured]
    assert all(e.input_wait_s is not None for e in measured)  # for the app's input-wait plot


def test_a_data_set_that_sleeps_in_each_item_is_called_input_bound(tmp_path):
    model = tmp_path / "slow.py"
    model.write_text(SLOW_TORCH)
    config = SHORT.with_changes(model="slow", model_file=str(model), loader_workers=0)
    result = _result(run_events(config))
    assert result["data"]["kind"] == "model-file"
    assert result["epoch_samples"] == 640  # the data set's length
    assert result["input_wait_fraction"] >= 0.5
    assert any(w.startswith("input-bound: ") for w in result["warnings"])
    assert not any("EPOCH_SAMPLES is not set" in w for w in result["warnings"])


def test_a_synthetic_run_waits_for_nothing_and_is_not_called_input_bound():
    result = _result(run_events(SHORT.with_changes(data="synthetic")))
    assert result["data"] == {"kind": "synthetic"}
    assert result["input_wait_fraction"] is None
    assert not any("input-bound" in w for w in result["warnings"])


@pytest.mark.parametrize("workers", [0, 1])
def test_a_corrupt_image_met_in_the_worker_is_named(tmp_path, workers):
    folder = image_folder(tmp_path / "set", images=24, classes=2)
    victim = corrupt_one(folder)
    config = SHORT.with_changes(data=f"imagefolder:{folder}", loader_workers=workers)
    failed = [e for e in run_events(config) if isinstance(e, Failed)]
    assert failed and failed[0].kind == "config"
    assert failed[0].message.startswith(f"data: {victim} cannot be decoded")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_a_bad_folder_on_the_command_line_is_one_line_naming_it(tmp_path):
    (tmp_path / "only-files").mkdir()
    (tmp_path / "only-files" / "a.txt").write_text("not an image")
    for folder, words in ((tmp_path / "nope", "does not exist"), (tmp_path, "no images")):
        done = _cli("run", *TINY_ARGS, "--data", f"imagefolder:{folder}", "--no-store")
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("epochcost: error: --data: ")
        assert words in done.stderr and "Traceback" not in done.stderr


def test_make_imagefolder_then_run_on_it(tmp_path):
    folder = tmp_path / "made"
    made = _cli("data", "make-imagefolder", str(folder), "--images", "32", "--classes", "4")
    assert made.returncode == 0, made.stderr
    assert f"--data imagefolder:{folder}" in made.stdout
    args = [*TINY_ARGS, "--max-seconds", "2", "--repeats", "1", "--loader-workers", "0"]
    done = _cli("run", *args, "--data", f"imagefolder:{folder}", "--json", "--no-store")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["epoch_samples"] == 32 and result["config"]["data"] == f"imagefolder:{folder}"
