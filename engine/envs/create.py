"""Make a framework environment for the worker: a virtual environment under the data folder's
envs/, the framework build engine/envs/choice.py picked, the worker side of this epochcost, a
check by the interpreter check every environment passes, and its registration as that
framework's worker Python (engine/process/environments.py).

It installs with uv (PyPI's `uv`: the app ships it) where there is one, else with pip. It
reports progress (packages, bytes downloaded) from the installer's own lines, can be cancelled
between any two of them, and leaves nothing half-made: the folder carries a marker until the
environment passes its check, and a cancel, a failure, an interrupt (Ctrl-C, or a signal the
command turns into one) or an interrupted earlier attempt ends the installer's whole process
group and removes it. What it made says so (the marker, then its about file): `env remove`
removes nothing else, and nothing reached through a link (engine/envs/installed.py). Where
PyTorch's own index cannot be reached, the choice's fallback (PyPI's build that fits, or a CPU
build) is taken, and the report says which.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import sys
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from engine.core import paths
from engine.core.errors import ConfigError
from engine.envs import leftovers
from engine.envs.choice import Choice
from engine.envs.installer import (
    Cancelled,
    InstallFailed,
    Progress,
    find_python,
    find_uv,
    run_step,
)
from engine.process import environments
from engine.process.interpreter import ENGINE_NEEDS, MIN_PYTHON, check_interpreter

ENVS_FOLDER = leftovers.ENVS_FOLDER
MARKER = leftovers.MARKER  # present until the environment passed its check
ABOUT = "epochcost-env.json"  # what was installed, from where and why
INDEX_TIMEOUT_S = 8.0
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class Created:
    """A made (or kept) environment: its Python, what it holds, and how it was made."""

    name: str
    python: Path
    choice: Choice
    installer: str
    message: str  # the interpreter check's "ok: python 3.11.7, engine 0.1.0, torch 2.7.1"
    kept: bool = False


def _version(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def envs_home(create: bool = False) -> Path:
    """The data folder's envs/ (made when `create`)."""
    folder = paths.home(create=create) / ENVS_FOLDER
    if create:
        folder.mkdir(exist_ok=True)
    return folder


def own_envs_home(create: bool = False) -> Path:
    """envs_home, refused when it is a link: environments are made and removed only inside the
    data folder, never in a folder a link leads to (`env remove photos` through a link to the
    user's files)."""
    folder = envs_home()
    if folder.is_symlink():
        raise ConfigError(
            "name",
            f"{folder} is a link (to {os.readlink(folder)}); epochcost makes and removes "
            "environments only inside its data folder: remove the link, or set EPOCHCOST_HOME "
            "to a data folder on that disk",
        )
    return envs_home(create=create)


def check_name(name: str | None, choice: Choice) -> str:
    """The environment's name: `name`, or the build's default when it is not given (None); an
    empty or unusable one (a path, a dot first) is refused."""
    if name is None:
        return default_name(choice)
    if not name.strip():
        raise ConfigError("name", "is empty: give a name (letters, digits, . _ -), or leave it out")
    if not _NAME.match(name):
        raise ConfigError("name", f"{name!r} is not a usable name (letters, digits, . _ -)")
    return name


def python_in(env: Path) -> Path:
    return env / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def default_name(choice: Choice) -> str:
    """torch-cu126, torch-cpu, tensorflow-cuda, tensorflow-cpu."""
    if choice.device == "cpu":
        return f"{choice.framework}-cpu"
    cuda = re.search(r"CUDA (\d+)\.(\d+)", choice.label)
    return f"{choice.framework}-cu{cuda[1]}{cuda[2]}" if cuda else f"{choice.framework}-cuda"


def reachable(url: str, timeout_s: float = INDEX_TIMEOUT_S) -> bool:
    """Whether a package index answers (its page for torch)."""
    import urllib.request  # here: the app's window imports this module, and urllib costs 20 ms

    try:
        with urllib.request.urlopen(url.rstrip("/") + "/torch/", timeout=timeout_s) as reply:
            return 200 <= reply.status < 400
    except (OSError, ValueError):
        return False


def worker_side() -> list[str]:
    """What the worker needs besides the framework (installed first, the build chosen): this
    epochcost's own package from a source checkout (so `epochcost-worker` is there, the same
    version; no extra, which would add a second TensorFlow build beside a GPU one); else (the
    desktop bundle, which carries the engine's source and starts workers with it on
    PYTHONPATH) the engine's own dependencies."""
    root = paths.engine_source_root()
    if (root / "pyproject.toml").is_file():
        return [str(root)]
    return [*ENGINE_NEEDS, "nvidia-ml-py"]


