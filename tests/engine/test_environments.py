"""environments.json: the Python chosen per framework, one file for the app and the CLI; a run
goes to the chosen Python, and a chosen one that is gone is said in one line."""

from __future__ import annotations

import json
import sys

from engine.process import environments
from tests.engine.helpers import TINY_ARGS, cli
from tests.engine.model_files import EXAMPLES


def test_choices_are_kept_whole_and_bad_entries_ignored():
    assert environments.load() == {}
    environments.save({"torch": " /opt/env/bin/python ", "tensorflow": "", "jax": "/x"})
    assert json.loads(environments.path().read_text()) == {"torch": "/opt/env/bin/python"}
    assert environments.load() == {"torch": "/opt/env/bin/python"}
    assert environments.python_for("tensorflow") == sys.executable
    environments.path().write_text('{"torch": 3, "tensorflow": "/tf/bin/python"}')
    assert environments.load() == {"tensorflow": "/tf/bin/python"}
    environments.path().write_text("not json")
    assert environments.load() == {}  # read as no choice: runs use the app's own


def _noting_python(tmp_path):
    """A chosen environment: a Python that notes each start, then is this venv's."""
    other = tmp_path / "env" / "bin" / "python"
    other.parent.mkdir(parents=True)
    started = tmp_path / "started"
    other.write_text(f'#!/bin/sh\necho "$@" >> {started}\nexec {sys.executable} "$@"\n')
    other.chmod(0o755)
    return other, started


def test_a_cli_run_goes_to_the_chosen_python(tmp_path):
    other, started = _noting_python(tmp_path)
    environments.save({"torch": str(other)})
    proc = cli("run", *TINY_ARGS, "--json", "--no-store")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "ok"
    assert started.read_text().startswith("-m engine.worker run")  # the worker ran there


def test_a_model_file_is_checked_in_the_chosen_python(tmp_path):
    other, started = _noting_python(tmp_path)
    environments.save({"torch": str(other)})
    proc = cli("models", "--model-file", str(EXAMPLES / "torch_image_classifier.py"))
    assert proc.returncode == 0, proc.stderr
    assert started.read_text().startswith("-m engine.worker check-model")


def test_a_chosen_python_that_is_gone_is_said_with_the_fix(tmp_path):
    gone = tmp_path / "deleted-env" / "bin" / "python"
    environments.save({"torch": str(gone)})
    said = (
        f"epochcost: error: the PyTorch environment set in {environments.path()} is gone: "
        f"{gone}; run `epochcost env create --framework torch` again, or clear it in the app's "
        "File > Settings (or delete its line in that file)"
    )
    for command in ("run", *TINY_ARGS), ("sweep", "--batch-sizes", "8"):
        proc = cli(*command, "--no-store")
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr.strip().splitlines() == [said]
