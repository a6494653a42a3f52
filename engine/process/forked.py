"""Workers forked from a warm process instead of started afresh: a PyTorch run starts about 3 s
sooner (the import of torch and torch._dynamo), a TensorFlow run about 2 s (tensorflow and
keras), each import done once by a server of that framework (engine/worker/forkserver.py says
how).

`spawn_forked()` hands a worker's start to its framework's fork server when one is ready for
it, and returns a `ForkedWorker`, which the launcher uses as it uses a subprocess.Popen (pid,
the three text streams, poll, wait, kill); None means "start it the usual way"
(engine/process/spawn.py). A server is started only where several runs follow: `prewarm()` by
the app for the framework on its form (once its window shows, and when the form turns to
another), `wait_ready()` by a study before its first run (engine/process/worker_turns.py). A
single command-line run starts the usual way (a server's import beside it would only compete
with it). One server a framework at a time; a server of another environment is replaced.

Forked only where it measures the same as a fresh process: Linux, this Python (not another
environment's, not the bundle's own executable), PyTorch or TensorFlow, one process (not
torchrun's), and the environment the framework reads as it is imported the same as the
server's, the run's own (TrainingConfig.import_environment) included. EPOCHCOST_FORKSERVER=0
turns it off.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO, Any

import psutil

from engine.measure import busy
from engine.process.spawn import WorkerSpec, signal_group

OFF_ENV = "EPOCHCOST_FORKSERVER"
# Read by the framework or the interpreter as they start: a server started under other values
# would give the worker another framework than a fresh process gets.
IMPORT_ENV_PREFIXES = (
    "PYTHON",
    "LD_",
    "OMP_",
    "MKL_",
    "KMP_",
    "OPENBLAS_",
    "GOMP_",
    "TORCH",
    "PYTORCH_",
    "CUDA_",
    "NVIDIA_",
    "CUBLAS_",
    "CUDNN_",
    "NCCL_",
    "MALLOC_",
    "TF_",
    "KERAS_",
    "EPOCHCOST_VERBOSE",  # TensorFlow's C++ log level as it is imported (engine/worker/quiet.py)
)
FRAMEWORKS = ("torch", "tensorflow")  # each with a server of its own
READY_TIMEOUT_S = 60.0  # a server not ready by then is given up (and runs start the usual way)


def _environment(spec: WorkerSpec, import_env: dict[str, str] | None) -> dict[str, str]:
    """A worker's environment: the spec's, and what it sets before its framework's import for
    its run (TrainingConfig.import_environment)."""
    return {**spec.environment(), **(import_env or {})}


def _import_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(IMPORT_ENV_PREFIXES)}


def supported(spec: WorkerSpec, framework: str) -> bool:
    """Whether a worker of `spec` for `framework` may be forked (the module's docstring)."""
    return (
        sys.platform.startswith("linux")
        and framework in FRAMEWORKS
        and spec.python == sys.executable
        and not spec.runs_self
        and os.environ.get(OFF_ENV, "1") != "0"
        and framework not in _failed
        and _installed(framework)
    )


@functools.cache
def _installed(framework: str) -> bool:
    """Whether this Python has the framework (found, not imported: the parent never imports
    it)."""
    return importlib.util.find_spec(framework) is not None


class _Server:
    """One fork server of `framework`: its process, its socket, the import environment it was
    started with."""

    def __init__(self, env: dict[str, str], framework: str) -> None:
        self.folder = tempfile.mkdtemp(prefix="epochcost-forkserver-")
        self.path = os.path.join(self.folder, "socket")
        self.import_env = _import_env(env)
        self.started = time.monotonic()
        self.ready = False
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "engine.worker.forkserver", self.path, framework],
            stdin=subprocess.PIPE,  # its end is the server's end
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # a terminal's Ctrl-C is for the parent
        )

    def usable(self) -> bool:
        """Ready to fork (without waiting); False for good once it has died or never got ready."""
        if self.ready:
            return self.proc.poll() is None
        if self.proc.poll() is not None:
            return False
        assert self.proc.stdout is not None
        if select.select([self.proc.stdout], [], [], 0)[0]:
            self.ready = self.proc.stdout.readline().strip() == b"ready"
        return self.ready

    def alive(self) -> bool:
        """Running, and ready or still within READY_TIMEOUT_S of its start."""
        if self.usable():
            return True
        timed_out = time.monotonic() - self.started > READY_TIMEOUT_S
        return self.proc.poll() is None and not timed_out

    def stop(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()  # the server ends; its workers do not
        if not self.ready:
            self.proc.kill()  # still importing: nothing of it to keep, and no wait at exit
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        try:
            os.unlink(self.path)
            os.rmdir(self.folder)
        except OSError:
            pass


_lock = threading.Lock()
_servers: dict[str, _Server] = {}  # framework -> its server
# Frameworks whose server ended before it was ready: none is started again in this process.
_failed: set[str] = set()


def _ready(env: dict[str, str], framework: str, start: bool, timeout_s: float) -> _Server | None:
    """The server for `framework`'s workers of environment `env` once it is ready, waiting up
    to `timeout_s` for one that is starting; None when there is none (one is started first when
    `start`: a server of another environment is then replaced) or it is not ready in time."""
    deadline = time.monotonic() + timeout_s
    while True:
        server = _current(env, framework, start)
        if server is None or server.usable():
            return server
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.05)


