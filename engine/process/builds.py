"""What a framework environment was built for, read in a child process (the parent side never
imports a framework): the worker's `describe-build` command under that environment's Python,
engine/worker/frameworks/*/build.py's describe(). Where a warm process of the framework runs
for that Python (the app's, a study's: engine/process/forked.py), the child is forked from it:
the answer comes without a second import of the framework (about 2 s sooner here)."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from pathlib import Path

from engine.core.errors import ConfigError
from engine.measure.compatibility import Build
from engine.process import forked
from engine.process.launcher import WorkerSpec
from engine.process.spawn import signal_group, spawn

# Importing TensorFlow takes 5-20 s on a busy laptop CPU (engine/process/interpreter.py).
READ_TIMEOUT_S = 120.0


def read_build(framework: str, spec: WorkerSpec, timeout_s: float = READ_TIMEOUT_S) -> Build:
    """The build `spec`'s Python has for `framework`; a Build with `error` set, never an
    exception, when it cannot be read."""
    python = spec.python
    if not spec.runs_self and not Path(python).exists():
        return Build(framework, python=python, error=f"{python} does not exist")
    args = ["describe-build", "--framework", framework]
    try:
        proc = forked.spawn_forked(spec, framework, args) or spawn(spec, args)
    except ConfigError as exc:  # spawn's: the Python cannot be started
        return Build(framework, python=python, error=exc.message)
    answered = _output(proc, timeout_s)
    if answered is None:
        return Build(framework, python=python, error=f"no answer within {timeout_s:g} s")
    out, err, code = answered
    for line in reversed(out.strip().splitlines()):
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, dict):
            return Build.from_dict({"python": python, **found})
    last = (err.strip().splitlines() or ["no output"])[-1]
    return Build(framework, python=python, error=f"exit code {code}: {last}")


def _output(
    proc: subprocess.Popen[str] | forked.ForkedWorker, timeout_s: float
) -> tuple[str, str, int] | None:
    """The child's stdout, stderr and exit code once it has ended; None, with the child
    killed, when it has not within `timeout_s`."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.close()  # nothing to read: an EOF, never a wait
    texts: dict[str, str] = {}
    readers = [
        threading.Thread(target=lambda n=name, s=stream: texts.update({n: s.read()}), daemon=True)
        for name, stream in (("out", proc.stdout), ("err", proc.stderr))
    ]
    for reader in readers:
        reader.start()
    try:
        code = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        signal_group(proc.pid, signal.SIGKILL)  # its session's group: the child and its own
        proc.wait()
        code = None
    for reader in readers:
        reader.join(timeout=5)
    for stream in (proc.stdout, proc.stderr):
        stream.close()
    if code is None:
        return None
    return texts.get("out", ""), texts.get("err", ""), code
