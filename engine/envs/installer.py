"""Running an installer (uv, else pip) for an environment epochcost makes: which uv and which
Python there are, and one installer step at a time, its lines read for progress (packages,
bytes downloaded), in a session of its own so that a cancel or an interrupt ends the
installer and everything it started. uv is told to trust the system's certificates, as pip
does. Used by the framework environments (engine/envs/create.py) and the cloud environment
(engine/envs/cloud_env.py).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from engine.core import paths
from engine.envs import leftovers
from engine.process import spawn
from engine.process.interpreter import MIN_PYTHON

# pip: "Downloading torch-2.7.1-cp311-...whl (821.2 MB)"; uv: "Downloading torch (821.2MiB)".
_DOWNLOAD = re.compile(r"Downloading \S+.*\((\d+(?:\.\d+)?)\s*([kKMG]i?B)\)")
# pip: "Collecting numpy" or "Processing /path/numpy-...whl" (a local file); uv: " + numpy==2.1.0"
# (one line per installed package).
_PACKAGE = re.compile(r"^\s*(?:Collecting \S|Processing \S+\.whl|\+ \S)")
_UNITS = {"kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


class Cancelled(Exception):
    """The user cancelled; nothing was left behind."""


class InstallFailed(Exception):
    """The installer failed (no network, no build of that version, a full disk), or what it
    made does not pass the interpreter check: its last lines; nothing was left behind."""


@dataclass
class Progress:
    """What the installer has done so far: packages met, bytes downloaded, its last line."""

    packages: int = 0
    downloaded_bytes: float = 0.0
    line: str = ""


def find_uv() -> str | None:
    """The desktop bundle's own uv (bin/uv, build.spec), uv from PATH, or the binary of PyPI's
    `uv` package installed beside this program."""
    bundled = paths.bundle_root() / "bin" / "uv"
    if paths.frozen() and bundled.is_file():
        return str(bundled)
    found = shutil.which("uv")
    if found:
        return found
    try:
        from uv import find_uv_bin

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        return None


def find_python() -> str | None:
    """A Python to base the environment on: this one where it is a real interpreter (not the
    desktop bundle's executable), else `python3` on PATH; None when neither is new enough."""
    candidates = [] if paths.frozen() else [sys.executable]
    candidates += [p for p in (shutil.which("python3"), shutil.which("python")) if p]
    for python in candidates:
        try:
            out = subprocess.run(
                [python, "-c", "import sys; print(sys.version_info[0], sys.version_info[1])"],
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
            ).stdout.split()
        except (OSError, subprocess.SubprocessError):
            continue
        if tuple(int(v) for v in out) >= MIN_PYTHON:
            return python
    return None


def run_step(
    command: list[str],
    done: Progress,
    progress: Callable[[Progress], None],
    cancel: threading.Event,
    started: Callable[[int], None] = lambda _pid: None,
) -> None:
    """Run one installer step, its lines to `progress`; a cancel ends its whole process group.
    `started` gets the step's process number (its session's), for the folder's marker
    (engine/envs/leftovers.py); on Linux the step ends with the thread that started it."""
    if cancel.is_set():
        raise Cancelled
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,  # so that a cancel ends pip's or uv's children too
        preexec_fn=leftovers.die_with_parent(),  # noqa: PLW1509 - looked up before the fork
        # UV_NATIVE_TLS: uv trusts the system's certificates, as pip does (a TLS-inspecting
        # proxy's CA is there, not in uv's own bundle).
        env={
            **os.environ,
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "UV_NO_PROGRESS": "1",
            "UV_NATIVE_TLS": "1",
        },
    )
    try:
        # From here on, Ctrl-C, a signal the command raised as one, an error in `started` or in
        # `progress`: the installer runs in a session of its own and would go on writing into a
        # folder being removed. Starting the stopper's thread waits for it, and a signal can
        # land in that wait too (it did under load: the installer's children were left).
        started(proc.pid)
        threading.Thread(target=_stop_on_cancel, args=(proc, cancel), daemon=True).start()
        tail = _follow(proc, done, progress)
    except BaseException:
        spawn.stop_session(proc)
        raise
    code = proc.wait()
    if cancel.is_set():
        raise Cancelled
    if code != 0:
        raise InstallFailed(f"{' '.join(command[:4])} ... failed:\n" + "\n".join(tail))


def _follow(
    proc: subprocess.Popen[str], done: Progress, progress: Callable[[Progress], None]
) -> list[str]:
    """The installer's lines to `progress` until it closes its output; its last 8 lines."""
    tail: list[str] = []
    assert proc.stdout is not None
    with proc.stdout:  # closed also when a cancel ends the loop
        for raw in proc.stdout:
            line = raw.rstrip()
            if not line:
                continue
            tail = (tail + [line])[-8:]
            if _PACKAGE.search(line):
                done.packages += 1
            size = _DOWNLOAD.search(line)
            if size:
                done.downloaded_bytes += float(size[1]) * _UNITS[size[2]]
            done.line = line
            progress(done)
    return tail


def _stop_on_cancel(proc: subprocess.Popen[str], cancel: threading.Event) -> None:
    while proc.poll() is None:
        if cancel.wait(0.2):
            spawn.stop_session(proc)
            return
