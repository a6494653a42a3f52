"""The framework environments epochcost made (the data folder's envs/): what each holds, whether
it is whole, and which one each framework's workers use; removing one.

Only what `env create` made is removed: a folder with its marker (being made) or its about file
(made; the cloud environment's too), inside the data folder. A folder without either is the
user's, a link is followed nowhere (an entry that is a link, or envs/ itself being one, is
refused), so `env remove` can never delete what epochcost did not make.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from engine.core import paths
from engine.core.errors import ConfigError
from engine.envs.create import ABOUT, MARKER, envs_home, own_envs_home, python_in, read_about
from engine.process import environments


@dataclass(frozen=True)
class Installed:
    """One environment under envs/: its name, folder, Python, what it holds and where that
    was chosen from, when it was made, and whether it is whole and in use."""

    name: str
    path: Path
    python: Path
    framework: str
    label: str
    reason: str
    created_at: str
    whole: bool
    used: bool
    ours: bool = True  # made by env create (made_by_epochcost); else the user's, left alone

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "path": str(self.path),
            "python": str(self.python),
            "framework": self.framework,
            "label": self.label,
            "reason": self.reason,
            "created_at": self.created_at,
            "whole": self.whole,
            "used": self.used,
            "ours": self.ours,
        }


def installed() -> list[Installed]:
    """Every environment under envs/, by name."""
    home = envs_home()
    if not home.is_dir():
        return []
    chosen = set(environments.load().values())
    found = []
    for path in sorted(p for p in home.iterdir() if p.is_dir()):
        about = read_about(path)
        found_choice = about.get("choice")
        choice: dict = found_choice if isinstance(found_choice, dict) else {}
        found.append(
            Installed(
                name=path.name,
                path=path,
                python=python_in(path),
                framework=str(choice.get("framework", "")),
                label=str(choice.get("label", "unknown build")),
                reason=str(choice.get("reason", "")),
                created_at=str(about.get("created_at", "")),
                whole=not (path / MARKER).exists() and python_in(path).exists(),
                # the cloud environment is used by every cloud run (engine/cloud/skypilot.py)
                used=str(python_in(path)) in chosen or path == paths.cloud_env(),
                ours=made_by_epochcost(path),
            )
        )
    return found


def made_by_epochcost(path: Path) -> bool:
    """Whether `env create` made this folder: a real folder (not a link) holding its marker
    (being made) or its about file (made)."""
    if path.is_symlink() or not path.is_dir():
        return False
    if _own_file(path / MARKER):
        return True
    about = read_about(path) if _own_file(path / ABOUT) else {}
    return isinstance(about.get("choice"), dict) and bool(about.get("created_at"))


def _own_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def remove(name: str) -> Installed:
    """Remove the environment `name` and, where a framework's workers used it, go back to the
    app's own Python for that framework. ConfigError when there is none of that name, or when
    epochcost did not make it (see the module's docstring)."""
    home = own_envs_home()
    found = {env.name: env for env in installed()}
    if name not in found:
        names = ", ".join(e.name for e in found.values() if made_by_epochcost(e.path)) or "none"
        raise ConfigError("name", f"no environment {name!r} (there are: {names})")
    env = found[name]
    if env.path.is_symlink():
        raise ConfigError(
            "name", f"{env.path} is a link; epochcost removes nothing a link leads to"
        )
    if not made_by_epochcost(env.path) or env.path.parent != home:
        raise ConfigError(
            "name",
            f"{env.path} was not made by epochcost env create (it holds no {ABOUT}); "
            "epochcost leaves it as it is: remove it yourself if it is yours to remove",
        )
    chosen = environments.load()
    kept = {f: p for f, p in chosen.items() if p != str(env.python)}
    if kept != chosen:
        environments.save(kept)
    shutil.rmtree(env.path)
    return env
