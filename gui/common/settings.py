"""UI state in QSettings, behind this one module: window geometry, last folder, form values.

The settings live in an INI file in the data folder (EPOCHCOST_HOME honoured), so tests and a
portable install keep to their own folder. Every read names a default and returns that type: a
value of another type (a hand-edited file, an older version) reads as the default. Benchmark
configs and results are never kept here: they are files and database rows.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from engine.core import paths
from engine.process import environments

FILE_NAME = "gui-settings.ini"

GEOMETRY = "window/geometry"
WINDOW_STATE = "window/state"
SPLITTER = "window/splitter"
FORM = "form/values"
LAST_FOLDER = "files/last_folder"
THEME = "view/theme"
# Where older versions kept the Python chosen per framework; it lives in environments.json now
# (engine/process/environments.py: the app and the CLI read the same file) and moves there once.
INTERPRETERS = "workers/interpreters"
ACCURACY_FORM = "accuracy/values"
# The user's own model files that passed the check, as {"files": [...]} (gui/panel/model_files.py).
MODEL_FILES = "models/files"


class Settings:
    """Typed reads with defaults over one QSettings INI file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.home() / FILE_NAME
        self._q = QSettings(str(self.path), QSettings.Format.IniFormat)

    def text(self, key: str, default: str) -> str:
        value = self._q.value(key, default)
        return value if isinstance(value, str) else default

    def integer(self, key: str, default: int) -> int:
        # INI files give numbers back as text.
        try:
            return int(str(self._q.value(key, default)))
        except (TypeError, ValueError):
            return default

    def blob(self, key: str) -> QByteArray | None:
        value = self._q.value(key)
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def mapping(self, key: str) -> dict[str, Any]:
        """A dict stored as JSON text; {} when absent or unreadable."""
        try:
            value = json.loads(self.text(key, "{}"))
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}

    def interpreters(self) -> dict[str, str]:
        """The interpreter chosen per framework (environments.json); frameworks left at the
        default are absent. A choice an older version kept in this file moves there once."""
        chosen = environments.load()
        if chosen or environments.path().exists():
            return chosen
        kept = self.mapping(INTERPRETERS)
        legacy = {k: v for k, v in kept.items() if isinstance(v, str) and v.strip()}
        if legacy:
            with contextlib.suppress(OSError):  # unwritable: it stays here, read next time
                environments.save(legacy)
                self._q.remove(INTERPRETERS)
        return legacy

    def set_interpreters(self, chosen: dict[str, str]) -> None:
        """Keep each framework's interpreter for the app and the CLI (StoreError when the
        data folder cannot be written)."""
        environments.save(chosen)

    def set(self, key: str, value: str | int | QByteArray | dict[str, Any]) -> None:
        self._q.setValue(key, json.dumps(value) if isinstance(value, dict) else value)

    def sync(self) -> None:
        self._q.sync()
