"""Results store: SQLite in the data folder, WAL, one transaction per finished result.

The whole result is kept as JSON; a few columns are copied out for listing and sorting. A stored
result is never replaced: adding one whose run id is there is a no-op when the content is the
same and refused when it differs. Commands that only read open the store read-only. Every
SQLite failure becomes a StoreError naming the file and what to do. Every row is read through
engine/results/schema.py's validate(), the listing's rows as well (what compare and project
read as measured elsewhere): a row that does not pass is listed as damaged, with no figures,
and the rest of the store stays usable.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from engine.core import paths, reading
from engine.core.errors import ConfigError, StoreError
from engine.results import plausible
from engine.results.files import file_name, read_result_file
from engine.results.listing import (
    DAMAGED,
    LIST_COLUMNS,
    LISTING,
    Damage,
    columns,
    listed,
    problem,
    read_body,
)
from engine.results.schema import validate

SCHEMA_VERSION = 1

_CREATE = """
CREATE TABLE IF NOT EXISTS results (
    run_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    status TEXT NOT NULL,
    model TEXT NOT NULL,
    framework TEXT NOT NULL,
    device TEXT,
    batch_size INTEGER,
    precision TEXT,
    throughput_samples_per_s REAL,
    memory_fill REAL,
    usd_per_epoch REAL,
    price_source TEXT,
    group_id TEXT,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_created ON results(created_at);
CREATE INDEX IF NOT EXISTS results_group ON results(group_id);
"""


@dataclass(frozen=True)
class Added:
    """What adding a result did: `stored`, `unchanged` (the same result was there) or
    `renamed` (kept under a new run id, on request)."""

    run_id: str
    outcome: str
    unchecked: str | None = None  # why its FLOP rate could not be checked (plausible.check)

    def describe(self, verb: str = "imported") -> str:
        if self.outcome == "unchanged":
            return f"{self.run_id} is already stored with the same content; nothing changed"
        said = (
            f"{verb} as {self.run_id} (a different result has the original id)"
            if self.outcome == "renamed"
            else f"{verb} {self.run_id}"
        )
        if self.unchecked:
            said += f"; its FLOP rate is unchecked: {self.unchecked}"
        return said


class Store:
    # How long a write waits for another process's lock before it gives up.
    lock_timeout_s: ClassVar[float] = 10.0

    def __init__(self, path: Path | None = None, *, readonly: bool = False) -> None:
        self.path = Path(path) if path is not None else paths.database(create=not readonly)
        self.readonly = readonly
        if self.path.is_dir():
            raise StoreError(
                self.path,
                "is a folder, not a results store; move it away or set EPOCHCOST_HOME "
                "to another folder",
            )
        if readonly and not self.path.exists():
            return  # nothing stored yet: every read is empty
        with self._connect() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    self.path,
                    f"was written by a newer epochcost (schema {version}); "
                    "upgrade epochcost or set EPOCHCOST_HOME to another folder",
                )
            if version < SCHEMA_VERSION and not readonly:
                db.executescript(_CREATE)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # connections -------------------------------------------------------------------------

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = self._open()
        try:
            with db:  # one transaction; committed on success, rolled back on error
                yield db
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        finally:
            db.close()

    def _open(self) -> sqlite3.Connection:
        try:
            if not self.readonly:
                db = sqlite3.connect(self.path, timeout=self.lock_timeout_s)
                db.execute("PRAGMA journal_mode=WAL")
                return db
            uri = self.path.resolve().as_uri() + "?mode=ro"
            db = sqlite3.connect(uri, uri=True, timeout=self.lock_timeout_s)
            try:
                db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            except sqlite3.OperationalError:
                # A WAL store in a folder this user cannot write to has no shared-memory file
                # to open: read it as a file nobody is writing.
                db.close()
                if os.access(self.path.parent, os.W_OK):
                    raise
                db = sqlite3.connect(uri + "&immutable=1", uri=True)
                db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def _error(self, exc: sqlite3.Error) -> StoreError:
        text = str(exc).lower()
        if "locked" in text or "busy" in text:
            why = (
                f"is in use by another epochcost (still locked after {self.lock_timeout_s:g} s); "
                "let it finish or close it, then try again"
            )
        elif "not a database" in text or "malformed" in text or "disk image" in text:
            why = (
                "is damaged (not a readable results database); move it aside and epochcost "
                "starts a new one, or put back a copy"
            )
        elif "readonly" in text or "read-only" in text:
            why = (
                "is read-only; make it and its folder writable, or set EPOCHCOST_HOME to a "
                "folder you can write to"
            )
        elif "full" in text:
            why = "cannot be written: the disk is full; free some space and try again"
        elif "disk i/o" in text:
            why = (
                "cannot be read or written (disk I/O error: a full disk or a failing drive); "
                "free some space, or set EPOCHCOST_HOME to a folder on another disk"
            )
        elif "unable to open" in text:
            why = (
                "cannot be opened; check that it is a file in a folder you can read and write, "
                "or set EPOCHCOST_HOME to another folder"
            )
        else:
            why = f"cannot be used ({exc}); set EPOCHCOST_HOME to another folder to go on"
        return StoreError(self.path, why)

    # writing -------------------------------------------------------------------------------

    def add(self, result: dict[str, Any], group_id: str | None = None) -> Added:
        """Store a new result. Never replaces one: the same run id with the same content is a
        no-op (`unchanged`), with other content a ConfigError; one dated in the future is
        refused as every read would list it damaged (plausible.stored_problem)."""
        validate(result)
        why = plausible.stored_problem(result)
        if why is not None:
            raise ConfigError("result", why)
        with self._connect() as db:
            stored = self._body(db, result["run_id"])
            if stored is not None:
                if _same(stored, result):
                    return Added(result["run_id"], "unchanged")
                raise ConfigError(
                    "run_id",
                    f"a different result with run id {result['run_id']} is already stored; "
                    "nothing was changed (import it with --new-id to keep both)",
                )
            db.execute(f"INSERT INTO results VALUES ({','.join('?' * 14)})", _row(result, group_id))
        return Added(result["run_id"], "stored")

    def import_result(
        self, result: dict[str, Any], new_id: bool = False, where: str = "result"
    ) -> Added:
        """Add a result from elsewhere, one that could have been measured (plausible.check;
        `where` it came from names it in a refusal); with new_id, one whose run id holds
        another result is kept under the first free `<run id>-2`, `-3`, ... instead of being
        refused."""
        unchecked = plausible.check(validate(result, where), where)
        added = self._import(result, new_id)
        return dataclasses.replace(added, unchecked=unchecked)

    def _import(self, result: dict[str, Any], new_id: bool) -> Added:
        if not new_id:
            return self.add(result)
        base, n = result["run_id"], 1
        with self._connect() as db:
            while True:
                run_id = base if n == 1 else f"{base}-{n}"
                stored = self._body(db, run_id)
                if stored is None:
                    break
                if _same(stored, {**result, "run_id": run_id}):
                    return Added(run_id, "unchanged")
                n += 1
        added = self.add({**result, "run_id": run_id})
        return Added(run_id, "renamed" if n > 1 and added.outcome == "stored" else added.outcome)

    def import_file(self, path: Path, new_id: bool = False) -> Added:
        """Add a result from an exported JSON file. Refuses anything that is not one."""
        return self.import_result(read_result_file(path), new_id, file_name(path))

    def delete(self, run_id: str) -> str:
        """Delete a result by its id or a unique prefix; one whose stored JSON is damaged too.
        Returns the full id deleted: a prefix names it only as long as it is unique."""
        full, _ = self._find(run_id)
        with self._connect() as db:
            db.execute("DELETE FROM results WHERE run_id = ?", (full,))
        return full

    # reading -------------------------------------------------------------------------------

    def get(self, run_id: str) -> dict[str, Any]:
        """A result by its id or a unique prefix of it; ConfigError when none or ambiguous,
        or when what is stored is not a readable result."""
        rid, body = self._find(run_id)
        try:
            return read_body(body, rid)
        except Damage as exc:
            raise ConfigError(
                "run_id",
                f"stored result {rid} cannot be read ({exc}); "
                f"remove it with `epochcost results delete {rid}`",
            ) from None

    def _find(self, run_id: str) -> tuple[str, Any]:
        """The stored (run id, body) of an id or a unique prefix; ConfigError otherwise. An empty
        id is refused: as a prefix it would match every result (`results delete ''` would
        delete the only one)."""
        if not run_id.strip():
            raise ConfigError(
                "run_id",
                f"{run_id!r} is not a run id: give a run id or the start of one "
                "(see `epochcost results list`)",
            )
        rows = []
        if self.path.exists():
            with self._connect() as db:
                rows = db.execute(
                    "SELECT run_id, body FROM results"
                    " WHERE run_id = ? OR run_id LIKE ? ESCAPE '\\' LIMIT 3",
                    (run_id, _like_prefix(run_id)),
                ).fetchall()
        exact = [(rid, body) for rid, body in rows if rid == run_id]
        if not exact and not rows:
            raise ConfigError("run_id", f"no result {run_id!r} (see `epochcost results list`)")
        if not exact and len(rows) > 1:
            raise ConfigError("run_id", f"{run_id!r} matches several results; give more of it")
        rid, body = (exact or rows)[0]
        return str(rid), body

    def list(self, group_id: str | None = None) -> pd.DataFrame:
        """One row per result, newest first, with the listing columns (LISTING). Every row's
        stored JSON passes validate() and the date rule first, as get() reads it: a row that
        does not is listed last, with status DAMAGED and no figures (damaged() says why),
        and the rest stay usable."""
        rows = [listed(row) for row in self._rows(group_id)]
        # A damaged row's date is not to be trusted (9999-12-31 would head the list for good):
        # damaged rows come after the readable ones, each group newest first.
        status = list(LISTING).index("status")
        rows.sort(key=lambda row: row[status] == DAMAGED)
        return pd.DataFrame(rows, columns=list(LISTING))

    def damaged(self) -> dict[str, str]:
        """Run id -> why, for each stored result that cannot be read (`results show ID` says
        the same; `results delete ID` removes it)."""
        out = {}
        for row in self._rows(None):
            why = problem(row)
            if why is not None:
                out[str(row[0])] = why
        return dict(sorted(out.items()))

    def _rows(self, group_id: str | None) -> Sequence[tuple[Any, ...]]:
        """The listing columns and the stored JSON of each row, newest first."""
        if not self.path.exists():
            return ()
        query = f"SELECT {', '.join(LIST_COLUMNS)}, body FROM results"
        params: tuple[Any, ...] = ()
        if group_id:
            query += " WHERE group_id = ?"
            params = (group_id,)
        with self._connect() as db:
            return db.execute(query + " ORDER BY created_at DESC, run_id DESC", params).fetchall()

    @staticmethod
    def _body(db: sqlite3.Connection, run_id: str) -> str | None:
        row = db.execute("SELECT body FROM results WHERE run_id = ?", (run_id,)).fetchone()
        return row[0] if row else None


def _row(result: dict[str, Any], group_id: str | None) -> tuple[Any, ...]:
    return (*columns(result, group_id), json.dumps(result, allow_nan=False))


def _same(body: Any, result: dict[str, Any]) -> bool:
    """Whether a stored body holds `result` (as JSON reads both back); a body that cannot be
    read holds no result."""
    try:
        return bool(reading.loads(body) == json.loads(json.dumps(result)))
    except (ValueError, TypeError):  # BadJson is a ValueError
        return False


def _like_prefix(prefix: str) -> str:
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
