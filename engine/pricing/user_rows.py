"""Editing the user's own catalog files (the GUI's price editor calls these).

Every change is checked with the same parser the loader uses, then the file is rewritten
atomically (a temporary file beside it, then a rename), so a crash leaves the old file or the
new one, never half of one. Rows the change does not touch are written back exactly as they were,
bad ones and comments included: nothing the user typed is lost.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.core.errors import ConfigError
from engine.pricing.catalog import user_file
from engine.pricing.rows import SCHEMAS, parse_row, row_key


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple | list):
        return ";".join(str(v) for v in value)
    return str(value)


def _read(path: Path, kind: str) -> tuple[list[str], list[list[str]]]:
    if not path.exists():
        return list(SCHEMAS[kind].columns), []
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    if not rows:
        return list(SCHEMAS[kind].columns), []
    return [h.strip() for h in rows[0]], rows[1:]


def _write(path: Path, header: list[str], rows: list[list[str]]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8", newline="") as f:
            f.write(buffer.getvalue())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _key_of(kind: str, header: list[str], cells: list[str]) -> tuple[str, ...] | None:
    if len(cells) != len(header) or (cells and cells[0].lstrip().startswith("#")):
        return None
    try:
        return row_key(kind, dict(zip(header, cells, strict=True)))
    except ConfigError:
        return None


def _checked(kind: str, values: Mapping[str, Any]) -> dict[str, str]:
    schema = SCHEMAS[kind]
    unknown = [k for k in values if k not in schema.parsers]
    if unknown:
        raise ConfigError(unknown[0], f"is not a column of {kind} ({', '.join(schema.columns)})")
    text = {k: _cell(v) for k, v in values.items()}
    parse_row(kind, text, "user")  # raises ConfigError(column, what to fix)
    return text


def _change(kind: str, key: tuple[str, ...] | None, values: Mapping[str, Any] | None) -> Path:
    """Replace the row with `key` by `values` (None: remove it); key None: append `values`."""
    path = user_file(kind)
    header, rows = _read(path, kind)
    new_header = header + [c for c in SCHEMAS[kind].columns if c not in header]
    text = _checked(kind, values) if values is not None else None
    new_key = row_key(kind, text) if text is not None else None
    out: list[list[str]] = []
    found = False
    for cells in rows:
        existing = _key_of(kind, header, cells)
        if existing is not None and existing == key:
            found = True
            if text is not None:
                out.append([text.get(c, "") for c in new_header])
            continue
        if existing is not None and existing == new_key:
            raise ConfigError(kind, f"a row {' / '.join(new_key)} is already there; edit that one")
        if existing is not None and new_header != header:
            by_name = dict(zip(header, cells, strict=True))
            cells = [by_name.get(c, "") for c in new_header]
        out.append(cells)
    if key is not None and not found:
        raise ConfigError(kind, f"no row {' / '.join(key)} in {path}")
    if key is None and text is not None:
        out.append([text.get(c, "") for c in new_header])
    _write(path, new_header, out)
    return path


def add_row(kind: str, values: Mapping[str, Any]) -> Path:
    """Append a row to the user's `kind` file (instances, gpus, grid, machines)."""
    return _change(kind, None, values)


def update_row(kind: str, key: tuple[str, ...], values: Mapping[str, Any]) -> Path:
    """Replace the user's row with `key` (see catalog_rows.row_key) by `values`."""
    return _change(kind, key, values)


def remove_row(kind: str, key: tuple[str, ...]) -> Path:
    return _change(kind, key, None)


def user_rows(kind: str) -> list[dict[str, str]]:
    """The user's well-formed rows as text, each with its first line number (`_line`)."""
    path = user_file(kind)
    if not path.exists():
        return []
    reader = csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig")))
    header = [h.strip() for h in next(reader, [])]
    out, line = [], reader.line_num
    for cells in reader:
        first, line = line + 1, reader.line_num
        if len(cells) == len(header) and not cells[0].lstrip().startswith("#"):
            out.append({"_line": str(first), **dict(zip(header, cells, strict=True))})
    return out
