"""A result named on the command line (compare, project, plan, report): a result JSON file, else
a run id (or its unique start) in the store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.errors import ConfigError
from engine.results.store import Store, read_result_file


def load_result(text: str) -> dict[str, Any]:
    """A result from a file path, else from the store by run id (or a unique prefix)."""
    if not text.strip():  # no path: Path("") is the current folder
        raise ConfigError(
            "run_id", f"{text!r} is blank: give a run id (or its start) or a result JSON file"
        )
    path = Path(text)
    if path.exists() or text.endswith(".json") or "/" in text:
        return read_result_file(path)
    return Store(readonly=True).get(text)
