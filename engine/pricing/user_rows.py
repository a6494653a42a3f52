"""Editing the user's own catalog files (the GUI's price editor calls these).

Every change is checked with the same parser the loader uses (a row it would skip, a spot price
above the on-demand one included, is refused naming the column), then the file is rewritten whole
(engine/core/writing.py: a temporary file beside it, then a rename; a link's target is written,
the link kept), so a crash leaves the old file or the new one, never half of one. Rows the
change does not touch are written back exactly as they were, bad ones and comments included (a
row the csv module cannot read, as its text): nothing the user typed is lost.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.core import writing
from engine.core.errors import ConfigError
from engine.pricing.catalog import user_file
from engine.pricing.csv_records import UNCLOSED_QUOTE, Record, records
from engine.pricing.schema import SCHEMAS, cell, parse_row, row_key


def _records(path: Path) -> list[Record]:
    """The file's rows; ConfigError when it cannot be read (it is then left as it is)."""
    try:
        return records(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path.stem, f"{path} cannot be read ({exc}); fix or move it") from None


def _read(path: Path, kind: str) -> tuple[list[str], list[Record]]:
    if not path.exists():
        return list(SCHEMAS[kind].columns), []
    rows = _records(path)
    if not rows:
        return list(SCHEMAS[kind].columns), []
    if rows[0].cells is None:
        why = f"{path}, line {rows[0].line}: {rows[0].error}"
        raise ConfigError(kind, f"{why}; fix the header before editing here")
    for record in rows:  # a row added or rewritten after it could close that quote
        if record.error == UNCLOSED_QUOTE:
            why = f"{path}, line {record.line}: {record.error}"
            raise ConfigError(kind, f"{why}; fix it before editing here")
    return [h.strip() for h in rows[0].cells], rows[1:]


def _write(path: Path, header: list[str], rows: list[list[str] | str]) -> None:
    """Rows as cells, or as text to write as it is (a row the csv module cannot read)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        if isinstance(row, str):
            buffer.write(row if row.endswith("\n") else row + "\n")
        else:
            writer.writerow(row)
    writing.write_text(path, buffer.getvalue())


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
    text = {k: cell(v) for k, v in values.items()}
    parse_row(kind, text, "user")  # raises ConfigError(column, what to fix)
    return text


def _change(kind: str, key: tuple[str, ...] | None, values: Mapping[str, Any] | None) -> Path:
    """Replace the row with `key` by `values` (None: remove it); key None: append `values`."""
    path = user_file(kind)
    header, rows = _read(path, kind)
    new_header = header + [c for c in SCHEMAS[kind].columns if c not in header]
    text = _checked(kind, values) if values is not None else None
    new_key = row_key(kind, text) if text is not None else None
    out: list[list[str] | str] = []
    found = False
    for record in rows:
        if record.cells is None:
            out.append(record.text)
            continue
        cells = record.cells
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
    """Replace the user's row with `key` (see engine/pricing/schema.py, row_key) by `values`."""
    return _change(kind, key, values)


def remove_row(kind: str, key: tuple[str, ...]) -> Path:
    return _change(kind, key, None)


def user_rows(kind: str) -> list[dict[str, str]]:
    """The user's well-formed rows as text, each with its first line number (`_line`)."""
    path = user_file(kind)
    if not path.exists():
        return []
    rows = _records(path)
    if not rows or rows[0].cells is None:
        return []
    header = [h.strip() for h in rows[0].cells]
    out = []
    for record in rows[1:]:
        cells = record.cells
        if cells and len(cells) == len(header) and not cells[0].lstrip().startswith("#"):
            out.append({"_line": str(record.line), **dict(zip(header, cells, strict=True))})
    return out
