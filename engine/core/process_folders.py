"""Temporary folders a process makes for itself, named after it (PREFIX, its pid, "-", a random
part): found again by the next process once their maker has ended without removing them (killed
outright). A data-parallel run's scratch folder (engine/process/scratch.py) and a worker's own
(engine/worker/tempdir.py) are such folders. Standard library only, psutil where it is asked
whether a maker runs (torchrun's side of a run imports this module)."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path


def make(prefix: str, parent: str | None = None) -> Path:
    """A new folder `prefix` + this process's pid in `parent` (the temporary folder)."""
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))


def ended(prefix: str, parent: str | None = None) -> list[Path]:
    """The folders `prefix` + pid in `parent` (the temporary folder) whose maker has ended."""
    import psutil  # not os.kill(pid, 0): on Windows that signal ends the process

    pattern = re.compile(rf"^{re.escape(prefix)}(\d+)-")
    found: list[Path] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent or tempfile.gettempdir()):
            match = pattern.match(entry.name)
            if match is None or not entry.is_dir(follow_symlinks=False):
                continue
            if not psutil.pid_exists(int(match[1])):
                found.append(Path(entry.path))
    return found
