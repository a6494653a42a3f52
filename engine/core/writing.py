"""The one way epochcost writes a file a person named (or one of its own): whole or not at all,
never replacing anything but the regular file it was asked to write.

- A regular file, or a path where nothing is yet: the bytes go to a temporary file beside it,
  flushed to disk, then renamed over it; the file's permission bits are kept. A failed write
  leaves what was there as it was, and no temporary file.
- A symbolic link is followed: the link stays, its target is written (as above).
- A character device, a FIFO, a socket, or a standard stream named by its alias (/dev/stdout,
  /dev/fd/N, /proc/self/fd/N) is written straight into: never truncated, never replaced. A FIFO
  nobody reads is waited for FIFO_WAIT_S, then refused, rather than hanging the caller.
- A folder is refused.

Every fault is a StoreError naming the file and why, saying that nothing was written there.
engine/results/files.py gives the results' side of it; this module sits in core so that the
pricing files (profiles.json, the user catalog rows) go through it too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from engine.core.errors import StoreError

# How long a FIFO may wait for its reader (`epochcost ... --out fifo` started before `cat fifo`).
FIFO_WAIT_S = 30.0
_FIFO_POLL_S = 0.05
# Paths that stand for a file descriptor the process already holds: written straight into.
_STREAM_ALIASES = ("/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/")
_OWN_FD = re.compile(r"^/(?:dev/fd|proc/self/fd|proc/(\d+)/fd)/(\d+)$")
_NOTHING = "nothing was written there"


def write_text(path: Path, text: str) -> Path:
    """Write `text` as UTF-8 to `path` (write_bytes). Text that cannot be encoded (a lone
    surrogate from a damaged import) is refused before anything is touched."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        why = f"the text holds a character that is not valid Unicode ({exc.object[exc.start]!a})"
        raise StoreError(path, f"cannot be written: {why}; {_NOTHING}") from None
    return write_bytes(path, data)


def write_bytes(path: Path, data: bytes) -> Path:
    """Write `data` to `path` (see the module's docstring); returns `path` as given."""
    path = Path(path)
    try:
        info = path.stat()  # follows links: what would be written
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise _fault(path, exc) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise StoreError(path, f"is a folder; give a file name ({_NOTHING})")
    if info is not None and (not stat.S_ISREG(info.st_mode) or _is_stream_alias(path)):
        _write_into(path, data, info)
    else:
        _replace(_resolved(path), data, info)
    return path


def write_via(path: Path, produce: Callable[[Path], None]) -> Path:
    """Write what `produce(tmp)` writes to a private temporary file (of `path`'s suffix) to
    `path` through write_bytes: for writers that only take a file name (chart exporters)."""
    with tempfile.TemporaryDirectory(prefix="epochcost-write-") as folder:
        tmp = Path(folder) / f"export{Path(path).suffix}"
        produce(tmp)
        try:
            data = tmp.read_bytes()
        except OSError as exc:
            why = f"could not be made ({exc.strerror or exc})"
            raise StoreError(path, f"{why}; {_NOTHING}") from None
    return write_bytes(path, data)


def _is_stream_alias(path: Path) -> bool:
    """True when `path`, or a link it leads through, names a descriptor (/dev/stdout -> a
    file the shell opened): replacing that file would lose what the shell appended to."""
    seen = 0
    current = str(Path(path).absolute())
    while seen < 40:
        if current.startswith(_STREAM_ALIASES):
            return True
        try:
            target = os.readlink(current)
        except OSError:
            return False
        current = os.path.join(os.path.dirname(current), target)
        seen += 1
    return False


def _resolved(path: Path) -> Path:
    """Where a link leads (the file to write); `path` itself when it is no link."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _write_into(path: Path, data: bytes, info: os.stat_result) -> None:
    """Straight into a device, FIFO or stream alias: no truncation, no rename. A regular file
    reached through an alias is appended to (a shell's `>>` keeps what it had)."""
    own = _own_fd(path)
    if own is not None:  # our own descriptor: written at its offset, after what is printed
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        try:
            _write_all(own, data)
        except OSError as exc:
            raise _fault(path, exc) from None
        return
    flags = os.O_WRONLY | (os.O_APPEND if stat.S_ISREG(info.st_mode) else 0)
    try:
        fd = _open_fifo(path) if stat.S_ISFIFO(info.st_mode) else os.open(path, flags)
    except OSError as exc:
        raise _fault(path, exc) from None
    try:
        _write_all(fd, data)
    except OSError as exc:
        raise _fault(path, exc) from None
    finally:
        os.close(fd)


def _own_fd(path: Path) -> int | None:
    """The descriptor `path` names in this process (/dev/stdout: 1), else None."""
    text = str(Path(path).absolute())
    if text in ("/dev/stdout", "/dev/stderr"):
        return 1 if text.endswith("out") else 2
    match = _OWN_FD.match(text)
    if match is None or (match.group(1) and int(match.group(1)) != os.getpid()):
        return None
    return int(match.group(2))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _open_fifo(path: Path) -> int:
    """Open a FIFO for writing once something reads it; ENXIO after FIFO_WAIT_S."""
    deadline = time.monotonic() + FIFO_WAIT_S
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO or time.monotonic() >= deadline:
                raise
            time.sleep(_FIFO_POLL_S)
            continue
        os.set_blocking(fd, True)  # a slow reader is waited for, not an error
        return fd


def _replace(target: Path, data: bytes, info: os.stat_result | None) -> None:
    """A temporary file beside `target`, flushed to disk, renamed over it (its mode kept)."""
    if not target.parent.is_dir():
        why = f"folder {target.parent} does not exist"
        raise StoreError(target, f"cannot be written ({why}); {_NOTHING}")
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            if info is not None:
                _keep_owner_and_mode(fd, info)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise _fault(target, exc) from None
    except BaseException:  # an interrupt mid-write leaves no temporary file either
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _keep_owner_and_mode(fd: int, info: os.stat_result) -> None:
    """The new file has the old one's permission bits (and owner, for root writing a user's
    file), so that replacing it changes only its bytes."""
    with contextlib.suppress(OSError, AttributeError):  # AttributeError: no fchmod/fchown here
        os.fchmod(fd, stat.S_IMODE(info.st_mode))
        os.fchown(fd, info.st_uid, info.st_gid)


def _fault(path: Path, exc: OSError) -> StoreError:
    if exc.errno == errno.ENXIO:
        reason = f"a FIFO nothing read within {FIFO_WAIT_S:g} s"
    else:
        reason = exc.strerror or str(exc)
    return StoreError(path, f"cannot be written ({reason}); {_NOTHING}")
