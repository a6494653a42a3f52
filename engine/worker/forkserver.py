"""A warm process that forks workers of one framework: the framework imported once, each worker
forked from it.

A worker's start is mostly its framework's import: torch and torch._dynamo (about 3 s of the 4 s
of a short CPU run here: benchmarks/RESULTS.md, issue 42), or tensorflow and keras (about 2 s).
The parent's launcher (engine/process/forked.py) starts this process once a framework, with the
environment a worker gets, and asks it for each later worker: the child starts with the
framework imported and runs the same `engine.worker` entry as `python -m engine.worker` would,
with the request's arguments, environment, folder and standard streams.

    python -m engine.worker.forkserver SOCKET_PATH [torch|tensorflow]

Protocol, on the Unix socket at SOCKET_PATH (one connection per worker): the parent sends one
JSON line {"argv": [...], "env": {...}, "cwd": "..."} with three file descriptors (the
worker's stdin, stdout and stderr) attached; the server answers {"pid": N} once the worker is
forked and leads a session of its own (a kill of its group reaches it), and {"exit": CODE}
when it has ended (CODE as subprocess's returncode: -N for signal N), then closes the
connection. "ready" on the server's stdout says it listens; the end of its
stdin (the parent gone or done with it) ends it. Its workers live on: each is a session of its
own, ended by its parent as any worker is (engine/process/spawn.py).

The same memory figure as a fresh process: a forked child holds its parent's heap, but not the
library pages the import read (file pages enter a child's page tables only as it touches them),
about 300 MB of resident memory that a fresh worker's peak (ru_maxrss) counts. The server
notes which library pages its import left resident, and each child maps those in before its
run (madvise MADV_POPULATE_READ), so that its resident size and peak start where a fresh
worker's do (measured: 677,572 kB forked against 677,548 kB in the server).

Only what the framework's import reads is shared: nothing here imports the engine beyond this
module and engine/worker/quiet.py (the environment a worker sets before its import, set here
too), and each child sets its own environment before importing the worker's code. No thread of
ours runs here (fork copies only the thread that calls it); no GPU is touched (a CUDA context
does not survive a fork), and TensorFlow's runtime is not started (its thread counts and
devices are the worker's to set).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import select
import signal
import socket
import struct
import sys
from typing import Any, NoReturn

from engine.worker import quiet

MAX_REQUEST_BYTES = 1 << 20  # a config's JSON is a few kB; a model file's path list no more
MADV_POPULATE_READ = 22  # Linux 5.14 and newer; older kernels refuse it (EINVAL)


def _warm(framework: str) -> None:
    """What every worker of `framework` imports first (engine/worker/measure/session.py's
    load(), and Keras for TensorFlow: engine/worker/frameworks/tensorflow/runtime.py)."""
    import numpy  # noqa: F401
    import psutil  # noqa: F401

    quiet.before_import()
    if framework == "torch":
        import torch  # noqa: F401
        import torch._dynamo  # noqa: F401
    else:
        os.environ["KERAS_BACKEND"] = "tensorflow"  # as start_runtime() sets it
        import keras  # noqa: F401
        import tensorflow  # noqa: F401
    if _cuda_driver_loaded():
        # A CUDA context does not survive a fork. Neither framework loads the driver as it is
        # imported (it does at its first use of a GPU); one that did is not served.
        raise SystemExit("the import loaded the CUDA driver: its workers start fresh")


def _cuda_driver_loaded(maps_path: str = "/proc/self/maps") -> bool:
    """Whether the CUDA driver (libcuda) is mapped into this process."""
    with open(maps_path) as maps:
        return any("/libcuda.so" in line for line in maps)


def resident_library_pages() -> list[tuple[int, int]]:
    """(address, length) of each run of pages of this process's file mappings that are in its
    page tables now (/proc/self/pagemap's present bit)."""
    page = os.sysconf("SC_PAGE_SIZE")
    runs: list[tuple[int, int]] = []
    with open("/proc/self/maps") as maps, open("/proc/self/pagemap", "rb") as pagemap:
        for line in maps:
            fields = line.split()
            if len(fields) < 6 or not fields[5].startswith("/") or not fields[1].startswith("r"):
                continue
            low, high = (int(x, 16) for x in fields[0].split("-"))
            pagemap.seek(low // page * 8)
            entries = pagemap.read((high - low) // page * 8)
            start = None
            for i, (entry,) in enumerate(struct.iter_unpack("Q", entries)):
                if entry >> 63 and start is None:
                    start = i
                elif not entry >> 63 and start is not None:
                    runs.append((low + start * page, (i - start) * page))
                    start = None
            if start is not None:
                runs.append((low + start * page, len(entries) // 8 * page - start * page))
    return runs


def populate(runs: list[tuple[int, int]]) -> None:
    """Map the pages of `runs` into this process's page tables (read, never copied)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    page = os.sysconf("SC_PAGE_SIZE")
    for address, length in runs:
        if libc.madvise(address, length, MADV_POPULATE_READ) != 0:
            if ctypes.get_errno() != errno.EINVAL:
                raise OSError(ctypes.get_errno(), "madvise(MADV_POPULATE_READ) failed")
            for at in range(address, address + length, page):  # an older kernel: touch each
                ctypes.string_at(at, 1)


class Server:
    def __init__(self, path: str) -> None:
        self.resident = resident_library_pages()  # after the import: what a child maps in
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(16)
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes select (set_wakeup_fd)
        self.children: dict[int, socket.socket] = {}  # pid -> its parent's connection

    def serve(self) -> None:
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        stdin = sys.stdin.fileno()
        while True:
            readable, _, _ = select.select([self.listener, self.wake_r, stdin], [], [])
            if self.wake_r in readable:
                os.read(self.wake_r, 4096)
            self._reap()
            if stdin in readable and not os.read(stdin, 4096):
                return  # the parent is gone or done: the workers forked so far live on
            if self.listener in readable:
                self._accept()

    def _accept(self) -> None:
        conn, _ = self.listener.accept()
        fds: list[int] = []
        try:
            data, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST_BYTES, 3)
            request = json.loads(data.decode("utf-8"))
            if len(fds) != 3:
                raise ValueError(f"{len(fds)} file descriptors, not 3")
        except (OSError, ValueError) as exc:
            _answer(conn, {"error": f"a request this server cannot read: {exc}"})
            _close(conn, fds)
            return
        session_r, session_w = os.pipe()
        try:
            pid = os.fork()
        except OSError as exc:  # no process to be had (EAGAIN, ENOMEM): the parent starts one
            _answer(conn, {"error": f"fork failed: {exc}"})
            _close(conn, [*fds, session_r, session_w])
            return
        if pid == 0:
            os.close(session_r)
            self._child(request, fds, conn, session_w)
        os.close(session_w)
        for fd in fds:  # the worker's now: its stdin's end comes when its parent closes it
            os.close(fd)
        # The pid goes out once the child leads a session (and group) of its own: a kill of
        # the group at once (a check cancelled as it starts) found none before, and the
        # worker ran on. A byte, or the end of the pipe if the child died first.
        os.read(session_r, 1)
        os.close(session_r)
        self.children[pid] = conn
        _answer(conn, {"pid": pid})

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is not None:
                _answer(conn, {"exit": os.waitstatus_to_exitcode(status)})
                conn.close()

    def _child(
        self, request: dict[str, Any], fds: list[int], conn: socket.socket, session_w: int
    ) -> NoReturn:
        """In the forked worker: this server's files closed, the request's streams, session,
        signals, environment and folder taken, then the worker's own entry (which exits)."""
        code = 1
        try:
            signal.set_wakeup_fd(-1)
            # The one handler this server set; the rest are a fresh interpreter's (SIGPIPE
            # ignored, SIGINT a KeyboardInterrupt), and the worker sets its own.
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for held in (conn, self.listener, *self.children.values()):
                held.close()
            os.close(self.wake_r)
            os.close(self.wake_w)
            os.setsid()  # a session of its own, as spawn() starts a worker
            os.write(session_w, b"s")  # the server may say the pid now (_accept)
            os.close(session_w)
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
            # PYTHONUNBUFFERED, as spawn() sets it: each event reaches the parent at once.
            sys.stdout = open(1, "w", encoding="utf-8", buffering=1, closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", encoding="utf-8", buffering=1, closefd=False)  # noqa: SIM115
            populate(self.resident)  # a failure is said on the worker's own stderr
            os.environ.clear()
            os.environ.update(request["env"])
            os.chdir(request["cwd"])
            paths = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
            sys.path[:0] = [p for p in paths if p not in sys.path]
            sys.argv = ["-m", *request["argv"]]
            from engine.worker.main import entry

            entry(request["argv"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)


def _close(conn: socket.socket, fds: list[int]) -> None:
    conn.close()
    for fd in fds:
        os.close(fd)


def _answer(conn: socket.socket, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # the parent has gone: nobody waits for the answer
        conn.sendall((json.dumps(message) + "\n").encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2) or args[1:] not in ([], ["torch"], ["tensorflow"]):
        sys.stderr.write(
            "usage: python -m engine.worker.forkserver SOCKET_PATH [torch|tensorflow]\n"
        )
        return 2
    _warm(args[1] if len(args) == 2 else "torch")
    Server(args[0]).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
