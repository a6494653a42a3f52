"""The one seam through which epochcost reaches a cloud: `SkyPilot`, a client of the cloud
program (engine/cloud_program/main.py) run with the cloud environment's Python.

The app and the CLI never import `sky`: SkyPilot lives in an environment of its own (`epochcost
env create --cloud`, engine/envs/cloud_env.py), whose Python runs the program once per call
and answers in JSON lines. A launch runs in its own session (a Ctrl-C at the terminal reaches
epochcost, which cancels the request and tears down; it never kills SkyPilot's client half way),
and its request id comes back first, so that a cancel can reach SkyPilot's API server.
Tests replace this object alone above the boundary, and run the program for real below it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.core import paths
from engine.core.errors import ConfigError
from engine.process import spawn

INSTALL_HINT = (
    "the cloud environment (SkyPilot) is not made yet: run `epochcost env create --cloud` "
    "(once; about 1.3 GB under the data folder)"
)
CHECK_HINT = "run `sky check` (in the cloud environment) to see which clouds your credentials reach"


class SkyError(Exception):
    """SkyPilot failed in the program: its exception's class, its first line, and whether an
    instance may have run (False: SkyPilot refused before provisioning)."""

    def __init__(self, kind: str, message: str, provisioned: bool | None) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind, self.message, self.provisioned = kind, message, provisioned


def cloud_python() -> Path:
    """The cloud environment's Python; ConfigError saying how to make it."""
    override = os.environ.get(paths.CLOUD_PYTHON_ENV)
    candidates = [Path(override)] if override else []
    candidates.append(paths.cloud_env() / "bin" / "python")
    for python in candidates:
        if python.is_file() and os.access(python, os.X_OK):
            return python
    raise ConfigError("cloud", INSTALL_HINT)


def call(
    operation: str,
    request: dict[str, Any],
    on_line: Callable[[str], None] = lambda _l: None,
    on_request: Callable[[str], None] = lambda _r: None,
    python: Path | None = None,
    timeout_s: float | None = None,
    cancel: threading.Event | None = None,
) -> Any:
    """Run one operation of the cloud program; its answer, or SkyError. Lines SkyPilot writes
    go to `on_line`, a request id to `on_request`; a KeyboardInterrupt (or any exception from
    a callback) stops the program's whole session and is raised on, as `cancel` set (from
    another thread) or `timeout_s` passed stop it (SkyError)."""
    proc = start(operation, python or cloud_python())
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(tail_of(proc.stderr)), daemon=True)
    timer = threading.Timer(timeout_s, spawn.stop_session, (proc,)) if timeout_s else None
    answer: Any = None
    failure: SkyError | None = None
    try:
        # Starting a thread waits for it: a Ctrl-C landing there ends the program too.
        reader.start()
        if cancel is not None:
            threading.Thread(target=_stop_on, args=(cancel, proc), daemon=True).start()
        if timer:
            timer.start()
        assert proc.stdin is not None and proc.stdout is not None
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.write(json.dumps(request))
            proc.stdin.close()
        for raw in proc.stdout:
            message = message_of(raw)
            if message is None:
                continue
            kind = message.get("kind")
            if kind == "line":
                on_line(str(message.get("text", "")))
            elif kind == "request":
                on_request(str(message.get("id", "")))
            elif kind == "answer":
                answer = message.get("answer")
            elif kind == "error":
                provisioned = message.get("provisioned")
                failure = SkyError(
                    str(message.get("type")),
                    str(message.get("message")),
                    None if provisioned is None else bool(provisioned),
                )
        code = proc.wait()
    except BaseException:
        spawn.stop_session(proc)
        raise
    finally:
        if timer:
            timer.cancel()
        if reader.ident is not None:  # started
            reader.join(timeout=5)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    if failure is not None:
        raise failure
    if code != 0:
        last = next((line for line in reversed(err) if line.strip()), f"exit code {code}")
        raise SkyError("CloudProgramFailed", last.strip(), None)
    return answer


def start(operation: str, python: Path) -> subprocess.Popen[str]:
    """The cloud program running `operation` (or `serve`: engine/cloud/check_server.py) with
    `python`, text pipes on its three streams, in a session of its own (a Ctrl-C at the
    terminal is epochcost's, not SkyPilot's)."""
    return subprocess.Popen(
        [str(python), "-I", str(paths.cloud_program()), operation],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,
    )


def _stop_on(cancel: threading.Event, proc: subprocess.Popen[str]) -> None:
    while proc.poll() is None:
        if cancel.wait(0.2):
            spawn.stop_session(proc)
            return


