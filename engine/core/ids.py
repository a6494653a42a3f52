"""Run ids and study (group) ids: sortable by time, unique."""

from __future__ import annotations

import datetime as _dt
import uuid


def new_run_id() -> str:
    """Sortable by time, unique: 20261122T031500-1a2b3c4d."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{uuid.uuid4().hex[:8]}"


def new_group_id(kind: str) -> str:
    """The id a study gives its runs, led by its kind: accuracy-20261122T031500-1a2b3c4d."""
    return f"{kind}-{new_run_id()}"
