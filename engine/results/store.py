"""Results store: SQLite in the data folder, WAL, one transaction per finished result.

The whole result is kept as JSON; a few columns are copied out for listing and sorting.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from engine.core import paths
from engine.core.errors import ConfigError
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

LIST_COLUMNS = (
    "run_id",
    "created_at",
    "status",
    "model",
    "framework",
    "device",
    "batch_size",
    "precision",
    "throughput_samples_per_s",
    "memory_fill",
    "usd_per_epoch",
    "price_source",
    "group_id",
)


class Store:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.database()
        with self._connect() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise ConfigError(
                    "store",
                    f"{self.path} was written by a newer epochcost (schema {version}); "
                    "upgrade epochcost or set EPOCHCOST_HOME to another folder",
                )
            db.executescript(_CREATE)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            with db:  # one transaction; committed on success, rolled back on error
                yield db
        finally:
            db.close()

    def add(self, result: dict[str, Any], group_id: str | None = None) -> str:
        """Store a result (replacing one with the same run_id). Returns the run_id."""
        validate(result)
        config = result["config"]
        env = result.get("environment") or {}
        price = result.get("price") or {}
        row = (
            result["run_id"],
            result.get("created_at") or "",
            result["status"],
            config.get("model", ""),
            config.get("framework", ""),
            env.get("device_name") or env.get("device") or config.get("device"),
            config.get("batch_size"),
            config.get("precision"),
            result.get("throughput_samples_per_s"),
            result.get("memory_fill"),
            result.get("usd_per_epoch"),
            price.get("source"),
            group_id or result.get("group_id"),
            json.dumps(result, allow_nan=False),
        )
        with self._connect() as db:
            db.execute(f"INSERT OR REPLACE INTO results VALUES ({','.join('?' * len(row))})", row)
        return result["run_id"]

    def get(self, run_id: str) -> dict[str, Any]:
        """A result by its id or a unique prefix of it; ConfigError when none or ambiguous."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT run_id, body FROM results"
                " WHERE run_id = ? OR run_id LIKE ? ESCAPE '\\' LIMIT 3",
                (run_id, _like_prefix(run_id)),
            ).fetchall()
        exact = [body for rid, body in rows if rid == run_id]
        if exact:
            return json.loads(exact[0])
        if not rows:
            raise ConfigError("run_id", f"no result {run_id!r} (see `epochcost results list`)")
        if len(rows) > 1:
            raise ConfigError("run_id", f"{run_id!r} matches several results; give more of it")
        return json.loads(rows[0][1])

    def delete(self, run_id: str) -> None:
        full = self.get(run_id)["run_id"]
        with self._connect() as db:
            db.execute("DELETE FROM results WHERE run_id = ?", (full,))

    def list(self, group_id: str | None = None) -> pd.DataFrame:
        """One row per result, newest first, with the listing columns."""
        query = f"SELECT {', '.join(LIST_COLUMNS)} FROM results"
        params: tuple[Any, ...] = ()
        if group_id:
            query += " WHERE group_id = ?"
            params = (group_id,)
        with self._connect() as db:
            rows = db.execute(query + " ORDER BY created_at DESC, run_id DESC", params).fetchall()
        return pd.DataFrame(rows, columns=list(LIST_COLUMNS))

    def export(self, run_id: str, out: Path) -> Path:
        result = self.get(run_id)
        out.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", encoding="utf-8")
        return out

    def import_file(self, path: Path) -> str:
        """Add a result from an exported JSON file. Refuses anything that is not one."""
        return self.add(read_result_file(path))


def read_result_file(path: Path) -> dict[str, Any]:
    """Read and validate a result JSON file (never pickle), with a message that says why not."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(where, "no such file") from None
    except IsADirectoryError:
        raise ConfigError(where, "is a folder, not a result file") from None
    except UnicodeDecodeError:
        raise ConfigError(where, "is not a text (JSON) file") from None
    except OSError as exc:
        raise ConfigError(where, f"cannot be read: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(where, f"is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    return validate(data, where)


def _like_prefix(prefix: str) -> str:
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
