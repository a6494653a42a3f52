"""SkyPilot's dry-run check from a warm cloud program: one process of the cloud program
(`main.py serve`, engine/cloud_program/main.py) per process of epochcost, kept between checks.

A check run afresh imports SkyPilot (about 1.3 s) and looks up each cloud's catalog and
identity (about 0.7 s for AWS) before it answers; the warm program pays that once, and a later
check of the same catalog answers in tens of milliseconds (benchmarks/RESULTS.md, issue 42).
It is the same program and the same `check` as a one-off run, with the same SkyPilot home:
the catalog snapshot's folder (engine/cloud/sky_catalog.py), named by its content.

One check at a time (a second waits for the first, or for its own cancel). Any failure (a
cancel, a timeout, an interrupt, the program's own error line) ends the program (its whole
session), and the next check starts another, as do another catalog, its SkyPilot home removed
and the cloud environment made again. It ends by itself when this process ends (its stdin
closes) or after IDLE_S with no check (it holds about 220 MB).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import queue
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.cloud.skypilot import SkyError, message_of, start, tail_of
from engine.process import spawn

IDLE_S = 600.0  # the program ends after this long without a check
_POLL_S = 0.2  # how often a wait looks at its cancel


@dataclass
class _Server:
    proc: subprocess.Popen[str]
    key: tuple[str, str, int]  # the cloud Python, the catalog snapshot's name, the env's make
    root: Path  # the snapshot folder it was started with (its SkyPilot home)
    messages: queue.SimpleQueue[dict[str, Any] | None] = field(default_factory=queue.SimpleQueue)
    err: list[str] = field(default_factory=list)
    last_used: float = field(default_factory=time.monotonic)
    threads: list[threading.Thread] = field(default_factory=list)

    def read(self) -> None:
        """The reader thread: each JSON message of stdout, then None at its end."""
        assert self.proc.stdout is not None
        with self.proc.stdout:
            for raw in self.proc.stdout:
                message = message_of(raw)
                if message is not None:
                    self.messages.put(message)
        self.messages.put(None)

    def tail(self) -> None:
        assert self.proc.stderr is not None
        with self.proc.stderr:
            self.err.extend(tail_of(self.proc.stderr))

    def send(self, request: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass  # it has ended: the reader says so (None), with its last line of stderr

    def wait_for(self, kind: str, deadline: float, cancel: threading.Event | None) -> Any:
        """The next message of `kind` ("ready", "answer"); SkyError for its "error" line, a
        cancel, the deadline or the program's end."""
        while True:
            _go_on(deadline, cancel)
            try:
                message = self.messages.get(timeout=_POLL_S)
            except queue.Empty:
                continue
            if message is None:
                self.proc.wait()
                self.threads[1].join(timeout=5)  # stderr to its end: its last line says why
                last = next((x for x in reversed(self.err) if x.strip()), "")
                why = last.strip() or f"the cloud program ended (exit code {self.proc.returncode})"
                raise SkyError("CloudProgramFailed", why, False)
            if message.get("kind") == "error":
                raise SkyError(str(message.get("type")), str(message.get("message")), False)
            if message.get("kind") == kind:
                return message.get("answer")


def _go_on(deadline: float, cancel: threading.Event | None) -> None:
    """SkyError once `cancel` is set or the deadline has passed (a check provisions nothing)."""
    if cancel is not None and cancel.is_set():
        raise SkyError("Cancelled", "stopped", False)
    if time.monotonic() > deadline:
        raise SkyError("Timeout", "SkyPilot's check did not answer in time", False)


_LOCK = threading.Lock()
_SERVER: _Server | None = None


def check(
    python: Path,
    root: Path,
    tasks: list[dict[str, Any]],
    timeout_s: float,
    cancel: threading.Event | None = None,
) -> Any:
    """The program's answer to `check` for `tasks` against the catalog snapshot `root`
    (engine/cloud/sky_catalog.runtime_dir), from the warm program, started here if none fits.
    SkyError (a check provisions nothing) as a one-off run's: SkyPilot's own failure, or
    "Cancelled", "Timeout", "CloudProgramFailed" (the program's last line of stderr)."""
    global _SERVER
    deadline = time.monotonic() + timeout_s
    while not _LOCK.acquire(timeout=_POLL_S):  # another check first
        _go_on(deadline, cancel)
    try:
        server = _fitting(python, root, deadline, cancel)
        server.last_used = time.monotonic()
        try:
            server.send({"tasks": tasks})
            return server.wait_for("answer", deadline, cancel)
        except BaseException:  # an answer left unread would be the next check's
            _stop(server)
            _SERVER = None
            raise
    finally:
        _LOCK.release()


def _fitting(python: Path, root: Path, deadline: float, cancel: threading.Event | None) -> _Server:
    """The warm program for this Python, environment and catalog, started if there is none (one
    at a time: another's is ended)."""
    global _SERVER
    key = (str(python), root.name, _made(python))
    server = _SERVER
    if server is not None:
        stale = (
            server.key != key
            or server.proc.poll() is not None
            or not (server.root / ".complete").is_file()  # its SkyPilot home was removed
            or time.monotonic() - server.last_used > IDLE_S - 30.0  # about to end by itself
        )
        if not stale:
            return server
        _stop(server)
        _SERVER = None
    _go_on(deadline, cancel)
    server = _start(python, root, key)
    try:
        server.wait_for("ready", deadline, cancel)
    except BaseException:
        _stop(server)
        raise
    _SERVER = server
    return server


def _made(python: Path) -> int:
    """When the cloud environment was made (its pyvenv.cfg; 0 for a Python of no environment):
    an environment made again holds another SkyPilot than the one the program imported."""
    try:
        return (python.parent.parent / "pyvenv.cfg").stat().st_mtime_ns
    except OSError:
        return 0


def _start(python: Path, root: Path, key: tuple[str, str, int]) -> _Server:
    server = _Server(start("serve", python), key, root)
    server.threads = [
        threading.Thread(target=server.read, name="epochcost-check-reader", daemon=True),
        threading.Thread(target=server.tail, name="epochcost-check-stderr", daemon=True),
    ]
    for thread in server.threads:
        thread.start()
    server.send({"runtime_dir": str(root), "idle_s": IDLE_S})
    return server


def _stop(server: _Server) -> None:
    """End the program and its session; its reader threads close stdout and stderr at their
    end."""
    if server.proc.stdin is not None:
        with contextlib.suppress(OSError):
            server.proc.stdin.close()
    spawn.stop_session(server.proc, grace_s=2.0)


def server_pids() -> set[int]:
    """The warm program's pid, while one runs (the tests' check for processes left behind)."""
    server = _SERVER
    return {server.proc.pid} if server is not None and server.proc.poll() is None else set()


def shutdown() -> None:
    """End the warm program (at this process's exit; a test that needs none). Without waiting
    for a check under way in another thread: it fails as the program ends. One still starting
    ends by itself once this process has (its stdin closes)."""
    global _SERVER
    server, _SERVER = _SERVER, None
    if server is not None:
        _stop(server)


atexit.register(shutdown)
