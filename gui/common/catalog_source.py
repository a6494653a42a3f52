"""CatalogSource: the price and hardware catalog for the GUI, loaded on first use.

The price panel and the Compare page share one source. Adding a row to the user's files goes
through `add_row`, which reloads the catalog and tells every reader (`reloaded`). Rows of the
user's files that cannot be loaded are skipped by the engine; each load that finds some says so
through `message` (text, level, details: one line per bad row with its file and line).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from engine.pricing import catalog
from engine.pricing import user_rows as catalog_user
from engine.pricing.catalog import Catalog


class CatalogSource(QObject):
    reloaded = Signal(object)  # the new Catalog
    message = Signal(str, str, str)  # text, level, details

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._catalog: Catalog | None = None
        # The last load's message (text, level, details), None when it found nothing wrong:
        # a reader made after it (the Compare tab, built when first shown) says it too.
        self.last_message: tuple[str, str, str] | None = None

    def get(self) -> Catalog:
        """The catalog (loaded the first time; about 10 ms)."""
        if self._catalog is None:
            self.reload()
        assert self._catalog is not None
        return self._catalog

    def reload(self) -> Catalog:
        self._catalog = catalog.load()
        problems = self._catalog.problems
        self.last_message = None
        if problems:
            rows = "row" if len(problems) == 1 else "rows"
            first = str(problems[0])
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            self.last_message = (
                f"Your catalog files: {len(problems)} {rows} skipped, the rest loaded. "
                f"{first}{more}",
                "error",
                "\n".join(str(p) for p in problems),
            )
            self.message.emit(*self.last_message)
        self.reloaded.emit(self._catalog)
        return self._catalog

    def add_row(self, kind: str, values: Mapping[str, Any]) -> Path:
        """Append a row to the user's `kind` file (ConfigError naming the column if a value is
        wrong, nothing written then), reload, and return the file written."""
        path = catalog_user.add_row(kind, values)
        self.reload()
        return path
