"""What a framework environment was built for, read in a child process (the parent side never
imports a framework): the worker's `describe-build` command under that environment's Python,
engine/worker/frameworks/*/build.py's describe()."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from engine.measure.compatibility import Build
from engine.process.launcher import WorkerSpec

# Importing TensorFlow takes 5-20 s on a busy laptop CPU (engine/process/interpreter.py).
READ_TIMEOUT_S = 120.0


def read_build(framework: str, spec: WorkerSpec, timeout_s: float = READ_TIMEOUT_S) -> Build:
    """The build `spec`'s Python has for `framework`; a Build with `error` set, never an
    exception, when it cannot be read."""
    python = spec.python
    if not spec.runs_self and not Path(python).exists():
        return Build(framework, python=python, error=f"{python} does not exist")
    env = {**spec.environment(), "TF_CPP_MIN_LOG_LEVEL": "2", "TF_ENABLE_ONEDNN_OPTS": "0"}
    try:
        proc = subprocess.run(
            [*spec.command(), "describe-build", "--framework", framework],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=env,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Build(framework, python=python, error=f"no answer within {timeout_s:g} s")
    except OSError as exc:
        return Build(framework, python=python, error=f"could not be started: {exc}")
    for line in reversed(proc.stdout.strip().splitlines()):
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, dict):
            return Build.from_dict({"python": python, **found})
    last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return Build(framework, python=python, error=f"exit code {proc.returncode}: {last}")