def create(
    choice: Choice,
    name: str | None = None,
    *,
    python: str | None = None,
    installer: str = "auto",
    packages: list[str] | None = None,
    progress: Callable[[Progress], None] = lambda _p: None,
    say: Callable[[str], None] = lambda _s: None,
    cancel: threading.Event | None = None,
    register: bool = True,
) -> Created:
    """Make the environment for `choice` (see the module's docstring). `packages` replaces
    the worker side's packages (worker_side()); `installer` "auto" takes uv where there is one,
    else pip ("uv" or "pip" insists); `say` gets each decision in words. Raises
    ConfigError for what the user can fix, InstallFailed when the installer fails, Cancelled
    when `cancel` was set; after any of them nothing of this attempt is left."""
    name = check_name(name, choice)
    target = own_envs_home(create=True) / name
    cancel = cancel or threading.Event()
    kept = _kept(target, choice)
    if kept is not None:
        return kept
    if target.is_symlink() or (target.exists() and not (target / MARKER).exists()):
        raise ConfigError(
            "name",
            f"{target} is there and does not pass its check; remove it first "
            f"(epochcost env remove {name})",
        )
    busy(target)
    shutil.rmtree(target, ignore_errors=True)  # a half-made one from an interrupted attempt
    if choice.index_url and not reachable(choice.index_url):
        say(f"{choice.index_url} cannot be reached")
        if choice.fallback is None:
            raise ConfigError("device", f"no build fits here without {choice.index_url}")
        choice = choice.fallback
        say(f"taking {choice.describe()}")
    base = python or find_python()
    uv = find_uv() if installer in ("auto", "uv") else None
    if installer == "uv" and uv is None:
        raise ConfigError("installer", "no uv here: install PyPI's uv, or use pip")
    if base is None and uv is None:
        raise ConfigError(
            "python",
            f"no Python {_version(MIN_PYTHON)} or newer here, and no uv to fetch one: "
            "install python3",
        )
    try:
        _make(target, choice, base, uv, packages or worker_side(), progress, cancel)
        check = check_interpreter(str(python_in(target)), choice.framework)
        if cancel.is_set():
            raise Cancelled
        if not check.ok:
            raise InstallFailed(f"the new environment does not pass its check: {check.message}")
        write_about(target, asdict(choice), "uv" if uv else "pip")
        (target / MARKER).unlink()
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    if register:
        chosen = environments.load()
        chosen[choice.framework] = str(python_in(target))
        environments.save(chosen)
    return Created(name, python_in(target), choice, "uv" if uv else "pip", check.message)


def _kept(target: Path, choice: Choice) -> Created | None:
    """An environment of that name that is whole, holds this build and passes its check;
    ConfigError when it holds another build (it is the user's to remove)."""
    if not target.exists() or (target / MARKER).exists():
        return None
    about = read_about(target)
    held = about.get("choice", {}).get("label") if isinstance(about.get("choice"), dict) else None
    wanted = {choice.label, choice.fallback.label if choice.fallback else choice.label}
    if held is not None and held not in wanted:
        raise ConfigError(
            "name",
            f"{target} holds {held}; give another --name, or remove it first "
            f"(epochcost env remove {target.name})",
        )
    check = check_interpreter(str(python_in(target)), choice.framework)
    if not check.ok:
        return None
    installer = str(about.get("installer", ""))
    return Created(target.name, python_in(target), choice, installer, check.message, kept=True)


def _make(
    target: Path,
    choice: Choice,
    base: str | None,
    uv: str | None,
    worker: list[str],
    progress: Callable[[Progress], None],
    cancel: threading.Event,
) -> None:
    target.mkdir(parents=True)
    leftovers.write_marker(target)
    done = Progress()
    python = str(python_in(target))
    index = ["--index-url", choice.index_url] if choice.index_url else []
    if uv:
        # --allow-existing: the folder holds the marker already.
        venv = [uv, "venv", "--allow-existing", "--seed", str(target)]
        # No Python found: uv takes one of the machine's that is new enough, else downloads
        # its own (a managed Python) where the network allows.
        venv += ["--python", base] if base else ["--python", f">={_version(MIN_PYTHON)}"]
        # --compile-bytecode: as pip does. Without it a Python that writes no .pyc
        # (PYTHONDONTWRITEBYTECODE, a read-only folder) compiles torch at every worker's start:
        # 7.1-7.3 s for `import torch, torch._dynamo` against 3.2-4.6 s (benchmarks/RESULTS.md).
        install = [uv, "pip", "install", "--compile-bytecode", "--python", python]
        steps = [venv, [*install, *index, *choice.packages], [*install, *worker]]
    else:
        assert base is not None
        pip = [python, "-m", "pip", "install", "--progress-bar", "off"]
        steps = [
            [base, "-m", "venv", str(target)],
            [*pip, *index, *choice.packages],
            [*pip, *worker],
        ]
    for command in steps:
        run_step(command, done, progress, cancel, lambda pid: leftovers.write_marker(target, pid))


def busy(target: Path) -> None:
    """ConfigError where another epochcost is making `target` now (its marker's maker runs)."""
    if (target / MARKER).is_file() and not leftovers.maker_gone(target):
        maker = leftovers.read_marker(target).maker
        raise ConfigError(
            "name",
            f"{target} is being made by another epochcost (process {maker}); wait for it, "
            "or cancel it there",
        )


def write_about(target: Path, choice: dict, installer: str) -> None:
    """What an environment holds (`choice`: framework, label, reason, ...) and how it was made,
    in its folder: `env list` reads it, and a later create keeps an environment that holds it."""
    about = {
        "choice": choice,
        "installer": installer,
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    (target / ABOUT).write_text(json.dumps(about, indent=2) + "\n", encoding="utf-8")


def read_about(target: Path) -> dict:
    try:
        data = json.loads((target / ABOUT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
