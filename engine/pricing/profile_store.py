"""The profiles file: profiles.json in the data folder (engine/core/paths.py), shared by the CLI
and the app. {"schema": 1, "profiles": [{...}, ...]}, treated like the results store: written
whole by engine/core/writing.py (a link is followed: its target is written, the link kept), and
a file this epochcost cannot read whole (not UTF-8, not JSON, a newer schema, two profiles of
one name, a profile that is not one) is reported with its path and never written over: fix it
or move it away.

It is read through engine/core/reading.py like a result file: only a regular file is opened (a
FIFO would wait for a writer for ever), and JSON with NaN or an integer of 400 digits is refused
there, before any figure is compared. Each profile is held to the rules of its own fields
(Profile.validated: types, ranges, what applies to its kind) when read and when saved, so every
profile saved can be read back. What it names in the catalog (an instance, a GPU, a grid region)
is checked when it is used, for that profile alone: a catalog row removed later, or the app's
"other" hardware (a GPU of your own, with its watts), never makes the whole file unreadable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.core import paths, reading, writing
from engine.core.errors import ConfigError, StoreError
from engine.core.placeholders import worded
from engine.pricing.profiles import Profile, check_name

FILE_NAME = "profiles.json"
SCHEMA = 1
FIX = "fix it or move it away (epochcost does not write over it)"


def path() -> Path:
    return paths.home() / FILE_NAME


def load() -> dict[str, Profile]:
    """Every profile by name (none when there is no file yet); StoreError when it is damaged
    or holds a profile that is not one."""
    file = path()
    try:
        text = reading.read_text(file)
    except FileNotFoundError:
        return {}
    except IsADirectoryError:
        raise StoreError(file, "is a folder, not a file; move it away") from None
    except reading.NotRegular as exc:  # "a FIFO (a named pipe), not a file"; the path once
        what = f"is {exc.strerror}" if exc.strerror else str(exc).removeprefix(f"{file} ")
        raise StoreError(file, f"{what}; fix it or move it away") from None
    except UnicodeDecodeError as exc:
        raise StoreError(file, f"is not UTF-8 text (byte {exc.start}); {FIX}") from None
    except OSError as exc:
        raise StoreError(file, f"cannot be read ({exc.strerror or exc})") from None
    try:
        data = reading.loads(text)
    except reading.BadJson as exc:
        raise StoreError(file, f"{exc}; {FIX}") from None
    _check_schema(file, data)
    out: dict[str, Profile] = {}
    for n, item in enumerate(data["profiles"], 1):
        try:
            profile = Profile.from_dict(item)
        except ConfigError as exc:
            message = worded(exc.message, str)  # "give {instance}": the file's own names
            raise StoreError(file, f"{_which(n, item)}: {exc.field}: {message}; {FIX}") from None
        if profile.name in out:
            why = f"profile {n} has the name {profile.name!r} of an earlier one"
            raise StoreError(file, f"{why}; {FIX}")
        out[profile.name] = profile
    return out


def _which(n: int, item: Any) -> str:
    """Its place in the file ("profile 2"), and its name where it has a usable one."""
    name = item.get("name") if isinstance(item, dict) else None
    try:
        return f"profile {n} ({check_name(name)!r})"
    except ConfigError:
        return f"profile {n}"


def _check_schema(file: Path, data: Any) -> None:
    """A profiles file of a schema this epochcost reads; a newer one is refused, never rewritten."""
    if not isinstance(data, dict) or not isinstance(data.get("profiles"), list):
        raise StoreError(file, f'is not a profiles file (no "profiles" list); {FIX}')
    schema = data.get("schema", SCHEMA)
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        raise StoreError(file, f"has schema {schema!r}, not a profiles schema; {FIX}")
    if schema > SCHEMA:
        raise StoreError(
            file,
            f"is schema {schema}, newer than this epochcost reads ({SCHEMA}): update epochcost "
            "(the file is not changed)",
        )


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
    """Add `profile` (or replace the one of its name when `replace`), held to the rules the
    file is read by."""
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
    data = {"schema": SCHEMA, "profiles": [found[k].to_dict() for k in sorted(found)]}
    return writing.write_text(path(), json.dumps(data, indent=2) + "\n")
