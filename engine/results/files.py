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

from engine.core import paths
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
    """Read and validate a result JSON file, with a message that says why not."""
    where = file_name(path)
    try:
        size = Path(path).stat().st_size
        if size > MAX_RESULT_BYTES:
            # In bytes: 16 MiB and one byte rounds to the limit itself in MB.
            raise ConfigError(
                where,
                f"is {size:,} bytes; a result file is at most {MAX_RESULT_BYTES:,} bytes "
                f"({MAX_RESULT_BYTES >> 20} MiB)",
            )
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(where, "no such file") from None
    except IsADirectoryError:
        raise ConfigError(where, "is a folder, not a result file") from None
    except UnicodeDecodeError:
        raise ConfigError(where, "is not a text (JSON) file") from None
    except OSError as exc:
        raise ConfigError(where, f"cannot be read: {exc.strerror}") from None
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ConfigError(where, f"is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise ConfigError(where, "is nested too deeply to be a result") from None
    except ValueError as exc:  # NaN, Infinity
        raise ConfigError(where, str(exc)) from None
    return validate(data, where)


def file_name(path: Path) -> str:
    """A file as a message names it (the error's field): as given, but never a bare word, which
    the command line would show as an option (a folder `imp` as "--imp"): ./imp."""
    text = str(path)
    return os.path.join(".", text) if text.isidentifier() else text


def _no_constant(name: str) -> Any:
    raise ValueError(f"holds {name}, which is not a number a result can have")


def check_out_path(path: Path, field: str = "out") -> Path:
    """Where a result (or a summary) may be written: a file in an existing folder, never the
    results store or another SQLite database. ConfigError naming `field` otherwise."""
    path = Path(path)
    if path.is_dir():
        example = path / "result.json"
        raise ConfigError(field, f"{path} is a folder; give a file name, e.g. {example}")
    parent = path.parent
    if not parent.is_dir():
        raise ConfigError(field, f"folder {parent} does not exist")
    store = paths.database(create=False)
    companions = (store.with_name(store.name + end) for end in ("-wal", "-shm", "-journal"))
    for name in (store, *companions):
        if _same_file(path, name):
            raise ConfigError(
                field, f"{path} is the results store; give another file name (nothing was written)"
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
    except OSError:
        pass
    return a.resolve() == b.resolve()


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
