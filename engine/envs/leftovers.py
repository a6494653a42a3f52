"""Half-made environments an ended epochcost left behind: found and removed at the next start.

`env create` (and the cloud environment) writes its marker before the first installer step and
removes it once the environment passed its check; a cancel, a failure or a caught signal removes
the folder itself (engine/envs/create.py). A SIGKILL, a crash or a power cut does not: the
folder stays with its marker, and the installer (in a session of its own) may still be
running. On Linux the installer step ends with the thread that started it (die_with_parent),
its own children do not. The marker says who made the folder (the process, and when it
started, so that a reused process number is not taken for it) and which installer step runs;
the next epochcost start (any command, or the app) reads every marker under envs/, and for
each whose maker is gone ends what is left of that installer's session and removes the folder,
saying so. A folder whose maker still runs is another create at work, and is left alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.core import paths
from engine.core.errors import ConfigError

ENVS_FOLDER = "envs"  # in the data folder
MARKER = ".epochcost-partial"  # present until the environment passed its check


@dataclass(frozen=True)
class Leftover:
    """A half-made environment: its folder and what its marker says of its maker."""

    path: Path
    maker: int | None  # the process that made it; None where the marker does not say
    installer: int | None  # the installer step's process (its session's leader)
    installer_started: str = ""  # when it started (_started)
    maker_started: str | None = None  # when the maker started (_started); None: not said


def write_marker(folder: Path, installer: int | None = None) -> None:
    """The marker: this process (and when it started) is making `folder`; `installer` is the
    installer step running now, if any."""
    record = {
        "pid": os.getpid(),
        "started": _started(os.getpid()),
        "installer": installer,
        "installer_started": _started(installer) if installer else "",
    }
    (folder / MARKER).write_text(json.dumps(record) + "\n", encoding="utf-8")


def read_marker(folder: Path) -> Leftover:
    try:
        record = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = None  # an older epochcost's "being made", or a damaged marker
    if not isinstance(record, dict):
        return Leftover(folder, None, None)
    started, maker_started = record.get("installer_started"), record.get("started")
    return Leftover(
        folder,
        _pid(record.get("pid")),
        _pid(record.get("installer")),
        started if isinstance(started, str) else "",
        maker_started if isinstance(maker_started, str) else None,
    )


def maker_gone(folder: Path) -> bool:
    """Whether the process that wrote `folder`'s marker has ended (or cannot be told)."""
    return _gone(read_marker(folder))


def _gone(left: Leftover) -> bool:
    """Whether `left`'s maker has ended: no maker said, none running under its number, or one
    that started at another time (the number given to another process)."""
    pid = left.maker
    return pid is None or not _alive(pid) or left.maker_started != _started(pid)


def found(home: Path) -> list[Leftover]:
    """Every half-made environment under `home` whose maker has ended; never through a link."""
    if home.is_symlink() or not home.is_dir():
        return []
    left = []
    for folder in sorted(home.iterdir()):
        marker = folder / MARKER
        if folder.is_symlink() or not folder.is_dir():
            continue
        if marker.is_file() and not marker.is_symlink():
            marked = read_marker(folder)  # read once: who made it, and its installer
            if _gone(marked):
                left.append(marked)
    return left


def clear(home: Path | None = None) -> list[str]:
    """Remove what ended makers left under `home` (the data folder's envs/ by default): their
    installers' remaining processes ended, their folders removed. One line for each, saying
    what was removed; nothing (and no error) where there is nothing, or no data folder yet."""
    if home is None:
        try:
            home = paths.home(create=False) / ENVS_FOLDER  # never through a link (found)
        except (ConfigError, OSError):
            return []  # no usable data folder: the command itself says so
    try:
        left_over = found(home)
    except OSError:
        return []  # envs/ or a folder in it unreadable: env list and env remove say so
    said = []
    for left in left_over:
        ended = stop_installer(left)
        shutil.rmtree(left.path, ignore_errors=True)
        if left.path.exists():
            said.append(f"a half-made environment could not be removed: {left.path}")
            continue
        by = f" (its installer's {ended} process{'es' if ended > 1 else ''} ended)" if ended else ""
        said.append(
            f"removed a half-made environment an interrupted env create left: {left.path}{by}"
        )
    return said


def stop_installer(left: Leftover) -> int:
    """End the processes still running in `left`'s installer session; how many. The session is
    the installer step's own (its leader's process number, recorded in the marker with when it
    started): while any member lives, the kernel gives that number to no other process, so a
    leader that runs with another start time means the session is not ours, and nothing is
    ended. Linux only (elsewhere 0: the processes cannot be listed)."""
    if left.installer is None or not Path("/proc").is_dir():
        return 0
    leader = _started(left.installer)
    if leader and leader != left.installer_started:
        return 0  # the number was given to another process: not our session
    members = _session(left.installer)
    for pid in members:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return len(members)


def _session(sid: int) -> list[int]:
    """The running processes whose session is `sid` (an ended one not yet reaped is not)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                stat = (entry / "stat").read_text()
                if os.getsid(int(entry.name)) == sid and stat.rsplit(")", 1)[1].split()[0] != "Z":
                    members.append(int(entry.name))
    return members


def _started(pid: int) -> str:
    """When `pid` started, in the kernel's ticks since boot ("" where it cannot be read): a
    process number reused later has another."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[-1].split()[19]  # field 22, after the name's parentheses


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _pid(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def die_with_parent() -> Callable[[], None] | None:
    """For an installer step's Popen(preexec_fn=...) on Linux: the kernel ends the child when
    the thread that started it ends, a SIGKILL of epochcost included. None elsewhere. The
    library call is looked up here, in the parent: the child between fork and exec only calls
    it."""
    if sys.platform != "linux":
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def in_child() -> None:
        prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent ended before the call: end now
            os._exit(1)

    return in_child
