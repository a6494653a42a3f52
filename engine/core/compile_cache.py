"""Where PyTorch keeps its compile cache when nothing moves the temporary folder: for the
folders that do (a data-parallel run's scratch folder, engine/process/scratch.py; a worker's own,
engine/worker/tempdir.py), so that every run, one process or many, reuses one cache and none
compiles again. Standard library only (torchrun's side of a run imports it)."""

from __future__ import annotations

import getpass
import os
import re
import tempfile

ENV = "TORCHINDUCTOR_CACHE_DIR"


def default_dir() -> str:
    """torch's default_cache_dir: torchinductor_USER in the temporary folder, read before
    anything moves it."""
    user = re.sub(r'[\\/:*?"<>|]', "_", getpass.getuser())
    return os.path.join(tempfile.gettempdir(), f"torchinductor_{user}")


def keep() -> None:
    """Point PyTorch at the cache where it would be now (unless the user already has), before
    TMPDIR moves."""
    os.environ.setdefault(ENV, default_dir())
