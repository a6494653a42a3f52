"""The desktop bundle (`make bundle` -> dist/epochcost), run as a person would, headless: the
window, one short real run of tiny-mlp in the bundle's own worker mode, a chart export, exit 0.
Then TensorFlow, which the bundle does not carry, through the interpreter chosen in Settings.
Skipped when no bundle is built; `make bundle-smoke` runs it against the one in dist/."""

from __future__ import annotations

import importlib.util
import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXE = ROOT / "dist" / "epochcost" / "epochcost-gui"
TIMEOUT_S = 600

pytestmark = pytest.mark.skipif(
    not EXE.is_file(), reason="no bundle in dist/epochcost (make bundle builds it)"
)


def smoke(out: Path, *args: str) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    started = time.monotonic()
    done = subprocess.run(
        [str(EXE), "--smoke", str(out), *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"bundle smoke {args or ''}: {time.monotonic() - started:.1f} s end to end")
    return summary


def png_width(path: Path) -> int:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">I", header[16:20])[0]


def test_the_bundle_runs_tiny_mlp_in_its_own_worker_and_exports_a_chart(tmp_path):
    summary = smoke(tmp_path)
    assert summary["ok"] and summary["frozen"], summary
    # The bundle starts itself as the worker: it has no `python -m engine.worker`.
    assert summary["worker_command"] == [str(EXE.resolve()), "--epochcost-worker"]
    assert summary["result"]["status"] == "ok"
    assert summary["result"]["throughput_samples_per_s"] > 0
    assert summary["result"]["framework_version"]  # torch, from inside the bundle
    assert summary["gui_framework_modules"] == []  # the window never loads torch
    assert png_width(tmp_path / "throughput.png") == 1600


@pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None, reason="TensorFlow is not installed here"
)
def test_the_bundle_runs_tensorflow_through_the_python_chosen_in_settings(tmp_path):
    # This venv's Python has TensorFlow; the worker gets the bundle's engine source.
    summary = smoke(
        tmp_path, "--framework", "tensorflow", "--python", f"tensorflow={sys.executable}"
    )
    assert summary["ok"], summary
    assert summary["worker_command"] == [sys.executable, "-m", "engine.worker"]
    assert summary["result"]["framework_version"].startswith("2.")


def test_the_bundle_is_no_python_interpreter():
    # What would take sys.executable for a Python (a library's helper process) gets a refusal,
    # not a window.
    done = subprocess.run(
        [str(EXE), "-c", "print(1)"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2
    assert "not a Python interpreter" in done.stderr


def test_the_bundle_checks_a_model_file_in_its_worker_mode(tmp_path):
    example = ROOT / "assets" / "examples" / "torch_image_classifier.py"
    done = subprocess.run(
        [str(EXE), "--epochcost-worker", "check-model", "--model-file", str(example)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(x) for x in done.stdout.splitlines() if x.strip()]
    model = next(x for x in lines if x["type"] == "model")
    assert model["parameters"] == 113_962
