"""CSV text split into rows, each parsed alone: a row the csv module cannot read costs only itself.

The csv module gives up on a whole file at a row it cannot read (a cell over its field limit, a
NUL byte, a quote never closed). `records` finds where each row ends as the csv module would and
parses each alone: such a row becomes a Record with its error and reading goes on. The price
catalog (engine/pricing/catalog.py), its user-file editor (engine/pricing/user_rows.py) and the
plan presets (engine/plan/presets.py) read their CSVs with it.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

UNCLOSED_QUOTE = "a quote opened on this line is never closed"


@dataclass(frozen=True)
class Record:
    """One row of a CSV file: the line it starts on, its text as in the file (end of line
    included, several lines for a quoted cell over lines), and its cells; cells None: the csv
    module cannot read it, `error` says why."""

    line: int
    text: str
    cells: list[str] | None
    error: str = ""


def records(text: str) -> list[Record]:
    """The rows of a CSV text (the header first), each parsed on its own.

    A row ends at the end of a line outside quotes, found here as the csv module would (its
    default dialect), so a row it cannot read does not take the rows after it along. A quote
    never closed makes its line alone a bad row; reading goes on at the next line.
    """
    lines = io.StringIO(text).readlines()  # split at "\n" only, as csv.reader's input is
    open_after = [_ends_quoted(line, quoted=False) for line in lines]
    # closes[j]: the first line from j on that ends out of quotes, entered inside them
    closes: list[int | None] = [None] * (len(lines) + 1)
    for j in range(len(lines) - 1, -1, -1):
        closes[j] = j if not _ends_quoted(lines[j], quoted=True) else closes[j + 1]
    out: list[Record] = []
    i = 0
    while i < len(lines):
        last = closes[i + 1] if open_after[i] else i
        if last is None:
            out.append(Record(i + 1, lines[i], None, UNCLOSED_QUOTE))
            i += 1
            continue
        out.append(_record(i + 1, "".join(lines[i : last + 1])))
        i = last + 1
    return out


def _ends_quoted(line: str, quoted: bool) -> bool:
    """Whether a line ends inside a quoted cell (csv's states; a quote inside an unquoted cell
    is text)."""
    if '"' not in line:
        return quoted
    state = "quoted" if quoted else "start"
    for char in line:
        if state == "start":
            state = "quoted" if char == '"' else "start" if char == "," else "cell"
        elif state == "cell":
            state = "start" if char == "," else "cell"
        elif state == "quoted":
            state = "quote" if char == '"' else "quoted"
        else:  # a quote in a quoted cell: "" is one quote, else the quoted part ends
            state = "quoted" if char == '"' else "start" if char == "," else "cell"
    return state == "quoted"


def _record(line: int, text: str) -> Record:
    if "\0" in text:
        return Record(line, text, None, "holds a NUL byte (a binary or damaged file?)")
    try:
        rows = list(csv.reader([text]))
    except csv.Error as exc:
        limit = csv.field_size_limit()
        why = f"a cell is over {limit} characters, csv's limit" if "limit" in str(exc) else exc
        return Record(line, text, None, f"cannot be read as CSV: {why}")
    if len(rows) > 1:  # not expected: the split above is csv's own
        return Record(line, text, None, "cannot be read as CSV: more than one row")
    return Record(line, text, rows[0] if rows else [])
