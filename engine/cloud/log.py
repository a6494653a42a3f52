"""A cloud job's log read back: the worker's events and the run command's clock lines.

SkyPilot writes each line of a job's output with a prefix naming where it ran, `(task, pid=N)`
on one node, `(head, rank=0, pid=N)` and `(worker1, rank=1, pid=N, ip=...)` on several, and
setup's lines `(setup pid=N)`, sometimes coloured. The prefix and any colour codes are taken
off; of several nodes only rank 0 is kept, whose first process reports the run (the others
report the same figures). A line that is no event (a framework's log, SkyPilot's own notes) is
skipped, so a log saved by hand, or copied from a terminal, is read as well.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.cloud.commands import CLOCK
from engine.core import reading
from engine.core.errors import ConfigError
from engine.core.events import Event, Failed, Finished, Started, from_json
from engine.results.files import file_name

_PREFIX = re.compile(r"^\((?P<who>[^()]*)\)\s?")
_RANK = re.compile(r"\brank=(\d+)")
_COLOUR = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
MAX_LOG_BYTES = 512 * 2**20  # a job log this big is not a measurement's


@dataclass(frozen=True)
class JobLog:
    """What a job log holds: the reporting node's events in order, and the clock lines (first
    of each name; seconds since the epoch); `source` names the log in a refusal (its file)."""

    events: tuple[Event, ...] = ()
    clocks: dict[str, float] = field(default_factory=dict)
    source: str = "log"

    @property
    def result(self) -> dict[str, Any] | None:
        """The finished run's result, None when the worker did not finish."""
        found = [e.result for e in self.events if isinstance(e, Finished)]
        return found[-1] if found else None

    @property
    def failure(self) -> Failed | None:
        found = [e for e in self.events if isinstance(e, Failed)]
        return found[-1] if found else None

    @property
    def started(self) -> Started | None:
        return next((e for e in self.events if isinstance(e, Started)), None)


def line_of(raw: str) -> tuple[int | None, str]:
    """One log line without its colour codes and SkyPilot's prefix: (the node's rank, None
    when the prefix names none, and the text)."""
    line = _COLOUR.sub("", raw).rstrip("\r\n")
    match = _PREFIX.match(line)
    if not match:
        return None, line
    rank = _RANK.search(match["who"])
    return (int(rank[1]) if rank else None), line[match.end() :]


def parse(text: str, source: str = "log") -> JobLog:
    """The events and clocks of a job log's text (`source`: where it came from)."""
    events: list[Event] = []
    clocks: dict[str, float] = {}
    for raw in text.splitlines():
        rank, line = line_of(raw)
        if rank not in (None, 0):
            continue
        line = line.strip()
        if line.startswith(CLOCK + " "):
            _clock(line, clocks)
        elif line.startswith("{"):
            try:
                events.append(from_json(line))
            except ValueError:
                continue  # a framework's JSON, or a line cut short
    return JobLog(tuple(events), clocks, source)


def _clock(line: str, clocks: dict[str, float]) -> None:
    parts = line.split()
    if len(parts) != 3:
        return
    try:
        seconds = float(parts[2])
    except ValueError:
        return  # "launched" with no launch time (a task started by hand)
    if seconds > 0 and seconds == seconds:
        clocks.setdefault(parts[1], seconds)


def read(path: Path) -> JobLog:
    """A saved job log; a ConfigError (one line) when it cannot be read."""
    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            raise ConfigError("log", f"{path}: over {MAX_LOG_BYTES // 2**20} MB, not a job log")
        text = reading.read_text(path, errors="replace")
    except FileNotFoundError:
        raise ConfigError("log", f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError("log", f"{path}: a folder; give the job's log file") from None
    except OSError as exc:
        raise ConfigError("log", f"{path}: cannot be read ({exc.strerror or exc})") from None
    return parse(text, file_name(path))
