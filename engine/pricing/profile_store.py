"""The profiles file: profiles.json in the data folder (engine/core/paths.py), shared by the CLI
and the app. {"schema": 1, "profiles": [{...}, ...]}, written whole (a temporary file replaced
in one step). A damaged file is reported with its path and never written over: fix it or move
it away."""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.core import paths
from engine.core.errors import ConfigError, StoreError
from engine.pricing.profiles import Profile, check_name

FILE_NAME = "profiles.json"
SCHEMA = 1


def path() -> Path:
    return paths.home() / FILE_NAME


def load() -> dict[str, Profile]:
    """Every profile by name (none when there is no file yet); StoreError when it is damaged."""
    file = path()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise StoreError(file, f"cannot be read ({exc.strerror or exc})") from None
    fix = "fix it or move it away (epochcost does not write over it)"
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", "?")
        raise StoreError(file, f"is not valid JSON (line {line}); {fix}") from None
    if not isinstance(data, dict) or not isinstance(data.get("profiles"), list):
        raise StoreError(file, f'is not a profiles file (no "profiles" list); {fix}')
    out: dict[str, Profile] = {}
    for n, item in enumerate(data["profiles"], 1):
        try:
            profile = Profile.from_dict(item)
        except ConfigError as exc:
            raise StoreError(file, f"profile {n}: {exc.field}: {exc.message}; {fix}") from None
        out[profile.name] = profile
    return out


def names() -> list[str]:
    return sorted(load(), key=str.lower)


def get(name: str) -> Profile:
    """The profile called `name`; ConfigError('profile') listing the known names otherwise."""
    found = load()
    if name in found:
        return found[name]
    known = ", ".join(sorted(found, key=str.lower))
    listing = f"known: {known}" if known else "none yet: `epochcost profile add NAME ...`"
    raise ConfigError("profile", f"no profile {name!r} ({listing})")


def save(profile: Profile, replace: bool = False) -> Path:
    """Add `profile` (or replace the one of its name when `replace`)."""
    profile = profile.validated()
    found = load()
    if profile.name in found and not replace:
        raise ConfigError("name", f"a profile {profile.name!r} exists: remove it first")
    found[profile.name] = profile
    return _write(found)


def remove(name: str) -> Path:
    found = load()
    get(check_name(name))
    del found[name]
    return _write(found)


def _write(found: dict[str, Profile]) -> Path:
    file = path()
    data = {"schema": SCHEMA, "profiles": [found[k].to_dict() for k in sorted(found)]}
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as f:
            f.write(json.dumps(data, indent=2) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, file)
    except OSError as exc:
        raise StoreError(file, f"cannot be written ({exc.strerror or exc})") from None
    finally:
        tmp.unlink(missing_ok=True)
    return file
