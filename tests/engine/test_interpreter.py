"""The interpreter check behind File > Settings, for real: this venv's Python, a Python without
torch, and paths that are no Python interpreter."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.process.interpreter import check_interpreter


def test_this_venvs_python_runs_torch_workers():
    check = check_interpreter(sys.executable, "torch")
    assert check.ok, check.message
    assert set(check.versions) == {"Python", "torch", "epochcost engine"}
    assert check.message.startswith("ok: Python 3.")


@pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None, reason="TensorFlow is not installed here"
)
def test_this_venvs_python_runs_tensorflow_workers():
    # The check imports TensorFlow in its own process, never in this one.
    check = check_interpreter(sys.executable, "tensorflow")
    assert check.ok, check.message
    assert "tensorflow" in check.versions
    assert "tensorflow" not in sys.modules


def _python_without_torch() -> str:
    here = Path(sys.executable).resolve()
    for candidate in (shutil.which("python3"), "/usr/bin/python3"):
        if not candidate or Path(candidate).resolve() == here:
            continue
        probe = subprocess.run(
            [candidate, "-c", "import torch"], capture_output=True, check=False, timeout=60
        )
        if probe.returncode != 0:
            return candidate
    pytest.skip("no Python without torch on this machine")


def test_a_python_without_torch_is_told_so_in_plain_words():
    python = _python_without_torch()
    check = check_interpreter(python, "torch")
    assert not check.ok
    assert "torch is not installed there" in check.message
    assert "Traceback" not in check.message


def test_a_path_that_does_not_exist():
    check = check_interpreter("/no/such/env/bin/python", "tensorflow")
    assert not check.ok
    assert check.message == "/no/such/env/bin/python does not exist"


def test_a_folder_and_a_program_that_is_not_python(tmp_path):
    assert check_interpreter(str(tmp_path), "torch").message.endswith("is not an executable file")
    program = shutil.which("true")
    assert program is not None
    check = check_interpreter(program, "torch")
    assert not check.ok
    assert "did not answer as a Python interpreter does" in check.message


def test_an_interpreter_that_hangs_is_stopped_at_the_time_limit(tmp_path):
    hangs = tmp_path / "python"
    hangs.write_text("#!/bin/sh\nexec sleep 60\n")
    os.chmod(hangs, 0o755)
    started = time.monotonic()
    check = check_interpreter(str(hangs), "torch", timeout_s=1)
    assert time.monotonic() - started < 15
    assert check.message == f"{hangs} did not answer within 1 s (it may hang importing torch)"
