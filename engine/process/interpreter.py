"""Can this Python interpreter run a worker for this framework? The GUI's Settings ask before a
framework's runs go to another environment (a conda env with another CUDA, the user's own
TensorFlow env): the interpreter is started with a short script, under a time limit, with the
environment a worker gets (PYTHONPATH to this engine's source), and what is missing comes back
in plain words.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from engine.process.launcher import WorkerSpec

# Importing TensorFlow alone takes 5-20 s on a busy laptop CPU.
CHECK_TIMEOUT_S = 120.0
# The engine runs on these; older ones fail at its first `X | Y` or dataclass(slots=...).
MIN_PYTHON = (3, 11)
# What the worker imports besides the standard library and the framework (pyproject's
# dependencies; pandas and nvidia-ml-py only where a catalog frame or an NVIDIA GPU is used).
ENGINE_NEEDS = ("numpy", "psutil", "platformdirs")
FRAMEWORK_MODULES = {"torch": "torch", "tensorflow": "tensorflow"}

# Runs under the interpreter being checked, which may be old: plain syntax, no f-strings.
_SCRIPT = """
import importlib.util, json, sys
framework, needs = sys.argv[1], sys.argv[3].split(",")
minimum = tuple(int(v) for v in sys.argv[2].split("."))
out = {"python": "%d.%d.%d" % tuple(sys.version_info[:3])}
out["engine_missing"] = [name for name in needs if importlib.util.find_spec(name) is None]
if tuple(sys.version_info[:2]) < minimum:
    out["too_old"] = True
elif not out["engine_missing"]:
    try:
        import engine
        import engine.worker.main, engine.worker.measure.runner, engine.worker.accuracy.runner
        out["engine"] = engine.__version__
    except Exception as exc:
        out["engine_error"] = "%s: %s" % (type(exc).__name__, exc)
try:
    module = __import__(framework)
    out["framework"] = str(getattr(module, "__version__", "unknown version"))
except ImportError as exc:
    out["framework_missing"] = exc.name
    out["framework_error"] = "%s: %s" % (type(exc).__name__, exc)
except Exception as exc:
    out["framework_error"] = "%s: %s" % (type(exc).__name__, exc)
sys.stdout.write("\\n" + json.dumps(out) + "\\n")
"""


@dataclass(frozen=True)
class InterpreterCheck:
    """The verdict: ok, or the problems in plain words; `versions` of what was found there
    (python, engine, and the framework by its name)."""

    python: str
    framework: str
    problems: tuple[str, ...] = ()
    versions: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def message(self) -> str:
        if self.problems:
            return "; ".join(self.problems)
        found = ", ".join(f"{name} {version}" for name, version in self.versions.items())
        return f"ok: {found}"


def check_interpreter(
    python: str,
    framework: str,
    *,
    timeout_s: float = CHECK_TIMEOUT_S,
    cancel: threading.Event | None = None,
) -> InterpreterCheck:
    """Start `python` with the check script; never raises for a bad interpreter. Blocks for up
    to timeout_s (call it off the GUI thread); setting `cancel` ends it early."""
    module = FRAMEWORK_MODULES.get(framework, framework)
    path = Path(python).expanduser()
    if not path.exists():
        return InterpreterCheck(python, framework, (f"{python} does not exist",))
    if path.is_dir() or not os.access(path, os.X_OK):
        return InterpreterCheck(python, framework, (f"{python} is not an executable file",))
    spec = WorkerSpec(python=str(path))
    minimum = ".".join(map(str, MIN_PYTHON))
    env = {**spec.environment(), "TF_CPP_MIN_LOG_LEVEL": "2"}
    try:
        proc = subprocess.Popen(
            [str(path), "-c", _SCRIPT, module, minimum, ",".join(ENGINE_NEEDS)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=env,
        )
    except OSError as exc:
        return InterpreterCheck(python, framework, (f"{python} could not be started: {exc}",))
    outcome = _wait(proc, timeout_s, cancel)
    if outcome is None:
        why = (
            "the check was cancelled"
            if cancel is not None and cancel.is_set()
            else (
                f"{python} did not answer within {timeout_s:g} s (it may hang importing {module})"
            )
        )
        return InterpreterCheck(python, framework, (why,))
    stdout, stderr = outcome
    found = _last_json(stdout)
    if found is None:
        last = stderr.strip().splitlines()[-1:] or ["no output"]
        return InterpreterCheck(
            python,
            framework,
            (
                f"{python} did not answer as a Python interpreter does (exit code "
                f"{proc.returncode}: {last[0]})",
            ),
        )
    return _verdict(python, framework, module, found)


def _wait(
    proc: subprocess.Popen[str], timeout_s: float, cancel: threading.Event | None
) -> tuple[str, str] | None:
    """The process's output once it ends; None (and it is killed) past the limit or on cancel."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return proc.communicate(timeout=0.2)
        except subprocess.TimeoutExpired:
            if time.monotonic() < deadline and not (cancel is not None and cancel.is_set()):
                continue
            proc.kill()
            proc.communicate()
            return None


def _last_json(stdout: str) -> dict[str, object] | None:
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        return value if isinstance(value, dict) else None
    return None


def _verdict(
    python: str, framework: str, module: str, found: dict[str, object]
) -> InterpreterCheck:
    problems: list[str] = []
    versions = {"Python": str(found.get("python", "?"))}
    if found.get("too_old"):
        problems.append(
            f"its Python {versions['Python']} is too old: the engine needs Python "
            f"{'.'.join(map(str, MIN_PYTHON))} or newer"
        )
    if found.get("framework_missing") == module:
        problems.append(f"{module} is not installed there (install it in that environment)")
    elif "framework_error" in found:
        problems.append(
            f"{module} is installed there but does not import: {found['framework_error']}"
        )
    else:
        versions[module] = str(found.get("framework"))
    missing = found.get("engine_missing")
    if isinstance(missing, list) and missing:
        names = ", ".join(map(str, missing))
        which = "which is" if len(missing) == 1 else "which are"
        problems.append(
            f"the engine needs {names}, {which} not installed there "
            f"(pip install {' '.join(map(str, missing))})"
        )
    elif "engine_error" in found:
        problems.append(f"the engine does not load there: {found['engine_error']}")
    elif "engine" in found:
        versions["epochcost engine"] = str(found["engine"])
    return InterpreterCheck(python, framework, tuple(problems), versions)
