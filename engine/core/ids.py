"""Run ids and study (group) ids: sortable by time, unique; and the pattern every run id
matches, wherever it comes from (a result file, a job log).

A run id names a file in some places (the recovery file engine/results/saving.py writes when
the store cannot take a result): the pattern admits no path separator and no leading dot, so
that no id ("../profiles", "/etc/passwd") names a file outside the folder it is put in.
"""

from __future__ import annotations

import datetime as _dt
import re
import uuid

from engine.core.errors import ConfigError

RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
RUN_ID_RULE = "letters, digits, '.', '_' and '-', at most 128, starting with a letter or digit"


def new_run_id() -> str:
    """Sortable by time, unique: 20261122T031500-1a2b3c4d."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{uuid.uuid4().hex[:8]}"


def new_group_id(kind: str) -> str:
    """The id a study gives its runs, led by its kind: accuracy-20261122T031500-1a2b3c4d."""
    return f"{kind}-{new_run_id()}"


def is_run_id(value: object) -> bool:
    """Whether `value` is a run id (RUN_ID): text that can name a file in a folder, no more."""
    return isinstance(value, str) and RUN_ID.fullmatch(value) is not None


def check_run_id(value: object, where: str) -> str:
    """`value` when it is a run id; else a ConfigError naming `where` it came from."""
    if not is_run_id(value):
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        raise ConfigError(where, f"{shown} is not a run id ({RUN_ID_RULE})")
    return str(value)
