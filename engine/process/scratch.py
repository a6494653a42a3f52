"""A data-parallel run's scratch folder: every temporary file of the run in one folder, removed
when the run ends (issue 32).

torch.distributed.run makes a `torchelastic_*` folder in the temporary folder for each run and
never removes it. So torchrun is started through this module, `python -m engine.process.scratch
FOLDER ARGS...`: it points TMPDIR (its own and its ranks') at FOLDER, runs torch.distributed.run
with ARGS, and removes FOLDER when torchrun ends: normally, on a failure, on a cancel, on
SIGTERM or SIGHUP. What SIGKILL leaves (the launcher's last resort) the parent removes: a
thread that watches the run's torchrun, then this process's exit, then the next run (folders
whose parent and torchrun are both gone).

PyTorch's compile cache (torchinductor_USER) is shared by every run, one process or many: it
stays where it would be without this folder (engine/core/compile_cache.py), so a data-parallel
run does not compile again.

The torchrun side runs in the worker's Python (any interpreter with PyTorch): standard library
and engine.core only, psutil only in the parent's functions.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from engine.core import compile_cache, process_folders

PREFIX = "epochcost-dp-"
PID_FILE = "torchrun.pid"
# Seconds the parent waits for torchrun to say its pid (a Python start, no framework import).
START_S = 120.0
_POLL_S = 0.2
_made: set[Path] = set()
_lock = threading.Lock()


def make() -> Path:
    """A new scratch folder for one run (this process's pid in its name), watched until the run
    ends; the folders of runs whose parent died are removed first."""
    sweep()
    folder = process_folders.make(PREFIX)
    with _lock:
        if not _made:
            atexit.register(_remove_ended)
        _made.add(folder)
    threading.Thread(target=_watch, args=(folder,), name="scratch", daemon=True).start()
    return folder


def sweep() -> None:
    """Remove the scratch folders whose parent and torchrun have both ended (killed outright)."""
    for folder in process_folders.ended(PREFIX):
        if not _running(folder):
            shutil.rmtree(folder, ignore_errors=True)


def _watch(folder: Path) -> None:
    """Remove `folder` once its torchrun has ended (it removes it itself unless killed)."""
    deadline = time.monotonic() + START_S
    while folder.exists() and _pid(folder) is None and time.monotonic() < deadline:
        time.sleep(_POLL_S)
    while folder.exists() and _running(folder):
        time.sleep(_POLL_S)
    _remove(folder)


def _remove_ended() -> None:
    """At the parent's exit: every folder it made whose torchrun has ended (all, normally)."""
    with _lock:
        folders = list(_made)
    for folder in folders:
        if not _running(folder):
            _remove(folder)


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    with _lock:
        _made.discard(folder)


def _pid(folder: Path) -> int | None:
    try:
        return int((folder / PID_FILE).read_text(encoding="ascii"))
    except (OSError, ValueError):
        return None


def _running(folder: Path) -> bool:
    """Whether the torchrun that uses `folder` still runs (a zombie has ended; a pid reused
    by another process does not name the folder)."""
    import psutil  # the parent's side only

    pid = _pid(folder)
    if pid is None:
        return False
    try:
        proc = psutil.Process(pid)
        return proc.status() != psutil.STATUS_ZOMBIE and str(folder) in proc.cmdline()
    except psutil.Error:
        return False


# The torchrun side -------------------------------------------------------------------------


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # through `finally`: the folder goes


def main(argv: list[str]) -> int:
    """Run torch.distributed.run with argv[1:] in the folder argv[0]; remove it at the end."""
    import runpy

    folder = argv[0]
    for name in ("SIGTERM", "SIGHUP"):  # torchrun puts its own in place later
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _stop)
    try:
        Path(folder, PID_FILE).write_text(str(os.getpid()), encoding="ascii")
        compile_cache.keep()
        os.environ["TMPDIR"] = folder  # torchrun's folders and its ranks' go here
        tempfile.tempdir = folder
        sys.argv = ["torch.distributed.run", *argv[1:]]
        runpy.run_module("torch.distributed.run", run_name="__main__", alter_sys=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
