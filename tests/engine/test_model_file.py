"""Your own model from a Python file, through the real worker: checking a file, and running it.

Every bad file must come back as a clear message with the line in the user's file, and nothing
else may break: the test process never imports the file.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.core.events import Failed, Finished, Phase
from engine.process import forked
from engine.process.launcher import WorkerProcess, WorkerSpec, _engine_root
from engine.process.model_check import ModelFileCheck, check_model_file
from engine.results.schema import validate
from engine.results.store import Store
from tests.engine.helpers import TINY, besides_noise
from tests.engine.model_files import (
    BAD,
    EXAMPLES,
    HANGS,
    KERAS_BAD,
    KILLS_ITSELF,
    VALID,
    write,
)


def _run(path: Path, spec: WorkerSpec | None = None, **changes) -> list:
    config = TINY.with_changes(model=path.stem, model_file=str(path), **changes)
    worker = WorkerProcess(config, spec).start()
    try:
        return list(worker.events())
    finally:
        worker.close()


# ---- checking a file (what `epochcost models --model-file` and the GUI do) -----------------


def test_a_valid_file_is_described_by_the_worker(tmp_path):
    path = write(tmp_path, VALID, "tiny_linear.py")
    check = check_model_file(str(path))
    assert check.ok, check.message
    info = check.info
    assert info["name"] == "tiny_linear"  # no NAME: the file's name
    assert info["framework"] == "torch"
    assert info["parameters"] == 8 * 3 + 3
    assert info["input_shape"] == [8] and info["input_dtype"] == "float32"
    assert info["target"] == {"kind": "classes", "size": 3}
    assert info["epoch_samples"] == 1_000 and info["epoch_samples_declared"]
    assert info["output_shape"] == [2, 3] and info["loss"] > 0
    assert info["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert "tiny_linear" not in sys.modules and not any("epochcost_model" in m for m in sys.modules)


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_bad_file_gets_a_message_and_its_line(tmp_path, case):
    text, words, line = BAD[case]
    path = write(tmp_path, text)
    check = check_model_file(str(path), "torch")
    assert not check.ok
    assert check.kind == "config", check.message
    assert words in check.message
    assert check.line == line
    if line:
        assert check.message.startswith(f"model.py, line {line}: ")
        assert check.code == text.splitlines()[line - 1].strip()


@pytest.mark.parametrize("case", sorted(KERAS_BAD))
def test_a_bad_keras_file_is_checked_in_a_tensorflow_worker(tmp_path, case):
    text, words, line = KERAS_BAD[case]
    check = check_model_file(str(write(tmp_path, text)))
    assert check.kind == "config", check.message + check.traceback
    assert words in check.message and check.line == line


def test_a_torch_file_is_not_loaded_into_a_tensorflow_worker(tmp_path):
    check = check_model_file(str(write(tmp_path, VALID)), "tensorflow")
    assert check.kind == "config" and check.line == 1
    assert "the file imports torch, but the run is tensorflow" in check.message


def test_the_traceback_starts_in_the_users_file(tmp_path):
    text, _, _ = BAD["forward fails on the declared input"]
    check = check_model_file(str(write(tmp_path, text)))
    frames = [ln for ln in check.traceback.splitlines() if ln.strip().startswith("File ")]
    assert str(tmp_path / "model.py") in frames[0]
    assert not any("/engine/" in f for f in frames)
    assert "RuntimeError: mat1 and mat2" in check.traceback


@pytest.mark.parametrize(
    ("name", "words"),
    [("missing.py", "does not exist"), ("model.txt", "is not a Python file; give a .py file")],
)
def test_a_missing_or_non_python_file_is_refused_by_the_worker_too(tmp_path, name, words):
    path = tmp_path / name
    if name.endswith(".txt"):
        path.write_text(VALID)
    assert words in check_model_file(str(path)).message  # refused before any worker starts
    proc = subprocess.run(
        [sys.executable, "-m", "engine.worker", "check-model", "--model-file", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=_engine_root(),
    )
    verdict = json.loads(proc.stdout.splitlines()[-1])
    assert verdict["type"] == "failed" and verdict["kind"] == "config"
    assert words in verdict["message"]


def test_a_file_that_is_not_text_is_a_syntax_error(tmp_path):
    path = tmp_path / "model.py"
    path.write_bytes(bytes(range(256)))
    check = check_model_file(str(path))
    assert check.kind == "config" and "syntax error" in check.message


def test_a_file_that_hangs_while_loading_is_stopped_at_the_time_limit(tmp_path):
    check = check_model_file(str(write(tmp_path, HANGS)), timeout_s=3)
    assert check.kind == "config"
    assert "did not finish loading and building within 3 s" in check.message


def test_a_check_can_be_cancelled_from_another_thread(tmp_path):
    check = ModelFileCheck(str(write(tmp_path, HANGS)), timeout_s=60)
    threading.Timer(1.0, check.cancel).start()
    t0 = time.monotonic()
    verdict = check.run()
    assert verdict.kind == "cancelled"
    assert time.monotonic() - t0 < 30  # not the 60 s limit


def test_a_file_that_kills_its_interpreter_is_reported_with_the_stderr_tail(tmp_path):
    check = check_model_file(str(write(tmp_path, KILLS_ITSELF)))
    assert check.kind == "crashed"
    assert "exit code 7" in check.message and "os._exit" in check.message
    assert "leaving now" in check.traceback


def test_a_file_whose_threads_never_end_does_not_keep_the_worker_alive(tmp_path):
    text = "import threading, time\nthreading.Thread(target=time.sleep, args=(3600,)).start()\n"
    check = check_model_file(str(write(tmp_path, text + VALID)), timeout_s=60)
    assert check.ok, check.message


def test_a_pytorch_files_check_is_forked_from_the_warm_process_and_says_the_same(
    tmp_path, monkeypatch
):
    """Where a warm PyTorch process runs (the app's; these tests' own), a PyTorch file's check
    is forked from it: the verdict a fresh worker gives, without importing torch again. A Keras
    file's check is forked from TensorFlow's warm process (never two frameworks in one
    process); input() gets EOF."""
    assert forked.wait_ready(timeout_s=60)
    path = write(tmp_path, VALID, "tiny_linear.py")
    warm = ModelFileCheck(str(path))
    verdict = warm.run()
    assert isinstance(warm._proc, forked.ForkedWorker) and verdict.ok, verdict.message
    monkeypatch.setenv(forked.OFF_ENV, "0")
    fresh = ModelFileCheck(str(path))
    same = fresh.run()
    assert isinstance(fresh._proc, subprocess.Popen) and same.ok, same.message
    keys = ("name", "framework", "parameters", "input_shape", "output_shape", "target", "sha256")
    assert {k: verdict.info[k] for k in keys} == {k: same.info[k] for k in keys}
    monkeypatch.delenv(forked.OFF_ENV)
    asks = write(tmp_path, "input('press Enter')\n" + VALID, "asks.py")
    t0 = time.monotonic()
    answered = ModelFileCheck(str(asks), timeout_s=60)
    said = answered.run()
    assert isinstance(answered._proc, forked.ForkedWorker) and time.monotonic() - t0 < 30
    assert said.kind == "config" and said.line == 1 and "EOFError" in said.message
    keras, _, _ = next(iter(KERAS_BAD.values()))
    assert forked.wait_ready(framework="tensorflow", timeout_s=60)
    tf_check = ModelFileCheck(str(write(tmp_path, keras, "keras_model.py")))
    assert not tf_check.run().ok and isinstance(tf_check._proc, forked.ForkedWorker)


def test_the_file_can_import_its_neighbours(tmp_path):
    write(tmp_path, "from torch import nn\n\ndef net():\n    return nn.Linear(8, 3)\n", "nets.py")
    text = VALID.replace("    return nn.Linear(8, 3)", "    from nets import net\n    return net()")
    assert check_model_file(str(write(tmp_path, text))).ok


@pytest.mark.parametrize(
    ("example", "name", "parameters"),
    [
        ("torch_image_classifier.py", "small-cnn-cifar", 113_962),
        ("torch_char_lm.py", "char-gpt-small", 826_368),
        ("keras_image_classifier.py", "small-cnn-cifar-keras", 113_962),
        ("keras_char_lm.py", "char-gpt-small-keras", 826_368),
    ],
)
def test_the_examples_check_out_in_both_frameworks(example, name, parameters):
    # The Keras files run in a TensorFlow worker (never in this process); the framework comes
    # from the file's FRAMEWORK. Twins have the same parameter count.
    check = check_model_file(str(EXAMPLES / example))
    assert check.ok, check.message + check.traceback
    assert check.info["name"] == name and check.info["parameters"] == parameters
    assert check.info["framework"] == ("tensorflow" if example.startswith("keras") else "torch")


# ---- running a file (what `epochcost run --model-file` does) --------------------------------


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("syntax error", "model_file: model.py, line 3: syntax error"),
        ("exits while loading", "model_file: model.py, line 3: loading the file failed: the file"),
        (
            "forward fails on the declared input",
            "model_file: model.py, line 13: the model's forward failed on a batch of (16, 8)",
        ),
        ("loss is not a scalar", "model_file: model.py, line 12: the loss must be a scalar"),
        ("waits for input", "model_file: model.py, line 1: loading the file failed: EOFError"),
    ],
)
def test_a_run_of_a_bad_file_fails_as_config_with_the_line(tmp_path, case, words):
    events = _run(write(tmp_path, BAD[case][0]))
    last = events[-1]
    assert isinstance(last, Failed) and last.kind == "config"
    assert words in last.message
    assert "building" in [e.phase for e in events if isinstance(e, Phase)]


def test_a_run_whose_file_hangs_is_killed_at_the_build_timeout(tmp_path):
    events = _run(write(tmp_path, HANGS), WorkerSpec(build_timeout_s=3))
    last = events[-1]
    assert isinstance(last, Failed) and last.kind == "config"
    assert "model.py did not finish loading and building within 3 s" in last.message


def test_a_run_whose_file_kills_the_worker_is_a_crash_with_the_stderr_tail(tmp_path):
    last = _run(write(tmp_path, KILLS_ITSELF))[-1]
    assert isinstance(last, Failed) and last.kind == "crashed"
    assert "exit code 7, during building" in last.message and "os._exit" in last.message
    assert "leaving now" in last.traceback


@pytest.mark.parametrize(
    ("example", "batch", "unit", "epoch_samples"),
    [
        ("torch_image_classifier.py", 16, "images", 50_000),
        ("torch_char_lm.py", 4, "sequences", 1_003_854 // 128),
    ],
)
def test_an_example_is_measured_end_to_end_and_its_code_is_recorded(
    example, batch, unit, epoch_samples
):
    path = EXAMPLES / example
    events = _run(path, batch_size=batch, max_steps=8, min_steps=5)
    result = events[-1].result if isinstance(events[-1], Finished) else None
    assert result is not None, events[-1]
    assert result["status"] == "ok" and result["throughput_samples_per_s"] > 0
    workload = result["workload"]
    assert workload["model_file"] == {
        "path": str(path),
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }
    assert workload["epoch_unit"] == unit and result["epoch_samples"] == epoch_samples
    assert result["config"]["model_file"] == str(path)
    assert besides_noise(result["warnings"]) == []  # a shared machine may be busy
    assert validate(result) is result
    Store().add(result)
    assert Store().get(result["run_id"]) == result


def test_a_result_of_a_file_that_is_not_on_this_machine_still_imports(tmp_path):
    path = write(tmp_path, VALID.replace("EPOCH_SAMPLES = 1_000\n", ""))
    result = _run(path)[-1].result
    assert result["epoch_samples"] == 1_000_000  # no EPOCH_SAMPLES: the default, and a warning
    assert "EPOCH_SAMPLES is not set in model.py" in result["warnings"][0]
    path.unlink()
    exported = tmp_path / "result.json"
    exported.write_text(json.dumps(result))
    run_id = Store().import_file(exported).run_id
    assert Store().get(run_id)["workload"]["model_file"]["path"] == str(path)


def test_a_keras_file_is_measured_end_to_end():
    path = EXAMPLES / "keras_image_classifier.py"
    events = _run(path, framework="tensorflow")
    assert isinstance(events[-1], Finished), events[-1]
    result = events[-1].result
    assert result["environment"]["framework"] == "tensorflow"
    assert result["workload"]["parameters"] == 113_962
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert result["workload"]["model_file"]["sha256"] == digest


def test_a_missing_package_in_the_desktop_bundle_points_at_the_settings(monkeypatch, tmp_path):
    # The bundle's Python cannot take packages: the message says where to choose another.
    from engine.worker.workloads import model_file, model_file_errors

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    path = tmp_path / "needs.py"
    path.write_text("import epochcost_no_such_package\n" + VALID)
    with pytest.raises(model_file_errors.ModelFileError) as caught:
        model_file.load(str(path), "torch")
    assert "not in the app's bundled Python; in File > Settings" in caught.value.detail
    assert caught.value.line == 1


def test_a_framework_the_checking_python_lacks_says_where_to_get_it(monkeypatch, tmp_path):
    # The check-model mode imports the file's framework first; without it, the message says
    # which Python lacks it (here the test's own; in the bundle, File > Settings).
    from engine.worker.workloads import model_file_check

    def no_framework(name):
        raise ModuleNotFoundError("No module named 'tensorflow'")

    monkeypatch.setattr(model_file_check.importlib, "import_module", no_framework)
    path = tmp_path / "keras_net.py"
    path.write_text("import keras\n" + VALID)
    lines: list[str] = []
    model_file_check.check(str(path), "tensorflow", 2, lines.append)
    failed = json.loads(lines[-1])
    assert failed["type"] == "failed" and failed["kind"] == "framework"
    assert failed["message"].startswith("tensorflow is not usable here: No module named")
    assert f"not installed for {sys.executable}; install it there" in failed["message"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    lines.clear()
    model_file_check.check(str(path), "tensorflow", 2, lines.append)
    assert "in File > Settings" in json.loads(lines[-1])["message"]
