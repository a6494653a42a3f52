"""Start a worker process, stream its events, cancel it, and report its death as data.

Used by the CLI and by the GUI's EngineThread alike. Every measurement runs in its own process
(docs/architecture.md, "Processes").
"""

from __future__ import annotations

import collections
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from engine.core import paths
from engine.core.errors import ConfigError
from engine.core.events import Event, Failed, Finished, Phase, Started, from_json
from engine.core.ids import new_run_id
from engine.measure.config import RunConfig, TrainingConfig
from engine.process import distributed
from engine.process.watchdog import Watchdog

CANCEL_GRACE_S = 1.5
# Once the worker has ended, what is left of its process group (processes a model file started)
# gets SIGTERM, and SIGKILL after this long.
GROUP_GRACE_S = 1.0
# POSIX: the worker leads a process group of its own (start_new_session), which the launcher
# ends after it; and the events are read until the worker has ended, not until the pipe's end,
# which a child of the worker may hold open.
OWN_GROUP = os.name == "posix" and hasattr(os, "killpg")
STDERR_TAIL_LINES = 200
# How long a model file may take to load and build (its `building` phase) before the worker is
# killed: user code can hang (an input(), a download, a loop) where the worker cannot stop it.
BUILD_TIMEOUT_S = 300.0
RENDEZVOUS_GRACE_S = 60.0  # past a data-parallel run's rendezvous timeout, to its first event
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


