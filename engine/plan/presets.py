"""Published models to plan against and run-count tables for the fully-loaded cost, shipped in
assets/plan/ (apart from the derived price catalog) or the user's own CSV. Each row carries its
citation.

presets.csv: name, params, tokens (blank: not published), n_layers, seq_len, d_attn, attention
(causal | full | blank), published_gpu_hours and published_gpu (the catalog GPU they ran on),
params_source, tokens_source, notes.
runs.csv: table, label, runs, relative_size, source; a table is all rows with that name. A user
file has the columns label, runs and optionally relative_size (default 1) and source.

A row wrong in its values stops the load (ConfigError naming the file and line). A row the csv
module cannot read (a cell over its limit, a NUL byte) is skipped and reported, as in the price
catalog: into `problems` when the caller passes a list, else on stderr.
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from engine.core import paths, reading
from engine.core.checks import cell_number
from engine.core.errors import ConfigError
from engine.plan import planner
from engine.plan.planner import Compute, RunsRow
from engine.pricing.catalog import Problem
from engine.pricing.csv_records import records

DEFAULT_RUNS_TABLE = "sharir-2020"
MAX_CSV_BYTES = 16 * 1024 * 1024  # a run-count table is a few lines; more is not one


@dataclass(frozen=True)
class Preset:
    """A published model: its size, training tokens and shape, with where each comes from."""

    name: str
    params: float
    tokens: float | None
    n_layers: int | None = None
    seq_len: int | None = None
    d_attn: int | None = None
    causal: bool = True
    published_gpu_hours: float | None = None
    published_gpu: str = ""
    params_source: str = ""
    tokens_source: str = ""
    notes: str = ""

    def compute(self, tokens: float | None = None) -> Compute:
        """Its training FLOPs (6ND + attention); `tokens` replaces the published count."""
        tokens = tokens if tokens is not None else self.tokens
        if tokens is None:
            raise ConfigError("tokens", f"{self.name} has no published token count; give it")
        return planner.transformer(
            self.params, tokens, self.n_layers, self.seq_len, self.d_attn, self.causal
        )


def _number(where: str, column: str, text: str, integer: bool = False) -> float | None:
    value = cell_number(where, text, f"{column} ")
    if value is None:
        return None
    text = text.strip()
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(where, f"{column} {text} must be more than 0")
    if integer and value != int(value):
        raise ConfigError(where, f"{column} {text} must be a whole number")
    return int(value) if integer else value


def _rows(
    path: Path,
    required: tuple[str, ...],
    problems: list[Problem] | None,
    field: str | None = None,
) -> list[tuple[int, dict[str, str]]]:
    """The rows of a CSV as column -> text (missing cells blank, extra ones dropped), each with
    its first line; a row the csv module cannot read goes to `problems` (None: stderr). A file
    that cannot be read is a ConfigError on `field` (default: the path)."""
    text = _read(path, field or str(path))
    found = records(text)
    if found and found[0].cells is None:
        raise ConfigError(f"{path.name}, line {found[0].line}", found[0].error)
    header = (found[0].cells or []) if found else []
    missing = [c for c in required if c not in header]
    if missing:
        raise ConfigError(str(path), f"missing column(s) {', '.join(missing)}")
    out = []
    for record in found[1:]:
        if record.cells is None:
            _report(Problem(str(path), record.line, f"{record.error}; row skipped"), problems)
        elif record.cells:  # a blank line is no row
            cells = (record.cells + [""] * len(header))[: len(header)]  # missing: blank
            out.append((record.line, {k: v for k, v in zip(header, cells, strict=True) if k}))
    return out


def _read(path: Path, field: str) -> str:
    """The CSV's text, through engine/core/reading.py: a folder or a FIFO (which would wait
    for a writer for ever) is refused before it is read, each said in words."""
    try:
        return reading.read_text(path, limit=MAX_CSV_BYTES)
    except FileNotFoundError:
        raise ConfigError(field, f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(field, f"{path} is a folder: give a CSV file") from None
    except reading.NotRegular as exc:
        what = exc.strerror or "not a regular file"
        raise ConfigError(field, f"{path} is {what}: give a CSV file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(field, f"{path} is not UTF-8 text (byte {exc.start})") from None
    except ValueError as exc:  # over the size limit
        raise ConfigError(field, f"{path} {exc}: give a CSV file") from None
    except OSError as exc:
        raise ConfigError(field, f"{path} cannot be read ({exc.strerror or exc})") from None


def _report(problem: Problem, problems: list[Problem] | None) -> None:
    if problems is None:
        print(f"epochcost: plan: {problem}", file=sys.stderr)
    else:
        problems.append(problem)


def load_presets(
    path: Path | None = None, problems: list[Problem] | None = None
) -> dict[str, Preset]:
    """The presets by name (shipped file unless `path`); rows skipped go to `problems`."""
    path = path or paths.assets() / "plan" / "presets.csv"
    out: dict[str, Preset] = {}
    for line, row in _rows(path, ("name", "params", "tokens"), problems):
        where = f"{path.name}, line {line}"
        attention = row.get("attention", "").strip() or "causal"
        if attention not in ("causal", "full"):
            raise ConfigError(where, f"attention {attention!r} is not causal or full")
        params = _number(where, "params", row["params"])
        if params is None:
            raise ConfigError(where, "params is required")

        def whole(column: str, row: dict[str, str] = row, where: str = where) -> int | None:
            value = _number(where, column, row.get(column, ""), integer=True)
            return None if value is None else int(value)

        out[row["name"].strip()] = Preset(
            name=row["name"].strip(),
            params=params,
            tokens=_number(where, "tokens", row["tokens"]),
            n_layers=whole("n_layers"),
            seq_len=whole("seq_len"),
            d_attn=whole("d_attn"),
            causal=attention == "causal",
            published_gpu_hours=_number(
                where, "published_gpu_hours", row.get("published_gpu_hours", "")
            ),
            published_gpu=row.get("published_gpu", "").strip(),
            params_source=row.get("params_source", "").strip(),
            tokens_source=row.get("tokens_source", "").strip(),
            notes=row.get("notes", "").strip(),
        )
    return out


def preset(name: str, problems: list[Problem] | None = None) -> Preset:
    presets = load_presets(problems=problems)
    if name not in presets:
        raise ConfigError("preset", f"{name!r} is not one of {', '.join(presets)}")
    return presets[name]


def load_runs_tables(
    path: Path | None = None, problems: list[Problem] | None = None
) -> dict[str, tuple[RunsRow, ...]]:
    """The shipped run-count tables by name; rows skipped go to `problems`."""
    path = path or paths.assets() / "plan" / "runs.csv"
    tables: dict[str, list[RunsRow]] = {}
    for line, row in _rows(path, ("table", "label", "runs"), problems):
        tables.setdefault(row["table"].strip(), []).append(
            _runs_row(f"{path.name}, line {line}", row)
        )
    return {name: tuple(rows) for name, rows in tables.items()}


def _runs_row(where: str, row: dict[str, str]) -> RunsRow:
    runs = _number(where, "runs", row["runs"])
    if runs is None:
        raise ConfigError(where, "runs is required")
    size = _number(where, "relative_size", row.get("relative_size", ""))
    return RunsRow(
        label=row["label"].strip(),
        runs=runs,
        relative_size=1.0 if size is None else size,
        source=row.get("source", "").strip(),
    )


def runs_table(
    name_or_file: str | None = None, problems: list[Problem] | None = None
) -> tuple[RunsRow, ...]:
    """A shipped table by name (default sharir-2020), or the user's CSV file (label, runs,
    relative_size, source); rows skipped go to `problems`."""
    name = name_or_file or DEFAULT_RUNS_TABLE
    tables = load_runs_tables(problems=problems)
    if name in tables:
        return tables[name]
    try:
        path = Path(name).expanduser()
    except RuntimeError:  # ~user of no such user
        path = Path(name)
    if not os.path.lexists(path):
        raise ConfigError(
            "runs_table", f"{name!r} is neither one of {', '.join(tables)} nor a file"
        )
    found = _rows(path, ("label", "runs"), problems, "runs_table")
    rows = tuple(_runs_row(f"{path.name}, line {n}", r) for n, r in found)
    if not rows:
        raise ConfigError("runs_table", f"{path} has no rows")
    return rows


def full_size_runs(runs: float) -> tuple[RunsRow, ...]:
    """`runs` runs the size of the planned one (--runs N)."""
    return (RunsRow(f"{runs:g} full-size runs", runs, 1.0, "given"),)
