"""Environments (issue 39): `env remove` removes only what `env create` made and follows no link
out of the data folder; names are checked in --dry-run as in a real create, an empty one is
refused; SIGINT (Ctrl-C), SIGTERM or SIGHUP to `env create` ends its installer and leaves no
half-made folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.cli import main
from engine.envs import create as create_module
from engine.envs.create import MARKER, envs_home, write_about
from tests.engine.helpers import alive

ROOT = Path(__file__).resolve().parents[2]


def _made(folder: Path, framework: str = "torch") -> Path:
    """A folder as `env create` leaves it (its about file), without installing anything."""
    (folder / "bin").mkdir(parents=True)
    write_about(folder, {"framework": framework, "label": "a test build"}, "pip")
    return folder


def _photos(root: Path) -> Path:
    photos = root / "photos"
    photos.mkdir()
    (photos / "holiday.jpg").write_bytes(b"not ours")
    return photos


def test_remove_refuses_a_folder_env_create_did_not_make(capsys):
    photos = _photos(envs_home(create=True))
    assert main(["env", "remove", "photos"]) == 2
    err = capsys.readouterr().err
    assert "was not made by epochcost env create" in err and len(err.strip().splitlines()) == 1
    assert (photos / "holiday.jpg").read_bytes() == b"not ours"


def test_remove_follows_no_link_out_of_the_data_folder(tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    photos = _made(_photos(outside))  # even a folder that looks like one of ours
    envs = envs_home(create=True)
    (envs / "photos").symlink_to(photos)
    assert main(["env", "remove", "photos"]) == 2
    assert "is a link" in capsys.readouterr().err
    (envs / "photos").unlink()
    envs.rmdir()
    envs.symlink_to(outside)  # envs itself a link to the user's files
    assert main(["env", "remove", "photos"]) == 2
    err = capsys.readouterr().err
    assert "is a link" in err and "only inside its data folder" in err
    assert (photos / "holiday.jpg").is_file() and (photos / create_module.ABOUT).is_file()


def test_remove_removes_what_env_create_made_the_cloud_environment_too(capsys):
    envs = envs_home(create=True)
    made = _made(envs / "torch-cpu")
    half = envs / "torch-cu126"
    half.mkdir()
    (half / MARKER).write_text("being made\n")  # an older epochcost's, its maker long gone
    cloud = _made(envs / "cloud", framework="cloud")
    assert main(["env", "list"]) == 0  # the start removes the half-made one, saying so
    assert f"removed a half-made environment an interrupted env create left: {half}" in (
        capsys.readouterr().err
    )
    assert not half.exists()
    for folder in (made, cloud):
        assert main(["env", "remove", folder.name]) == 0
        assert not folder.exists()
    assert f"{cloud} is gone" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("../../x", "'../../x' is not a usable name"),
        ("/abs", "'/abs' is not a usable name"),
        ("", "name: is empty"),
        (" ", "name: is empty"),
    ],
)
@pytest.mark.parametrize("dry_run", [True, False])
def test_a_bad_or_empty_name_is_refused_dry_run_or_not(capsys, name, says, dry_run):
    argv = ["env", "create", "--framework", "torch", "--device", "cpu", "--name", name]
    assert main(argv + (["--dry-run"] if dry_run else [])) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    assert not envs_home().exists() or not any(envs_home().iterdir())


def test_the_dry_run_names_the_folder_it_would_make(capsys):
    argv = ["env", "create", "--framework", "torch", "--device", "cpu", "--name", "mine"]
    assert main([*argv, "--dry-run"]) == 0
    assert str(envs_home() / "mine") in capsys.readouterr().out


FAKE_UV = """#!/bin/sh
# An installer that never ends, with a child of its own: its pids, then a line, then waits.
sleep 300 &
echo "$$ $!" > "$PIDS"
echo "Resolved 1 package"
wait
"""


@pytest.mark.worker
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_to_env_create_ends_the_installer_and_leaves_no_folder(tmp_path, sig):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text(FAKE_UV)
    (bin_dir / "uv").chmod(0o755)
    pids = tmp_path / "pids"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PIDS": str(pids)}
    command = [sys.executable, "-m", "engine.cli", "env", "create", "--cloud", "--installer", "uv"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    folder = envs_home() / "cloud"
    deadline = time.monotonic() + 60
    while not (pids.is_file() and pids.read_text().count(" ") == 1):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
        time.sleep(0.05)
    installer = [int(p) for p in pids.read_text().split()]
    assert (folder / MARKER).is_file()  # half-made, the installer running
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + sig, err
    said = "cancelled" if sig == signal.SIGINT else f"stopped by {signal.Signals(sig).name}"
    assert f"env create {said}; nothing was left behind" in err
    assert "Traceback" not in err
    assert not folder.exists()
    # The installer and its child end, not left running in their session (a killed process
    # may still be on its way out for a moment after the command has returned).
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in installer) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in installer if alive(pid)]


def test_list_names_a_folder_env_create_did_not_make_as_not_ours(capsys):
    """A folder of the user's under envs/ is not listed as a half-made environment."""
    _photos(envs_home(create=True))
    (_made(envs_home() / "torch-cpu") / "bin" / "python").touch()  # whole
    assert main(["env", "list"]) == 0
    out = capsys.readouterr().out
    assert "photos: not made by epochcost env create (left as it is)" in out
    assert "half-made" not in out and "torch-cpu: a test build" in out