class WorkerProcess:
    """One worker. Iterate `events()` to the end; it always ends with finished or failed."""

    def __init__(
        self,
        config: TrainingConfig,
        spec: WorkerSpec | None = None,
        run_id: str | None = None,
        on_stderr: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.spec = spec or WorkerSpec()
        self.run_id = run_id or new_run_id()
        self._on_stderr = on_stderr
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._cancel_requested = threading.Event()
        self._lock = threading.Lock()
        self.proc: subprocess.Popen[str] | None = None
        self._stderr_thread: threading.Thread | None = None
        self._watchdog: Watchdog | None = None
        self._phase = ""  # the last phase the worker reported
        self._pending = b""  # stdout read but not yet a whole line
        self._group_ended = False
        # A data-parallel run (torch.distributed.run): its ranks, as last seen (end_tree).
        self._distributed = isinstance(config, RunConfig) and config.distributed
        self._ranks: list[psutil.Process] = []

    def start(self) -> WorkerProcess:
        env = self.spec.environment()
        launcher = self.spec.command()
        if self._distributed:
            assert isinstance(self.config, RunConfig)
            distributed.check_launchable(self.spec.runs_self)
            launcher = distributed.torchrun_command(self.spec.python, self.config)
        cmd = [
            *launcher,
            self.config.worker_mode,  # run | accuracy
            "--config-json",
            json.dumps(self.config.to_dict()),
            "--run-id",
            self.run_id,
            "--control-stdin",
            *(["--data-parallel"] if self._distributed else []),
        ]
        try:
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                env=env,
                # Its own session: a terminal's Ctrl-C reaches the CLI, which cancels it (cancel());
                # the group holds whatever it starts, ended with it (end_group).
                start_new_session=OWN_GROUP,
            )
        except OSError as exc:  # a chosen interpreter that is gone or not executable
            raise ConfigError(
                "python",
                f"the worker's Python {self.spec.python} could not be started "
                f"({exc.strerror or exc})",
            ) from None
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()
        self._watchdog = Watchdog(self.proc, self.kill)
        if self._distributed:
            assert isinstance(self.config, RunConfig)
            limit = self.config.rdzv_timeout_s + RENDEZVOUS_GRACE_S
            self._watchdog.arm(
                limit,
                f"the {self.config.world_size} processes did not start within {limit:g} s "
                "(rendezvous and start-up); check --rdzv-endpoint and that every node was started",
                kind="crashed",
            )
        return self

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def _drain_stderr(self) -> None:
        assert self.proc and self.proc.stderr
        for line in self.proc.stderr:
            line = line.rstrip("\n")
            self.stderr_tail.append(line)
            if self._on_stderr:
                self._on_stderr(line)

    def events(self) -> Iterator[Event]:
        """Events as the worker writes them; a worker that dies without a verdict -> crashed."""
        if self.proc is None:
            self.start()
        assert self.proc and self.proc.stdout
        terminal = False
        for line in self._lines():
            if not line.strip():
                continue
            try:
                event = from_json(line)
            except ValueError:
                self.stderr_tail.append(line.rstrip("\n"))
                continue
            terminal = terminal or isinstance(event, Finished | Failed)
            self._watch(event, terminal)
            yield event
        code = self.proc.wait()
        if self._watchdog is not None:
            self._watchdog.disarm()
        self._end_group()
        if not terminal:
            yield self._death_event(code)

    def _lines(self) -> Iterator[str]:
        """The worker's stdout line by line, until the worker has ended and every line it wrote
        is read. Not until the pipe's end (on POSIX): a process the worker started may hold the
        pipe open long after the worker is gone."""
        assert self.proc and self.proc.stdout
        if not OWN_GROUP:
            yield from self.proc.stdout
            return
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while True:
                while b"\n" in self._pending:
                    line, _, self._pending = self._pending.partition(b"\n")
                    yield line.decode("utf-8", "replace")
                # Polled before looking at the pipe: once the worker has ended, all it wrote
                # is in the pipe, and an empty pipe means the end.
                ended = self.proc.poll() is not None
                if selector.select(0 if ended else 0.1):
                    chunk = os.read(fd, 65536)
                    if chunk:
                        self._pending += chunk
                        continue
                elif not ended:
                    continue
                break
        if self._pending:
            rest, self._pending = self._pending, b""
            yield rest.decode("utf-8", "replace")

    def _end_group(self) -> None:
        """End what the worker started and left behind (it has ended itself)."""
        if self.proc is not None and OWN_GROUP and not self._group_ended:
            self._group_ended = True
            if self._distributed:  # ranks in sessions of their own, found while torchrun ran
                distributed.end_tree([*self._ranks, *distributed.descendants(self.proc.pid)])
            end_group(self.proc.pid)

    def _watch(self, event: Event, terminal: bool) -> None:
        """Time a model file's building phase (user code), which the worker cannot stop."""
        if isinstance(event, Phase):
            self._phase = event.phase
        if self._distributed and isinstance(event, Started | Phase) and self.proc is not None:
            self._ranks = distributed.descendants(self.proc.pid) or self._ranks
            if isinstance(event, Started) and self._watchdog is not None:
                self._watchdog.disarm()  # the processes have met
        dog, model_file = self._watchdog, self.config.model_file
        if dog is None or not model_file:
            return
        if self._phase == "building" and not terminal and not dog.armed:
            limit = self.spec.build_timeout_s
            dog.arm(
                limit,
                f"model_file: {Path(model_file).name} did not finish loading and building "
                f"within {limit:g} s (does it wait for input, download, or loop at import?); "
                "a model that takes longer to build needs a longer --build-timeout",
            )
        elif self._phase != "building" or terminal:
            dog.disarm()

    def _death_event(self, code: int) -> Failed:
        if self._watchdog is not None and self._watchdog.fired:
            return Failed(
                run_id=self.run_id,
                kind=self._watchdog.kind,
                message=self._watchdog.fired,
                batch_size=self.config.batch_size,
                traceback="\n".join(list(self.stderr_tail)[-20:]),
            )
        if self._cancel_requested.is_set():
            return Failed(
                run_id=self.run_id,
                kind="cancelled",
                message="cancelled by the user",
                batch_size=self.config.batch_size,
            )
        how = f"exit code {code}"
        if code < 0:
            try:
                how = f"signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"signal {-code}"
        tail = "\n".join(list(self.stderr_tail)[-20:])
        if self._distributed:
            assert isinstance(self.config, RunConfig)
            message = distributed.death_message(
                code, self._phase, list(self.stderr_tail), self.config
            )
            return Failed(
                run_id=self.run_id,
                kind="crashed",
                batch_size=self.config.batch_size,
                message=message,
                traceback=tail,
            )
        during = f", during {self._phase}" if self._phase else ""
        hint = ""
        if self.config.model_file and self._phase in ("importing", "building"):
            hint = (
                f"; while loading {Path(self.config.model_file).name}: does the file exit the "
                "interpreter (os._exit) or crash Python?"
            )
        return Failed(
            run_id=self.run_id,
            kind="crashed",
            batch_size=self.config.batch_size,
            message=f"the worker process ended without a result ({how}{during}){hint}",
            traceback=tail,
        )

    def cancel(self, grace_s: float = CANCEL_GRACE_S) -> None:
        """Ask the worker to stop between steps; kill it if it has not ended after grace_s."""
        self._cancel_requested.set()
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        with self._lock:
            try:
                assert proc.stdin
                proc.stdin.write("cancel\n")
                proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass
        timer = threading.Timer(grace_s, self.kill)
        timer.daemon = True
        timer.start()

    def kill(self) -> None:
        """Kill the worker, and with it every process of its group."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            if self._distributed:  # before torchrun goes: afterwards they are nobody's
                distributed.end_tree([*self._ranks, *distributed.descendants(proc.pid)])
            if OWN_GROUP:
                _signal_group(proc.pid, signal.SIGKILL)
            else:
                proc.kill()

    def close(self) -> None:
        """Make sure the process is gone and reaped (window close, test teardown)."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            self.cancel(grace_s=0.5)
            try:
                proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.kill()
                proc.wait()
        self._end_group()
        streams = [proc.stdin, proc.stdout, proc.stderr]
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=2)
            if self._stderr_thread.is_alive():
                # A process out of the group's reach holds the pipe: closing the stream would
                # wait for the thread's read. The thread ends when that process does.
                streams.remove(proc.stderr)
        for stream in streams:
            try:
                if stream:
                    stream.close()
            except OSError:
                pass


def end_group(pgid: int, grace_s: float = GROUP_GRACE_S) -> None:
    """SIGTERM to every process of the group `pgid`, and SIGKILL after grace_s to what is left.
    Returns at once for a group that is empty (the usual case: the worker started nothing)."""
    if not _signal_group(pgid, signal.SIGTERM):
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        time.sleep(0.05)
        if not _signal_group(pgid, 0):
            return
    _signal_group(pgid, signal.SIGKILL)


def _signal_group(pgid: int, sig: int) -> bool:
    """Send sig to the group; False when the group has no process left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member that is not ours to signal (it changed its user)
        return True
    return True
