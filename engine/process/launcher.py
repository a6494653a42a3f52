"""Run one worker process: start it, stream its events, cancel it, and report its death as
data.

Used by the CLI, the studies (engine/process/worker_turns.py) and the GUI's EngineThread alike.
Every measurement runs in its own process (docs/architecture.md, "Two programs"); how one is started
(the interpreter, the environment, its process group) is engine/process/spawn.py.
"""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil

from engine.core.events import Event, Failed, Finished, Phase, Started, from_json
from engine.core.ids import new_run_id
from engine.measure.config import RunConfig, TrainingConfig
from engine.process import distributed, forked
from engine.process.spawn import (  # re-exported: callers start workers from here
    BUILD_TIMEOUT_S,
    OWN_GROUP,
    WORKER_FLAG,
    WorkerSpec,
    _engine_root,
    end_group,
    how_ended,
    signal_group,
    spawn,
)
from engine.process.watchdog import Watchdog

__all__ = [
    "BUILD_TIMEOUT_S",
    "CANCEL_GRACE_S",
    "STDERR_TAIL_LINES",
    "WORKER_FLAG",
    "WorkerProcess",
    "WorkerSpec",
    "_engine_root",
    "end_group",
]

CANCEL_GRACE_S = 1.5
STDERR_TAIL_LINES = 200
RENDEZVOUS_GRACE_S = 60.0  # past a data-parallel run's rendezvous timeout, to its first event
# How often the event reader looks at the worker's pipe, and at a cancel flag set from another
# thread (s). It sleeps between looks rather than wait on the pipe: a reader waiting there is
# woken by each write as the writer's partner (a "sync" wake-up), on the worker's own core, and
# each step event then cost the measuring thread about 220 us more in TensorFlow (0.62% of a
# tiny-mlp run against 0.39%) and 44 us in PyTorch (0.37% against 0.31%)
# (benchmarks/event_cost.py, RESULTS.md, issue 42). An event waits 10 ms at most.
READ_EVERY_S = 0.01


class WorkerProcess:
    """One worker. Iterate `events()` to the end; it always ends with finished or failed."""

    def __init__(
        self,
        config: TrainingConfig,
        spec: WorkerSpec | None = None,
        run_id: str | None = None,
        on_stderr: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        """`cancel`: a flag another thread may set (a study's); the worker is then cancelled
        as by cancel(), within READ_EVERY_S."""
        self.config = config
        self.spec = spec or WorkerSpec()
        self.run_id = run_id or new_run_id()
        self._on_stderr = on_stderr
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._cancel_requested = threading.Event()
        self._cancel_flag = cancel
        self._lock = threading.Lock()
        self.proc: subprocess.Popen[str] | forked.ForkedWorker | None = None
        self._stderr_thread: threading.Thread | None = None
        self._watchdog: Watchdog | None = None
        self._phase = ""  # the last phase the worker reported
        self._pending = b""  # stdout read but not yet a whole line
        self._group_ended = False
        # A data-parallel run (torch.distributed.run): its ranks, as last seen (end_tree).
        self._distributed = isinstance(config, RunConfig) and config.distributed
        self._ranks: list[psutil.Process] = []

    def start(self) -> WorkerProcess:
        launcher = None
        if self._distributed:
            assert isinstance(self.config, RunConfig)
            distributed.check_launchable(self.spec.runs_self)
            launcher = distributed.torchrun_command(self.spec.python, self.config)
        args = [
            self.config.worker_mode,  # run | accuracy
            "--config-json",
            json.dumps(self.config.to_dict()),
            "--run-id",
            self.run_id,
            "--control-stdin",
            *(["--data-parallel"] if self._distributed else []),
        ]
        # Forked from its framework's warm process when one is ready (engine/process/forked.py).
        warm = (
            None
            if launcher
            else forked.spawn_forked(
                self.spec,
                self.config.framework,
                args,
                import_env=self.config.import_environment(),
            )
        )
        self.proc = warm or spawn(self.spec, args, launcher=launcher)
        if self._cancel_requested.is_set():  # cancelled while it started (a server's import)
            self.cancel()
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
        if not OWN_GROUP:  # a blocking read: the flag is looked at line by line
            for text in self.proc.stdout:
                self._follow_flag()
                yield text
            return
        fd = self.proc.stdout.fileno()
        os.set_blocking(fd, False)  # looked at every READ_EVERY_S, never waited on
        while True:
            self._follow_flag()
            while b"\n" in self._pending:
                line, _, self._pending = self._pending.partition(b"\n")
                yield line.decode("utf-8", "replace")
            # Polled before reading: once the worker has ended, all it wrote is in the pipe,
            # and an empty pipe means the end.
            ended = self.proc.poll() is not None
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:  # nothing new since the last look
                if ended:  # a program the worker started may still hold the pipe open
                    break
                time.sleep(READ_EVERY_S)
                continue
            if not chunk:  # every writer has closed the pipe
                break
            self._pending += chunk
        if self._pending:
            rest, self._pending = self._pending, b""
            yield rest.decode("utf-8", "replace")

    def _follow_flag(self) -> None:
        """Cancel once the caller's flag is set (checked as the events are read)."""
        flag = self._cancel_flag
        if flag is not None and flag.is_set() and not self._cancel_requested.is_set():
            self.cancel()

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
        if dog is not None and model_file:
            limit = self.spec.build_timeout_s
            dog.time_building(
                self._phase,
                limit,
                f"model_file: {Path(model_file).name} did not finish loading and building "
                f"within {limit:g} s (does it wait for input, download, or loop at import?); "
                "a model that takes longer to build needs a longer --build-timeout",
                ended=terminal,
            )

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
        how = how_ended(code)
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
                signal_group(proc.pid, signal.SIGKILL)
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