def _current(env: dict[str, str], framework: str, start: bool) -> _Server | None:
    """The server for `framework` and `env`, ready or starting; None when none is (or may be
    started)."""
    with _lock:
        server = _servers.get(framework)
        if server is not None and not server.alive():
            if not server.ready:
                _failed.add(framework)
            server.stop()
            del _servers[framework]
            server = None
        if framework in _failed:
            return None
        if server is not None and server.import_env != _import_env(env):
            if not start:
                return None
            server.stop()  # the environment changed: a server for the new one
            del _servers[framework]
            server = None
        if server is None and start:
            server = _servers[framework] = _Server(env, framework)
        return server


def prewarm(spec: WorkerSpec | None = None, framework: str = "torch") -> None:
    """Start the server for `framework`'s workers of `spec` now, if none runs yet; do not
    wait."""
    spec = spec or WorkerSpec()
    if supported(spec, framework):
        _current(spec.environment(), framework, start=True)


def wait_ready(
    spec: WorkerSpec | None = None,
    framework: str = "torch",
    timeout_s: float = READY_TIMEOUT_S,
    import_env: dict[str, str] | None = None,
) -> bool:
    """Start the server for `spec`'s workers of `framework` if they may be forked and none
    runs, and wait until it is ready (a study's first run forked too); False if they may not
    be, or it is not ready by `timeout_s`. `import_env`: as spawn_forked's, the server's
    import under it (one of another environment is replaced)."""
    spec = spec or WorkerSpec()
    return supported(spec, framework) and (
        _ready(_environment(spec, import_env), framework, start=True, timeout_s=timeout_s)
        is not None
    )


def server_pid(framework: str = "torch") -> int | None:
    """The process id of `framework`'s running server (it outlives a run: a test's leftover
    check skips it)."""
    with _lock:
        server = _servers.get(framework)
        return server.proc.pid if server is not None and server.alive() else None


def server_pids() -> set[int]:
    """Every running server's process id."""
    return {pid for pid in map(server_pid, FRAMEWORKS) if pid is not None}


def shutdown() -> None:
    """Stop every server (their workers go on); the next runs start the usual way."""
    with _lock:
        for server in _servers.values():
            server.stop()
        _servers.clear()


atexit.register(shutdown)


