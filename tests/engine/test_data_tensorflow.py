"""Timed runs that load their data, TensorFlow: tf.data over an image folder takes the
folder's images as the epoch, a make_dataset that sleeps is called input-bound, and a corrupt
image is named although TensorFlow's decoder does not name it."""

from __future__ import annotations

import pytest

from engine.core.events import Failed, Finished
from engine.results.schema import validate
from tests.engine.data_helpers import SLOW_TF, corrupt_one, image_folder
from tests.engine.helpers import TINY, run_events

TF = TINY.with_changes(framework="tensorflow", max_seconds=2.0, repeats=2)


def _result(events) -> dict:
    end = [e for e in events if isinstance(e, Finished | Failed)][-1]
    assert isinstance(end, Finished), end
    return validate(end.result)


@pytest.mark.parametrize("workers", [0, 2])
def test_tensorflow_image_folder_takes_the_folders_images_as_its_epoch(tmp_path, workers):
    folder = image_folder(tmp_path / "set", images=40, classes=4)
    result = _result(
        run_events(TF.with_changes(data=f"imagefolder:{folder}", loader_workers=workers))
    )
    assert result["epoch_samples"] == 40
    assert result["data"]["kind"] == "imagefolder" and result["data"]["loader_workers"] == workers
    assert 0.0 <= result["input_wait_fraction"] <= 1.0


def test_tensorflow_make_dataset_that_sleeps_is_called_input_bound(tmp_path):
    model = tmp_path / "slow_tf.py"
    model.write_text(SLOW_TF)
    config = TF.with_changes(model="slow_tf", model_file=str(model), loader_workers=0)
    result = _result(run_events(config))
    assert result["data"]["kind"] == "model-file" and result["epoch_samples"] == 320
    assert result["input_wait_fraction"] >= 0.5
    assert any(w.startswith("input-bound: ") for w in result["warnings"])


def test_tensorflow_synthetic_run_is_not_called_input_bound():
    result = _result(run_events(TF.with_changes(data="synthetic")))
    assert result["input_wait_fraction"] is None
    assert not any("input-bound" in w for w in result["warnings"])


def test_tensorflow_corrupt_image_is_named(tmp_path):
    folder = image_folder(tmp_path / "set", images=24, classes=2)
    victim = corrupt_one(folder)
    config = TF.with_changes(data=f"imagefolder:{folder}", loader_workers=2)
    failed = [e for e in run_events(config) if isinstance(e, Failed)]
    assert failed and failed[0].kind == "config"
    assert failed[0].message.startswith(f"data: {victim} cannot be decoded"), failed[0].message


# SLOW_TF's items, each sleeping ten minutes instead of 2 ms: no batch ever comes.
SLEEPY_TF = SLOW_TF.replace("time.sleep(0.002)", "time.sleep(600)")
assert SLEEPY_TF != SLOW_TF


def test_tensorflow_make_dataset_whose_items_sleep_is_bounded_by_the_time_limit(tmp_path):
    """Issue 39: the run's time limit holds while tf.data waits (a numpy_function that sleeps
    inside TensorFlow's own threads), and the failure names the data set."""
    import time

    model = tmp_path / "sleepy_tf.py"
    model.write_text(SLEEPY_TF)
    config = TF.with_changes(model="sleepy_tf", model_file=str(model), loader_workers=0)
    t0 = time.monotonic()
    events = run_events(config)
    assert time.monotonic() - t0 < 120
    failed = events[-1]
    assert isinstance(failed, Failed) and failed.kind == "config", failed
    assert f"data: make_dataset in {model} gave no batch in 2 s" in failed.message
