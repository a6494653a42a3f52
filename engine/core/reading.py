"""Reading a file the user gives or the data folder holds: a regular file only, UTF-8 text, and
JSON with no value that no measurement can hold.

Every reader of a result file, a stored result's body and profiles.json goes through here, so
they refuse the same things the same way:

- not a regular file (a FIFO would wait for a writer for ever, a device never ends): refused
  before it is opened;
- UTF-8 with or without a byte-order mark (Windows editors write one);
- JSON without NaN or Infinity, and without an integer no float can hold: Python reads
  10**400 whole, and it then overflows every float check and every format, far from the
  file that held it.

The errors are ValueError / OSError subclasses whose text reads after the file's name
("... is not valid JSON (line 3: ...)"); each reader wraps them in its own ConfigError or
StoreError naming the file or the row.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any


class NotRegular(OSError):
    """The path is a FIFO, a device or a socket: not a file to read. Its strerror says which
    ("a FIFO (a named pipe), not a file")."""


class BadJson(ValueError):
    """JSON that cannot be read as one: the text says why, after the file's name."""


def read_text(path: Path, limit: int | None = None, errors: str = "strict") -> str:
    """The text of the regular file at `path` (a link is followed), UTF-8 with or without a
    byte-order mark (`errors` as bytes.decode takes it: "replace" for a log). NotRegular for
    anything else; FileNotFoundError, UnicodeDecodeError and other OSErrors as they come;
    ValueError when it is longer than `limit` bytes."""
    # Opened without waiting (a FIFO with no writer would block the open itself), then looked
    # at through the descriptor: what is read is what was checked.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(f"{path} is a folder")
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(errno.EINVAL, f"{_kind(info.st_mode)}, not a file", str(path))
        if limit is not None and info.st_size > limit:
            raise ValueError(f"is {info.st_size:,} bytes; at most {limit:,} bytes are read")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read() if limit is None else f.read(limit + 1)  # it may have grown since
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:
        raise ValueError(f"is over {limit:,} bytes; at most {limit:,} bytes are read")
    return data.decode("utf-8-sig", errors)


def read_head(path: str | Path, size: int) -> bytes:
    """The first `size` bytes of the regular file at `path` (an image's magic number), opened
    without waiting as read_text opens; NotRegular for a FIFO, a device or a socket."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "a folder, not a file", str(path))
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(errno.EINVAL, f"{_kind(info.st_mode)}, not a file", str(path))
        return os.read(fd, size)
    finally:
        os.close(fd)


def why_absent(path: str | Path) -> str:
    """Why `path`, given as a folder or file, cannot be used, in words that follow its name:
    "does not exist", "is a loop of symbolic links ...", "cannot be read (...)"; "is not a
    folder" when it is there (a file)."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a loop of symbolic links (a link that leads, through others, to itself)"
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return "does not exist"
        return f"cannot be read ({exc.strerror or exc})"
    return "is not a folder"


def kind(mode: int) -> str:
    """What a file that is not a regular one is, in words ("a FIFO (a named pipe)")."""
    return _kind(mode)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (a named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def loads(text: str | bytes) -> Any:
    """JSON as epochcost reads it: BadJson for text that is not JSON, holds NaN or Infinity
    or an integer beyond any float (10**400), or is nested too deeply."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_int=_int)
    except BadJson:
        raise
    except json.JSONDecodeError as exc:
        raise BadJson(f"is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise BadJson("is nested too deeply to be read") from None
    except ValueError as exc:  # a non-UTF-8 bytes body
        raise BadJson(f"is not valid JSON ({exc})") from None


def _no_constant(name: str) -> Any:
    raise BadJson(f"holds {name}, which is not a number a measurement can have")


def _int(digits: str) -> int:
    # An integer no float can hold (10**400) is refused here, where the file is named: past
    # this point every check of a figure compares it as a float and would overflow. Smaller
    # ones (10**30 samples) are refused by the field's own check, which names the field.
    # The length is checked first: int() of thousands of digits is refused by Python itself,
    # with advice meant for programmers (sys.set_int_max_str_digits).
    shown = digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits):,} digits)"
    try:
        if len(digits.lstrip("-")) > 309:
            raise OverflowError
        value = int(digits)
        float(value)
    except OverflowError:
        raise BadJson(f"holds the integer {shown}, larger than any number can be") from None
    return value