def spawn_forked(
    spec: WorkerSpec,
    framework: str,
    args: list[str],
    later_env: dict[str, str] | None = None,
    import_env: dict[str, str] | None = None,
) -> ForkedWorker | None:
    """The worker `python -m engine.worker ARGS` of `spec`, forked from `framework`'s server
    (waiting for one that is starting); None when it cannot be: not supported, or no server for
    this environment (none is started here: a single run gains nothing from one, and its import
    would compete with the run). `later_env`: variables the worker gets on top of the spec's
    that nothing reads before the worker's own code (CUDA_VISIBLE_DEVICES is read at CUDA's
    first use, which the server never makes): a server of the spec's environment serves it.
    `import_env`: what the worker sets before its framework's import for this run
    (TrainingConfig.import_environment); a server that imported without it serves none."""
    if not supported(spec, framework):
        return None
    env = _environment(spec, import_env)
    server = _ready(env, framework, start=False, timeout_s=READY_TIMEOUT_S)
    if server is None:
        return None
    try:
        # The server stands between the worker and its reader (engine/measure/busy.py).
        server_env = {busy.SERVER_ENV: str(server.proc.pid)}
        return ForkedWorker(server.path, args, {**env, **(later_env or {}), **server_env})
    except OSError:
        return None  # the server went away between the two: this run starts the usual way


class ForkedWorker:
    """A forked worker, as the launcher uses a subprocess.Popen of one."""

    def __init__(self, path: str, args: list[str], env: dict[str, str]) -> None:
        self.returncode: int | None = None
        self._lock = threading.Lock()
        self._reply = b""
        pipes = [os.pipe() for _ in range(3)]  # stdin, stdout, stderr: (read, write) each
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        self._conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._conn.connect(path)
            request = {"argv": args, "env": env, "cwd": os.getcwd()}
            socket.send_fds(self._conn, [json.dumps(request).encode("utf-8")], theirs)
            self.pid = int(self._message(timeout=30.0)["pid"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            self._conn.close()
            for fd in (fd for pair in pipes for fd in pair):
                os.close(fd)
            raise OSError(f"the fork server did not start the worker: {exc}") from None
        for fd in theirs:
            os.close(fd)
        self.stdin: IO[str] = open(pipes[0][1], "w", encoding="utf-8", buffering=1)  # noqa: SIM115
        self.stdout: IO[str] = open(pipes[1][0], encoding="utf-8", errors="replace")  # noqa: SIM115
        self.stderr: IO[str] = open(pipes[2][0], encoding="utf-8", errors="replace")  # noqa: SIM115

    def _message(self, timeout: float | None) -> dict[str, Any]:
        """The server's next line; {} when none came within `timeout` (s)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._reply:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self._conn], [], [], left)[0]:
                return {}
            chunk = self._conn.recv(4096)
            if not chunk:
                raise OSError("the fork server closed the connection")
            self._reply += chunk
        line, _, self._reply = self._reply.partition(b"\n")
        return dict(json.loads(line))

    def poll(self) -> int | None:
        """The exit code, or None while the worker runs (or another thread waits for it)."""
        if not self._lock.acquire(blocking=False):
            return self.returncode
        try:
            return self._ended(0.0)
        finally:
            self._lock.release()

    def wait(self, timeout: float | None = None) -> int:
        with self._lock:
            code = self._ended(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(["engine.worker"], timeout or 0.0)
        return code

    def _ended(self, timeout: float | None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            try:
                message = self._message(timeout)
            except (OSError, ValueError):
                # The server died before the worker ended: the worker is another process's
                # child now, and only its presence says whether it still runs.
                if not _running(self.pid):
                    message = {"exit": -signal.SIGKILL}
                elif deadline is not None and time.monotonic() >= deadline:
                    return None
                else:
                    time.sleep(0.05)
                    continue
            if "exit" in message:
                self.returncode = int(message["exit"])
                self._conn.close()
            elif deadline is not None:
                return None
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            signal_group(self.pid, signal.SIGKILL)


def _running(pid: int) -> bool:
    """Whether process `pid` exists and has not ended (a zombie has)."""
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False
