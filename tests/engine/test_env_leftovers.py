"""Half-made environments an ended epochcost left (issue 39, engine/envs/leftovers.py): a
`env create` killed by SIGKILL leaves no installer running and, after the next start of any
command, no folder, and the start says so; a folder whose maker still runs is left alone; an
installer session whose number went to another process is not touched."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from engine.cli import main
from engine.core.errors import ConfigError
from engine.envs import leftovers
from engine.envs.create import MARKER, busy, envs_home
from tests.engine.test_env_safety import FAKE_UV

ROOT = Path(__file__).resolve().parents[2]


def _gone(pid: int) -> bool:
    return not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def _wait_for(pids: Path, proc: subprocess.Popen) -> list[int]:
    deadline = time.monotonic() + 60
    while not (pids.is_file() and pids.read_text().count(" ") == 1):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
        time.sleep(0.05)
    return [int(p) for p in pids.read_text().split()]


@pytest.mark.worker
def test_env_create_killed_by_sigkill_leaves_nothing_after_the_next_start(tmp_path, capsys):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text(FAKE_UV)
    (bin_dir / "uv").chmod(0o755)
    pids = tmp_path / "pids"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PIDS": str(pids)}
    command = [sys.executable, "-m", "engine.cli", "env", "create", "--cloud", "--installer", "uv"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    installer, child = _wait_for(pids, proc)
    folder = envs_home() / "cloud"
    record = json.loads((folder / MARKER).read_text())
    assert record["pid"] == proc.pid and record["installer"] == installer
    proc.kill()  # SIGKILL: no clean-up of its own can run
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while not _gone(installer) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(installer)  # the installer step ended with its maker (PR_SET_PDEATHSIG)
    assert not _gone(child) and folder.is_dir()  # its child and the folder are left
    assert main(["env", "list"]) == 0  # the next start
    err = capsys.readouterr().err
    assert f"removed a half-made environment an interrupted env create left: {folder}" in err
    assert "installer's 1 process ended" in err
    assert not folder.exists()
    deadline = time.monotonic() + 10
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child)
    assert main(["env", "list"]) == 0  # said once: nothing left the second time
    assert "half-made" not in capsys.readouterr().err


def test_a_folder_whose_maker_runs_is_left_alone_and_not_made_over():
    folder = envs_home(create=True) / "torch-cpu"
    folder.mkdir()
    leftovers.write_marker(folder)  # this test's process: alive
    assert leftovers.clear() == []
    assert folder.is_dir()
    with pytest.raises(ConfigError, match="being made by another epochcost"):
        busy(folder)


def test_a_marker_of_a_process_number_now_someone_elses_counts_as_gone(tmp_path):
    folder = envs_home(create=True) / "torch-cpu"
    folder.mkdir()
    record = {"pid": os.getpid(), "started": "1", "installer": None, "installer_started": ""}
    (folder / MARKER).write_text(json.dumps(record))  # this pid, another start time
    assert leftovers.maker_gone(folder)


def test_an_installer_session_number_given_to_another_process_is_not_touched():
    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        left = leftovers.Leftover(Path("/nonexistent"), None, other.pid, "1")  # not its start
        assert leftovers.stop_installer(left) == 0
        assert other.poll() is None
        mine = leftovers.Leftover(
            Path("/nonexistent"), None, other.pid, leftovers._started(other.pid)
        )
        assert leftovers.stop_installer(mine) == 1
        assert other.wait(timeout=10) == -signal.SIGKILL
    finally:
        other.kill()
        other.wait()


def test_no_data_folder_nothing_to_clear(tmp_path, monkeypatch):
    monkeypatch.setenv("EPOCHCOST_HOME", str(tmp_path / "not-yet"))
    assert leftovers.clear() == []
    assert not (tmp_path / "not-yet").exists()  # the start makes no data folder


def test_an_unreadable_envs_folder_stops_no_command(monkeypatch, capsys):
    """A folder the start cannot read (its permissions) is left for env list to name: every
    other command runs as before."""
    envs_home(create=True)

    def unreadable(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "iterdir", unreadable)
    assert leftovers.clear() == []
    assert main(["catalog", "files"]) == 0
