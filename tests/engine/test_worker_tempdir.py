"""A worker's temporary files go with it (engine/worker/tempdir.py): what a run writes into the
temporary folder (TensorFlow's autograph modules, a model file's own files) lands in a folder of
the worker's own, which it removes as it exits; a folder that a killed worker left behind is
removed by the next worker; PyTorch's compile cache stays where it was."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from engine.core import compile_cache
from engine.core.events import Finished
from engine.process.launcher import WorkerProcess
from engine.worker import tempdir
from tests.engine.helpers import TINY
from tests.engine.model_files import KERAS_VALID, VALID, write

# Prepended to a model file: it makes a temporary file as the module loads and says where.
LEAVES_A_FILE = (
    "import os as _os, tempfile as _tempfile\n"
    "_fd, _left = _tempfile.mkstemp(suffix='.left')\n"
    "open(_os.environ['EPOCHCOST_TEST_WHERE'], 'w').write(_left)\n"
)


@pytest.fixture
def temporary(tmp_path, monkeypatch) -> Path:
    """A temporary folder of the test's own, for this process and the workers it starts."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return folder


@pytest.mark.parametrize(
    ("framework", "model"),
    [("torch", VALID), ("tensorflow", KERAS_VALID)],
    ids=["torch", "tensorflow"],
)
def test_a_runs_temporary_files_are_in_the_workers_folder_and_go_with_it(
    temporary, tmp_path, monkeypatch, framework, model
):
    where = tmp_path / "where.txt"
    monkeypatch.setenv("EPOCHCOST_TEST_WHERE", str(where))
    path = write(tmp_path, LEAVES_A_FILE + model)
    config = TINY.with_changes(model=path.stem, model_file=str(path), framework=framework)
    worker = WorkerProcess(config).start()
    try:
        events = list(worker.events())
    finally:
        worker.close()
    assert isinstance(events[-1], Finished), events[-1]
    left = Path(where.read_text())
    assert left.parent.parent == temporary, left
    assert left.parent.name.startswith(tempdir.PREFIX), left
    assert not left.exists() and list(temporary.iterdir()) == []


def test_a_folder_a_killed_worker_left_is_removed_by_the_next(temporary, monkeypatch):
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    left = temporary / f"{tempdir.PREFIX}{ended.pid}-abc"
    (left / "sub").mkdir(parents=True)
    (left / "sub" / "__autograph_generated_file1.py").write_text("x = 1\n")
    running = temporary / f"{tempdir.PREFIX}{os.getpid()}-def"
    running.mkdir()
    unrelated = temporary / "epochcost-worker-notes"
    unrelated.mkdir()
    monkeypatch.setenv(compile_cache.ENV, "")  # put back as it was after the test
    monkeypatch.delenv(compile_cache.ENV)
    cache = compile_cache.default_dir()
    assert Path(cache).parent == temporary
    try:
        own = tempdir.own()
        assert own is not None and Path(own).parent == temporary
        assert os.environ["TMPDIR"] == own and tempfile.gettempdir() == own
        # PyTorch's compile cache where it was before the folder moved: every run shares it
        assert os.environ[compile_cache.ENV] == cache
    finally:
        tempdir.remove()
    assert not left.exists()
    assert running.is_dir() and unrelated.is_dir()  # a live process's, and no worker's
    assert not Path(own).exists()
