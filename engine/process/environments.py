"""Which Python runs each framework's workers: the app's own, unless another was chosen (File >
Settings in the app, `epochcost env create`, or by hand). One small JSON file in the data folder,
`environments.json`: {"torch": "/path/to/python", ...}; a framework not named runs in the
app's own Python. The app and the CLI read the same file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engine.core import paths
from engine.process.interpreter import FRAMEWORK_MODULES
from engine.results.files import write_json

FILE_NAME = "environments.json"


def path() -> Path:
    return paths.home(create=False) / FILE_NAME


def load() -> dict[str, str]:
    """The chosen Python per framework; {} when none is (a missing or unreadable file, or an
    entry that is not a path text, counts as not chosen: runs use the app's own)."""
    try:
        data = json.loads(path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        framework: python.strip()
        for framework, python in data.items()
        if framework in FRAMEWORK_MODULES and isinstance(python, str) and python.strip()
    }


def save(chosen: dict[str, str]) -> Path:
    """Keep `chosen` (frameworks left out or empty: the app's own); whole or not at all."""
    home = paths.home(create=True)
    kept = {f: p.strip() for f, p in chosen.items() if f in FRAMEWORK_MODULES and p.strip()}
    return write_json(home / FILE_NAME, kept)


def python_for(framework: str) -> str:
    return load().get(framework) or sys.executable
