"""Interrupts (issue 39): `data make-imagefolder` stopped by Ctrl-C, SIGTERM or SIGHUP removes the
images it wrote (or says how many are left, where); a full disk midway does too; Ctrl-C while a
command starts (its imports, its parser) is one line and exit 130, never a traceback."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.core.errors import ConfigError
from engine.workloads.data import random_folder

ROOT = Path(__file__).resolve().parents[2]


def _images(folder: Path) -> int:
    return sum(1 for _ in folder.rglob("*.jpg")) if folder.is_dir() else 0


@pytest.mark.worker
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("existing", [False, True])
def test_make_imagefolder_stopped_removes_what_it_wrote(tmp_path, sig, existing):
    folder = tmp_path / "images"
    if existing:
        folder.mkdir()  # a new or empty folder: it stays, empty
    command = [sys.executable, "-m", "engine.cli", "data", "make-imagefolder", str(folder)]
    command += ["--images", "1000000", "--size", "8", "--classes", "3"]
    proc = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while _images(folder) < 30:
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    by = "Ctrl-C" if sig == signal.SIGINT else signal.Signals(sig).name
    assert (
        f"make-imagefolder stopped by {by}; the " in err and "images it wrote were removed" in err
    )
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert folder.is_dir() == existing and _images(folder) == 0


def _interrupt_after(monkeypatch, saves: int, fault: BaseException) -> None:
    """PIL's save raises `fault` at its saves+1-th call."""
    from PIL import Image

    real = Image.Image.save
    done = [0]

    def save(self, *args, **kwargs):
        if done[0] == saves:
            raise fault
        done[0] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Image.Image, "save", save)


def test_a_full_disk_midway_removes_what_was_written(tmp_path, monkeypatch):
    _interrupt_after(monkeypatch, 7, OSError(28, "No space left on device"))
    folder = tmp_path / "images"
    with pytest.raises(ConfigError) as refused:
        random_folder.make(folder, 100, 8, 3)
    assert "No space left on device; the 7 images it wrote were removed" in refused.value.message
    assert not folder.exists()


def test_what_cannot_be_removed_is_counted_and_named(tmp_path, monkeypatch):
    _interrupt_after(monkeypatch, 5, KeyboardInterrupt())
    monkeypatch.setattr(random_folder.shutil, "rmtree", lambda *a, **k: None)  # it stays
    folder = tmp_path / "images"
    with pytest.raises(random_folder.Stopped) as stopped:
        random_folder.make(folder, 100, 8, 3)
    assert (stopped.value.written, stopped.value.files_left) == (5, 5)
    assert f"5 files (0.0 MB) it wrote are left in {folder}" in stopped.value.what()


START = """
import sys
importing = sys.argv[1]
class CtrlC:  # Ctrl-C as that module is about to be imported
    def find_spec(self, name, path=None, target=None):
        if name == importing:
            raise KeyboardInterrupt
sys.meta_path.insert(0, CtrlC())
if sys.argv[2] == "script":  # the console script `epochcost`
    from engine.cli import main
    sys.exit(main(["catalog", "gpus"]))
import runpy  # python -m engine.cli
sys.argv = ["epochcost", "catalog", "gpus"]
runpy.run_module("engine.cli", run_name="__main__", alter_sys=True)
"""


@pytest.mark.worker
@pytest.mark.parametrize("entry", ["script", "module"])
@pytest.mark.parametrize(
    "importing",
    [
        "engine.cli.streams",  # the CLI package's first import
        "numpy",  # deep in engine.cli.common's
        "engine.cli.cmd_catalog",  # the parser's (every command's module)
        "engine.cli.cmd_run",
    ],
)
def test_ctrl_c_while_a_command_starts_is_one_line(entry, importing):
    proc = subprocess.run(
        [sys.executable, "-c", START, importing, entry],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (proc.returncode, proc.stderr) == (130, "epochcost: interrupted\n")
