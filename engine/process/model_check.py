"""Check a model file in a worker process: what the CLI (`epochcost models --model-file`) and
the GUI ("Add model file...") call. The file is never imported here; a file that hangs is
killed after a time limit, one that kills its interpreter is reported with the stderr tail.

The worker's side is engine/worker/workloads/model_file_check.py.
"""

from __future__ import annotations

import collections
import json
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core.errors import ConfigError
from engine.process import forked
from engine.process.launcher import STDERR_TAIL_LINES
from engine.process.spawn import OWN_GROUP, WorkerSpec, end_group, how_ended, spawn
from engine.process.watchdog import Watchdog
from engine.workloads.model_file_source import check_path, guess_framework, normalized

# Loading and building the file, and one small step on the CPU (s).
CHECK_TIMEOUT_S = 120.0
# Starting the worker and importing the framework, before the file is touched (s).
IMPORT_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class ModelCheck:
    """The verdict on a model file. `info` when it is usable (keys: see model_file_check);
    otherwise `kind` (config: the file is wrong; framework; crashed; cancelled), `message`,
    and `line` / `code` in the user's file where known."""

    path: str
    info: dict[str, Any] | None = None
    kind: str | None = None
    message: str = ""
    line: int | None = None
    code: str = ""
    traceback: str = ""
    stderr_tail: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.info is not None

    def to_dict(self) -> dict[str, Any]:
        if self.info is not None:
            return {"ok": True, **self.info}
        error = {"kind": self.kind, "message": self.message, "line": self.line, "code": self.code}
        return {"ok": False, "path": self.path, "error": error, "traceback": self.traceback}


def check_model_file(
    path: str,
    framework: str | None = None,
    *,
    spec: WorkerSpec | None = None,
    timeout_s: float = CHECK_TIMEOUT_S,
    batch_size: int = 2,
) -> ModelCheck:
    """Load, build and try the file in a fresh worker on the CPU; never raises for a bad file."""
    return ModelFileCheck(
        path, framework, spec=spec, timeout_s=timeout_s, batch_size=batch_size
    ).run()


class ModelFileCheck:
    """One check in its own worker. run() blocks until the verdict (call it off the GUI thread);
    cancel(), from any thread, kills the worker and run() returns kind "cancelled"."""

    def __init__(
        self,
        path: str,
        framework: str | None = None,
        *,
        spec: WorkerSpec | None = None,
        timeout_s: float = CHECK_TIMEOUT_S,
        batch_size: int = 2,
    ) -> None:
        self.path = str(path)
        self.framework = framework
        self.spec = spec or WorkerSpec()
        self.timeout_s = timeout_s
        self.batch_size = batch_size
        self._cancelled = threading.Event()
        self._proc: subprocess.Popen[str] | forked.ForkedWorker | None = None

    def cancel(self) -> None:
        self._cancelled.set()
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()

    def run(self) -> ModelCheck:
        try:
            checked = normalized(check_path(self.path))
        except ConfigError as exc:
            return ModelCheck(self.path, kind="config", message=exc.message)
        if self._cancelled.is_set():
            return ModelCheck(checked, kind="cancelled", message="cancelled")
        try:
            proc = self._proc = self._start(checked)
        except ConfigError as exc:  # a chosen interpreter that is gone or not executable
            return ModelCheck(checked, kind="config", message=exc.message)
        if self._cancelled.is_set():  # cancel() came while the process started
            proc.kill()
        tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        drain = threading.Thread(target=lambda: tail.extend(_lines(proc.stderr)), daemon=True)
        drain.start()
        try:
            verdict = _read_verdict(proc, checked, self.timeout_s, tail)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            if OWN_GROUP:  # whatever the file started ends with the check
                end_group(proc.pid)
            drain.join(timeout=2)
            for stream in (proc.stdout, proc.stderr):
                if stream:
                    stream.close()
        if self._cancelled.is_set():  # even a file that passed: the user asked not to add it
            return ModelCheck(checked, kind="cancelled", message="cancelled")
        return verdict

    def _start(self, checked: str) -> subprocess.Popen[str] | forked.ForkedWorker:
        # The check runs on the CPU: a framework that maps the whole GPU (TensorFlow) stays off.
        cpu = {"CUDA_VISIBLE_DEVICES": ""}
        args = ["check-model", "--model-file", checked, "--batch-size", str(self.batch_size)]
        if self.framework:
            args += ["--framework", self.framework]
        # A file's check forked from its framework's warm process where one runs (the app's):
        # no import of the framework, about 2.3 s sooner for PyTorch (engine/process/forked.py).
        framework = self.framework or guess_framework(checked)
        warm = forked.spawn_forked(self.spec, framework, args, later_env=cpu)
        if warm is not None:
            warm.stdin.close()  # input() in the file gets EOF, not a wait forever
            return warm
        return spawn(
            self.spec, args, env={**self.spec.environment(), **cpu}, stdin=subprocess.DEVNULL
        )


def _lines(stream: Any) -> Any:
    return (line.rstrip("\n") for line in stream)


def _read_verdict(
    proc: subprocess.Popen[str] | forked.ForkedWorker,
    path: str,
    timeout_s: float,
    tail: collections.deque[str],
) -> ModelCheck:
    dog = Watchdog(proc)
    dog.arm(IMPORT_TIMEOUT_S, f"the worker did not start within {IMPORT_TIMEOUT_S:g} s")
    # The building phase lasts to the verdict: the file's load and build, and one small step.
    building = (
        f"{Path(path).name} did not finish loading and building within {timeout_s:g} s "
        "(does it wait for input, download, or loop at import?)"
    )
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            try:
                data = json.loads(line)
            except ValueError:
                continue  # not ours: the worker keeps stdout for its JSON lines
            if not isinstance(data, dict):
                continue
            if data.get("type") == "phase" and data.get("phase") == "building":
                dog.time_building("building", timeout_s, building)
            elif data.get("type") == "model":
                return ModelCheck(path, info={k: v for k, v in data.items() if k != "type"})
            elif data.get("type") == "failed":
                return _failure(path, data)
        code = proc.wait()
    finally:
        dog.disarm()
    if dog.fired:
        return ModelCheck(path, kind="config", message=dog.fired, stderr_tail=list(tail))
    return _death(path, code, tail)


def _failure(path: str, data: dict[str, Any]) -> ModelCheck:
    return ModelCheck(
        path,
        kind=str(data.get("kind") or "crashed"),
        message=str(data.get("message") or ""),
        line=data.get("line") if isinstance(data.get("line"), int) else None,
        code=str(data.get("code") or ""),
        traceback=str(data.get("traceback") or ""),
    )


def _death(path: str, code: int, tail: collections.deque[str]) -> ModelCheck:
    lines = list(tail)
    how = how_ended(code)
    return ModelCheck(
        path,
        kind="crashed",
        message=(
            f"the worker ended without a verdict ({how}) while loading "
            f"{Path(path).name}: does the file exit the interpreter (os._exit) or "
            "crash Python?"
        ),
        traceback="\n".join(lines[-20:]),
        stderr_tail=lines,
    )
