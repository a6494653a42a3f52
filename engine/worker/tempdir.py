"""The worker's own temporary folder: what a run writes there goes when its worker ends.

TensorFlow's autograph writes a module (`__autograph_generated_file*.py`) into the temporary
folder for each function it converts and never removes one: a test suite's TensorFlow workers
left 2,994 in /tmp, and a user's runs would collect them likewise; a model file's own temporary
files too. So each worker points TMPDIR (its own, and its children's: a DataLoader's workers, a
model file's processes) at a folder of its own, `epochcost-worker-PID-*` in the temporary
folder, which the worker removes as it exits (engine/worker/main.py's _exit, every way out). A
worker killed outright (the launcher's last resort) leaves it to the next worker, which removes
the folders whose process has ended.

PyTorch's compile cache stays where it would be without this folder (engine/core/
compile_cache.py): every run reuses it. Made by entry() only: main() called in another
program's process (a test) leaves that program's temporary folder as it is.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from engine.core import compile_cache, process_folders

PREFIX = "epochcost-worker-"
_own: str | None = None


def own() -> str | None:
    """Make this worker's folder and point the temporary folder there; returns it (None where
    it cannot be made: the temporary folder stays as it was). The folders of workers that have
    ended without removing theirs are removed first."""
    global _own
    tempfile.tempdir = None  # read TMPDIR again: a forked worker's server read its own
    parent = tempfile.gettempdir()
    for ended in process_folders.ended(PREFIX, parent):
        shutil.rmtree(ended, ignore_errors=True)
    try:
        folder = str(process_folders.make(PREFIX, parent))
    except OSError:
        return None
    compile_cache.keep()
    os.environ["TMPDIR"] = _own = folder
    tempfile.tempdir = folder
    return folder


def remove() -> None:
    """Remove this worker's folder (nothing when it has none)."""
    global _own
    if _own is not None:
        shutil.rmtree(_own, ignore_errors=True)
        _own = None
