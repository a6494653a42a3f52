"""How a worker process is started and how what it leaves behind is ended.

`WorkerSpec` says which Python runs the worker and with which environment; `spawn()` starts it
(a measurement, a model-file check) in a process group of its own, which `end_group()` ends once
the worker has; `how_ended()` words an exit code for a death message. The launcher
(engine/process/launcher.py) and the model-file check (engine/process/model_check.py) start
their workers here, so both take the same interpreter, environment and group.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import IO

from engine.core import paths
from engine.core.errors import ConfigError
from engine.measure import busy

# Once the worker has ended, what is left of its process group (processes a model file started)
# gets SIGTERM, and SIGKILL after this long (s).
GROUP_GRACE_S = 1.0
# POSIX: the worker leads a process group of its own (start_new_session), which is ended after
# it (end_group).
OWN_GROUP = os.name == "posix" and hasattr(os, "killpg")
# How long a model file may take to load and build (its `building` phase) before the worker is
# killed: user code can hang (an input(), a download, a loop) where the worker cannot stop it.
BUILD_TIMEOUT_S = 300.0
# A frozen app (the desktop bundle) has no `python -m engine.worker`: its executable starts
# itself with this flag first and runs engine.worker's main (gui/app.py).
WORKER_FLAG = "--epochcost-worker"


@dataclass(frozen=True)
class WorkerSpec:
    """How to start a worker: which Python (default: this one, or in the bundle the app's own
    executable in worker mode) and extra environment."""

    python: str = sys.executable
    env: dict[str, str] = field(default_factory=dict)
    verbose: bool = False
    build_timeout_s: float = BUILD_TIMEOUT_S  # a model file's building phase (s)

    @property
    def runs_self(self) -> bool:
        """The worker is this frozen app's own executable (it is no Python interpreter)."""
        return paths.frozen() and self.python == sys.executable

    def command(self) -> list[str]:
        if self.runs_self:
            return [self.python, WORKER_FLAG]
        return [self.python, "-m", "engine.worker"]

    def environment(self) -> dict[str, str]:
        """The worker's environment: ours, the spec's, PYTHONPATH to this engine's source and
        the app's shipped data (a worker under another interpreter reads the same catalogs)."""
        env = {**os.environ, **self.env, "PYTHONUNBUFFERED": "1"}
        env[paths.ASSETS_ENV] = str(paths.assets())
        env[busy.READER_ENV] = str(os.getpid())  # the run's reader: its CPU is the run's own
        if self.verbose:
            env["EPOCHCOST_VERBOSE"] = "1"
        if self.runs_self:
            return env
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (_engine_root(), env.get("PYTHONPATH", "")) if p
        )
        if paths.frozen():
            # The bundle's loader points LD_LIBRARY_PATH at its own libraries (and keeps the
            # user's in LD_LIBRARY_PATH_ORIG): another Python must load its own CUDA and C++.
            original = env.pop("LD_LIBRARY_PATH_ORIG", None)
            env.pop("LD_LIBRARY_PATH", None)
            if original:
                env["LD_LIBRARY_PATH"] = original
        return env


def _engine_root() -> str:
    """The folder holding this `engine` package's source, so the worker runs the same code."""
    return str(paths.engine_source_root())


def spawn(
    spec: WorkerSpec,
    args: list[str],
    *,
    launcher: list[str] | None = None,
    env: dict[str, str] | None = None,
    stdin: int | IO[str] | None = subprocess.PIPE,
) -> subprocess.Popen[str]:
    """The worker of `spec` started with `args` after its command (or after `launcher`, e.g.
    torchrun's), text pipes for stdout and stderr, in a session of its own; `env` replaces
    spec.environment(). A Python that cannot be started (gone, not executable) is a
    ConfigError on the field "python"."""
    try:
        return subprocess.Popen(
            [*(spec.command() if launcher is None else launcher), *args],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
            env=spec.environment() if env is None else env,
            # Its own session: a terminal's Ctrl-C reaches the CLI, which cancels the worker;
            # the group holds whatever it starts, ended with it (end_group).
            start_new_session=OWN_GROUP,
        )
    except OSError as exc:
        raise ConfigError(
            "python",
            f"the worker's Python {spec.python} could not be started ({exc.strerror or exc})",
        ) from None


def how_ended(code: int) -> str:
    """An exit status in words: "exit code 1", "signal SIGKILL"."""
    if code >= 0:
        return f"exit code {code}"
    try:
        return f"signal {signal.Signals(-code).name}"
    except ValueError:
        return f"signal {-code}"


def end_group(pgid: int, grace_s: float = GROUP_GRACE_S) -> None:
    """SIGTERM to every process of the group `pgid`, and SIGKILL after grace_s to what is left.
    Returns at once for a group that is empty (the usual case: the worker started nothing)."""
    if not signal_group(pgid, signal.SIGTERM):
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        time.sleep(0.05)
        if not signal_group(pgid, 0):
            return
    signal_group(pgid, signal.SIGKILL)


def stop_session(proc: subprocess.Popen, grace_s: float = 10.0) -> None:
    """End a child started in a session of its own (start_new_session) and everything it
    started there: SIGTERM to its group, SIGKILL after grace_s if the child has not ended;
    reaps it. A child that has ended already may have left what it started running (killed
    alone: an installer by its parent-death signal), so its group is ended all the same
    (end_group: at once when it is empty, the usual case)."""
    if proc.poll() is None:
        signal_group(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
    end_group(proc.pid, min(grace_s, GROUP_GRACE_S))


def signal_group(pgid: int, sig: int) -> bool:
    """Send sig to the group; False when the group has no process left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member that is not ours to signal (it changed its user)
        return True
    return True