def message_of(raw: str) -> dict[str, Any] | None:
    try:
        message = json.loads(raw)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def tail_of(stream: Any, keep: int = 40) -> list[str]:
    lines: list[str] = []
    for line in stream:
        lines = (lines + [line])[-keep:]
    return lines


class _Sink:
    """Hands each line to an output stream (a text stream a caller gave)."""

    def __init__(self, output: io.TextIOBase) -> None:
        self._output = output

    def __call__(self, line: str) -> None:
        self._output.write(line + "\n")


class SkyPilot:
    """Launch, exec, logs and teardown through the cloud program (a client of SkyPilot's API
    server, which SkyPilot starts locally when none runs). Each method blocks until it ends."""

    def __init__(self) -> None:
        self._launch_request: str | None = None
        self.python = cloud_python()

    def _remember(self, request: str) -> None:
        self._launch_request = request

    def launch(self, task: dict[str, Any], cluster: str, output: io.TextIOBase) -> int:
        """Provision `cluster`, run setup, submit the task's job; returns the job id. The
        cluster goes down when the job ends (down=True) and after its autostop (the task's
        resources) idle."""
        return self._submit("launch", task, cluster, output)

    def exec(self, task: dict[str, Any], cluster: str, output: io.TextIOBase) -> int:
        """Submit the task's job to `cluster`, which is up (sky exec); returns the job id."""
        return self._submit("exec", task, cluster, output)

    def _submit(self, op: str, task: dict[str, Any], cluster: str, output: io.TextIOBase) -> int:
        answer = call(
            op, {"task": task, "cluster": cluster}, _Sink(output), self._remember, self.python
        )
        self._launch_request = None
        job_id = (answer or {}).get("job_id")
        if job_id is None:
            raise ConfigError("cloud", f"SkyPilot started {cluster} but submitted no job")
        return int(job_id)

    def follow(self, cluster: str, job_id: int, output: io.TextIOBase) -> int:
        """Stream the job's log to `output` until it ends; its exit code (0: succeeded)."""
        answer = call(
            "follow", {"cluster": cluster, "job_id": job_id}, _Sink(output), python=self.python
        )
        return int((answer or {}).get("exit_code", 1))

    def download_log(self, cluster: str, job_id: int, folder: Path) -> Path:
        """The job's log on this machine (SkyPilot's log download): its run.log."""
        answer = call("download", {"cluster": cluster, "job_id": job_id}, python=self.python)
        found = (answer or {}).get("path")
        if not found or not Path(found).is_file():
            raise ConfigError("cloud", f"SkyPilot's log download of {cluster} holds no log")
        target = folder / f"{cluster}-job{job_id}.log"
        target.write_bytes(Path(found).read_bytes())
        return target

    def cancel_launch(self) -> None:
        """From another thread: cancel a launch still under way on SkyPilot's API server."""
        request = self._launch_request
        if request is not None:
            call("cancel", {"request": request}, python=self.python, timeout_s=60)

    def down(self, cluster: str, output: io.TextIOBase | None = None) -> None:
        """Tear the cluster down (terminate: nothing keeps billing); a launch still pending on
        SkyPilot's API server is cancelled first."""
        if self._launch_request is not None:
            with contextlib.suppress(SkyError):
                call("cancel", {"request": self._launch_request}, python=self.python, timeout_s=60)
            self._launch_request = None
        sink = _Sink(output) if output is not None else (lambda _l: None)
        call("down", {"cluster": cluster}, sink, python=self.python, timeout_s=900)

    def status(self, cluster: str) -> str | None:
        """The cluster's status as SkyPilot knows it (UP, INIT, STOPPED), None when it is
        gone."""
        answer = call("status", {"cluster": cluster}, python=self.python, timeout_s=120)
        found = (answer or {}).get("status")
        return None if found is None else str(found)

    def down_command(self, cluster: str) -> str:
        """The command that tears the cluster down by hand."""
        return f"{self.python.parent / 'sky'} down -y {cluster}"


def launch_failure(exc: BaseException) -> tuple[str, bool]:
    """A failed launch in one line, pointing to `sky check`, and whether an instance may have
    come up (a failure in setup or on the node may be billed; SkyPilot's refusals before
    provisioning, such as no credentials or no capacity, are not)."""
    if isinstance(exc, SkyError):
        billed = exc.provisioned is not False
        first = f"{exc.kind}: {exc.message}"
    elif isinstance(exc, ConfigError):
        billed, first = True, exc.message
    else:
        billed, first = True, f"{type(exc).__name__}: {exc}"
    why = "an instance may have run" if billed else "no instance came up"
    return f"the launch failed ({first}; {why}); {CHECK_HINT}", billed
