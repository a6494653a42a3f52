"""Result files: reading one (validated, never pickle), writing one whole or not at all, and
where one may be written (never over the results store).

Every file a command or an export writes goes through write_text / write_bytes / write_via
here (engine.core.writing: a regular file whole or not at all, a link's target, a device or
FIFO straight into, never anything replaced but the file named)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from engine.core import paths, reading
from engine.core.errors import ConfigError
from engine.core.writing import write_bytes, write_text, write_via
from engine.results.schema import validate

__all__ = [
    "check_out_path",
    "file_name",
    "is_stream",
    "read_result_file",
    "write_bytes",
    "write_json",
    "write_text",
    "write_via",
]

# A result file bigger than this is not one epochcost wrote (a result is a few kB; an
# accuracy run's curve some hundreds).
MAX_RESULT_BYTES = 16 * 2**20
_SQLITE_MAGIC = b"SQLite format 3\x00"


def read_result_file(path: Path) -> dict[str, Any]:
    """Read and validate a result JSON file (engine/core/reading.py: a regular file, UTF-8,
    JSON with no value no measurement can hold), with a message that says why not."""
    where = file_name(path)
    try:
        text = reading.read_text(path, limit=MAX_RESULT_BYTES)
    except FileNotFoundError:
        raise ConfigError(where, "no such file") from None
    except IsADirectoryError:
        raise ConfigError(where, "is a folder, not a result file") from None
    except reading.NotRegular as exc:
        raise ConfigError(where, f"is {exc.strerror}; give a result file") from None
    except UnicodeDecodeError:
        raise ConfigError(where, "is not a text (JSON) file") from None
    except ValueError as exc:  # over the limit: in bytes, as 16 MiB and a byte rounds to it in MB
        raise ConfigError(
            where, f"{exc} ({MAX_RESULT_BYTES >> 20} MiB): a result is a few kB"
        ) from None
    except (OSError, RuntimeError) as exc:  # a link loop: OSError(ELOOP), RuntimeError in pathlib
        raise ConfigError(where, f"cannot be read: {_reason(exc)}") from None
    try:
        data = reading.loads(text)
    except reading.BadJson as exc:
        raise ConfigError(where, str(exc)) from None
    return validate(data, where)


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


def file_name(path: Path) -> str:
    """A file as a message names it (the error's field): as given, but never a bare word, which
    the command line would show as an option (a folder `imp` as "--imp"): ./imp."""
    text = str(path)
    return os.path.join(".", text) if text.isidentifier() else text


def check_out_path(path: Path, field: str = "out") -> Path:
    """Where a result (or a summary) may be written: a file in an existing folder, never one of
    epochcost's own files in its data folder (the results store, profiles.json, the user's
    catalog; a new name there is fine: nothing is replaced) nor another SQLite database.
    ConfigError naming `field` otherwise."""
    path = Path(path)
    try:
        if path.is_dir():
            example = path / "result.json"
            raise ConfigError(field, f"{path} is a folder; give a file name, e.g. {example}")
        target = path.resolve()  # a link's target, as the write will follow it
    except (OSError, RuntimeError) as exc:  # a link loop: RuntimeError from pathlib
        raise ConfigError(field, f"{path} cannot be followed ({_reason(exc)})") from None
    parent = path.parent
    if not parent.is_dir():
        raise ConfigError(field, f"folder {parent} does not exist")
    store = paths.database(create=False)
    beside = target.parent == store.parent.resolve() and target.name.startswith(store.name)
    if beside or _same_file(path, store):  # the store, or its -wal, -shm, -journal
        raise ConfigError(
            field, f"{path} is the results store; give another file name (nothing was written)"
        )
    home = paths.home(create=False).resolve()
    if target.exists() and target.is_relative_to(home):
        raise ConfigError(
            field,
            f"{path} is one of epochcost's own files in its data folder ({home}); give another "
            "file name (nothing was written)",
        )
    if _is_sqlite(path):
        raise ConfigError(
            field, f"{path} is a SQLite database, not a result file; give another file name"
        )
    return path


def is_stream(path: Path) -> bool:
    """True for a device, FIFO or socket (or a link to one): written straight into, and named
    as it is (/dev/stdout needs no .html)."""
    try:
        mode = Path(path).stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return False


def _is_sqlite(path: Path) -> bool:
    """Only a regular file is opened to look: opening a FIFO to read would wait for a writer."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return False
        with open(path, "rb") as f:
            return f.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC
    except OSError:
        return False


def write_json(path: Path, data: Any) -> Path:
    """Write JSON to `path` whole or not at all (write_text)."""
    return write_text(path, json.dumps(data, indent=2, allow_nan=False) + "\n")
