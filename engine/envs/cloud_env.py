"""The cloud environment: the newest SkyPilot in a virtual environment of its own, under the
data folder's envs/cloud, made as framework environments are (uv, else pip; progress; cancel;
nothing half-made left). The cloud program (engine/cloud_program/main.py) runs with its
Python; the app's and the CLI's own environment never holds SkyPilot, so no tool of theirs
(a linter's click, fastapi) pins it.

SKYPILOT is the release the program is written and tested against; the extras are the clouds
the catalog prices, so that a user's credentials for any of them work (`sky check`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from engine.core import paths
from engine.core.errors import ConfigError
from engine.envs import leftovers
from engine.envs.create import MARKER, busy, own_envs_home, python_in, read_about, write_about
from engine.envs.installer import (
    Cancelled,
    InstallFailed,
    Progress,
    find_python,
    find_uv,
    run_step,
)

SKYPILOT = "skypilot==0.14.1"
# Azure's SDK (msgraph, azure): 30,600 of the environment's 40,500 Python files, imported only
# by an Azure launch. The rest is compiled when the environment is made, as pip would (SkyPilot's
# API server runs without -I: where Python writes no .pyc it would compile SkyPilot at each
# start); Azure's SDK is compiled by the first import that needs it. Compiling when it is made:
# 12.7 s against 34.1 s (benchmarks/RESULTS.md, issue 42).
LEFT_TO_FIRST_IMPORT = r"site-packages[/\\](msgraph|azure)[/\\]"
CLOUD_EXTRAS = ("aws", "gcp", "azure", "lambda", "runpod", "paperspace")
REASON = "SkyPilot for cloud runs (epochcost cloud), in its own environment"


def requirement(clouds: tuple[str, ...] = CLOUD_EXTRAS) -> str:
    """What the environment installs: SkyPilot with the clouds' extras."""
    name, _, version = SKYPILOT.partition("==")
    return f"{name}[{','.join(clouds)}]=={version}" if clouds else SKYPILOT


def compile_step(python: str, folder: Path) -> list[str]:
    """Compile the environment's modules but Azure's SDK (LEFT_TO_FIRST_IMPORT)."""
    return [
        python,
        "-m",
        "compileall",
        "-q",
        "-j",
        "0",
        "-x",
        LEFT_TO_FIRST_IMPORT,
        str(folder / "lib"),
    ]


def target() -> Path:
    return paths.cloud_env()


def check(python: Path) -> str:
    """The cloud program's version answer from `python` ("skypilot 0.14.1, catalog v8");
    InstallFailed when it does not answer."""
    try:
        out = subprocess.run(
            [str(python), "-I", str(paths.cloud_program()), "version"],
            input="{}",
            capture_output=True,
            text=True,
            timeout=300,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise InstallFailed(f"the cloud environment does not run: {exc}") from None
    for line in out.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("kind") == "answer":
            answer = message["answer"]
            return f"skypilot {answer['skypilot']}, catalog {answer['catalog_schema']}"
    raise InstallFailed(f"the cloud program does not answer: {out.stderr.strip()[-500:]}")


def create(
    clouds: tuple[str, ...] = CLOUD_EXTRAS,
    *,
    python: str | None = None,
    installer: str = "auto",
    progress: Callable[[Progress], None] = lambda _p: None,
    cancel: threading.Event | None = None,
) -> tuple[Path, str, bool]:
    """Make (or keep) the cloud environment: its Python, its check line, whether it was kept.
    ConfigError for what the user can fix, InstallFailed, Cancelled; nothing half-made is
    left after any of them."""
    own_envs_home()  # never made through a link (create.own_envs_home)
    folder = target()
    cancel = cancel or threading.Event()
    wanted = requirement(clouds)
    if folder.is_symlink():
        raise ConfigError("cloud", f"{folder} is a link: epochcost makes nothing through it")
    if folder.exists() and not (folder / MARKER).exists():
        about = read_about(folder)
        held = about.get("choice")
        if isinstance(held, dict) and held.get("label") == wanted:
            try:
                return python_in(folder), check(python_in(folder)), True
            except InstallFailed:
                pass
        if not about:
            raise ConfigError(
                "cloud",
                f"{folder} is there and epochcost did not make it: move it away first",
            )
    busy(folder)  # another epochcost making it now
    shutil.rmtree(folder, ignore_errors=True)
    base = python or find_python()
    uv = find_uv() if installer in ("auto", "uv") else None
    if installer == "uv" and uv is None:
        raise ConfigError("installer", "no uv here: install PyPI's uv, or use pip")
    if base is None and uv is None:
        raise ConfigError("python", "no Python 3.11 or newer here, and no uv to fetch one")
    done = Progress()
    try:
        folder.mkdir(parents=True)
        leftovers.write_marker(folder)
        env_python = str(python_in(folder))
        if uv:
            venv = [uv, "venv", "--allow-existing", "--seed", str(folder)]
            venv += ["--python", base] if base else ["--python", ">=3.11"]
            install = [uv, "pip", "install", "--python", env_python]
            steps = [venv, [*install, wanted]]
        else:
            assert base is not None
            pip = [env_python, "-m", "pip", "install", "--no-compile", "--progress-bar", "off"]
            steps = [[base, "-m", "venv", str(folder)], [*pip, wanted]]
        steps.append(compile_step(env_python, folder))
        for command in steps:
            run_step(
                command, done, progress, cancel, lambda pid: leftovers.write_marker(folder, pid)
            )
        line = check(python_in(folder))
        if cancel.is_set():
            raise Cancelled
        choice = {"framework": "cloud", "label": wanted, "reason": REASON}
        write_about(folder, choice, "uv" if uv else "pip")
        (folder / MARKER).unlink()
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return python_in(folder), line, False
