"""Keeping a measured result: never lost to a store that cannot take it.

The result file (--out) is written first, whole or not at all; then the store takes it. When the
store fails (damaged, locked, a full disk) and no file was written, the result goes to a file in
the data folder's recovered/ folder, and the caller says where (the CLI exits 3); a result whose
run id is no run id (engine/core/ids.py: "../profiles", an absolute path) names no file there and
is not written. The CLI's run, sweep and accuracy commands and the desktop app keep results this
way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.core import ids, paths
from engine.core.errors import ConfigError, StoreError
from engine.results.files import write_json

if TYPE_CHECKING:  # the store imports pandas; a caller that keeps results has opened one
    from engine.results.store import Store


@dataclass
class Kept:
    """Where a result is kept: in the store, in a file, both; and what went wrong."""

    run_id: str
    stored: bool = False
    file: Path | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def lost(self) -> bool:
        return not self.stored and self.file is None

    def message(self) -> str:
        """One paragraph for the user; empty when all went well."""
        if not self.problems:
            return ""
        text = "; ".join(self.problems)
        if self.stored:
            return f"{text}. The result is in the store ({self.run_id})."
        if self.file is not None:
            return (
                f"{text}. The result is kept in {self.file}; `epochcost results import "
                f"{self.file}` adds it to the store later."
            )
        return f"{text}. The result could not be written anywhere."


def keep(
    result: dict[str, Any],
    store: Store | Callable[[], Store] | None,
    out: Path | None = None,
    group_id: str | None = None,
) -> Kept:
    """Write `result` to `out` (if given), then add it to `store` (if given; a function that
    opens one counts its failure to open as the store's). Never raises for a storage fault:
    what went wrong is in the returned Kept."""
    kept = Kept(result["run_id"])
    if out is not None:
        try:
            kept.file = write_json(out, result)
        except StoreError as exc:
            kept.problems.append(f"the result file {exc}")
    if store is None:
        return kept
    try:
        opened = store() if callable(store) else store
        opened.add(result, group_id=group_id)
        kept.stored = True
    except (StoreError, ConfigError) as exc:
        kept.problems.append(f"the results store could not take it: {exc}")
    except Exception as exc:  # not foreseen (an OS error, a bug): kept in a file all the same
        kept.problems.append(f"the results store could not take it: {type(exc).__name__}: {exc}")
    if not kept.stored and kept.file is None:
        kept.file = _recover(result, kept.problems)
    return kept


def _recover(result: dict[str, Any], problems: list[str]) -> Path | None:
    """The recovery file of a result the store could not take, named by its run id; None, with
    the problem, when it cannot be written or the run id names no file in recovered/."""
    try:
        run_id = ids.check_run_id(result.get("run_id"), "run_id")
        folder = paths.recovered()
        folder.mkdir(exist_ok=True)
        return write_json(folder / f"{run_id}.json", result)
    except (StoreError, OSError, ConfigError) as exc:
        problems.append(f"no recovery file either: {exc}")
        return None
