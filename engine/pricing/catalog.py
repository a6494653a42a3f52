"""The price and hardware catalog: shipped CSVs (assets/) plus the user's own files.

Shipped: assets/instances.csv (cloud prices, with historical rows), assets/gpus.csv (GPU peak
rates, memory, TDP, launch price), assets/grid.csv (carbon intensity per cloud region); see
assets/README.md for how each was derived. The app never writes them.

Fetched: <data folder>/catalog/fetched/instances.csv, prices refreshed from SkyPilot's catalog by
`epochcost catalog update` (engine/cloud/prices.py), each dated the day it was fetched; they
replace the shipped rows of the same key, and the shipped snapshot stays the offline fallback.
A price more than STALE_AFTER_DAYS old says so (price_note) wherever it is shown.

User: <data folder>/catalog/{instances,gpus,grid,machines}.csv, same columns (machines.csv only
there: the user's own hardware). A user row with the key of a shipped row replaces it (a quote
for p3.2xlarge, the tensor rate of a card). Loading never fails on a bad row: it is reported with
its file and line and skipped, and the rest loads. That holds for a row the csv module cannot
read too (a cell over its field limit, a NUL byte, a quote never closed): each row is parsed alone
(engine/pricing/csv_records.py), so one such row costs only itself.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.core import paths, reading
from engine.core.errors import ConfigError
from engine.pricing.csv_records import Record, records
from engine.pricing.device import stand_in_for
from engine.pricing.rows import KINDS, GpuSpec, GridIntensity, Instance, Machine
from engine.pricing.schema import SCHEMAS, parse_row

if TYPE_CHECKING:  # pandas is imported where a frame is made: the worker loads the catalog too
    import pandas as pd

SHIPPED = {"instances": "instances.csv", "gpus": "gpus.csv", "grid": "grid.csv"}
STALE_AFTER_DAYS = 30  # a price older than this says so wherever it is shown


@dataclass(frozen=True)
class Problem:
    """A row (or file) that could not be loaded: where, and what to fix."""

    path: str
    line: int  # 1 is the header; 0: the file as a whole
    message: str

    def __str__(self) -> str:
        where = f"{self.path}, line {self.line}" if self.line else self.path
        return f"{where}: {self.message}"


def user_dir() -> Path:
    """Where the user's own catalog files live (created on first use)."""
    folder = paths.home() / "catalog"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def user_file(kind: str) -> Path:
    if kind not in KINDS:
        raise ConfigError("kind", f"{kind!r} is not one of {', '.join(KINDS)}")
    return user_dir() / f"{kind}.csv"


def fetched_file(user: Path | None = None) -> Path:
    """The instance prices `epochcost catalog update` fetched (not created here)."""
    return (user or user_dir()) / "fetched" / "instances.csv"


def price_age_days(price_date: str, today: _dt.date | None = None) -> int | None:
    """Whole days since a price's date (YYYY-MM-DD); None when it is not a whole date (the
    shipped snapshot's "undated; inferred >=2025-06")."""
    try:
        quoted = _dt.date.fromisoformat(price_date.strip())
    except ValueError:
        return None
    return ((today or _dt.date.today()) - quoted).days


def price_note(price_date: str, today: _dt.date | None = None) -> str:
    """What to say beside a price about its age: "" when at most STALE_AFTER_DAYS old,
    "N days old" past that, "undated" when its date is unknown."""
    age = price_age_days(price_date, today)
    if age is None:
        return "undated"
    return f"{age} days old" if age > STALE_AFTER_DAYS else ""


def stale_note(instance: Instance, today: _dt.date | None = None) -> str:
    """ "N days old" for an instance's price older than STALE_AFTER_DAYS, else "" (an undated
    price says so in its own text; a historical row is history, not a price of today)."""
    note = "" if instance.historical else price_note(instance.price_date, today)
    return "" if note == "undated" else note


def dated(price_date: str, today: _dt.date | None = None) -> str:
    """A price's date as every table and report shows it: with its age where it is older than
    STALE_AFTER_DAYS ("2025-06-01, 543 days old"), else as it is."""
    note = price_note(price_date, today)
    return f"{price_date}, {note}" if note and note != "undated" else price_date


def read_rows(path: Path, kind: str, origin: str) -> tuple[list[Any], list[Problem]]:
    """Parse one catalog CSV. Returns the good rows and a problem for each bad one (on its
    first line)."""
    problems: list[Problem] = []
    try:
        text = reading.read_text(path)  # a FIFO in the catalog folder would wait for ever
    except FileNotFoundError:
        missing = (
            []
            if origin in ("user", "fetched")
            else [Problem(str(path), 0, "shipped file is missing")]
        )
        return [], missing
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return [], [Problem(str(path), 0, f"cannot be read ({why}); file skipped")]
    found = records(text)
    first = found[0] if found else Record(1, "", [])
    if first.cells is None:
        return [], [Problem(str(path), first.line, f"{first.error}; file skipped")]
    schema = SCHEMAS[kind]
    header = [h.strip() for h in first.cells]
    missing_columns = [c for c in schema.required if c not in header]
    if missing_columns:
        need = ", ".join(missing_columns)
        return [], [Problem(str(path), 1, f"missing column(s) {need}; file skipped")]
    if origin == "user":
        for column in header:
            if column not in schema.parsers:
                known = ", ".join(schema.columns)
                problems.append(
                    Problem(str(path), 1, f"unknown column {column!r} ignored ({known})")
                )
    rows: list[Any] = []
    seen: dict[tuple[str, ...], int] = {}
    for record in found[1:]:
        line, cells = record.line, record.cells
        if cells is None:
            problems.append(Problem(str(path), line, f"{record.error}; row skipped"))
            continue
        if not cells or not any(c.strip() for c in cells) or cells[0].lstrip().startswith("#"):
            continue  # a blank or comment row
        if len(cells) != len(header):
            problems.append(
                Problem(
                    str(path),
                    line,
                    f"has {len(cells)} cells, header has {len(header)}; row skipped",
                )
            )
            continue
        raw = dict(zip(header, cells, strict=True))
        try:
            row = parse_row(kind, raw, origin)
        except ConfigError as exc:
            problems.append(Problem(str(path), line, f"{exc.field}: {exc.message}; row skipped"))
            continue
        if row.key in seen:
            problems.append(
                Problem(str(path), line, f"same key as line {seen[row.key]}; row skipped")
            )
            continue
        seen[row.key] = line
        rows.append(row)
    return rows, problems


def _merge(shipped: Sequence[Any], user: Sequence[Any]) -> tuple[Any, ...]:
    """User rows first (they win lookups), then the shipped rows they do not replace."""
    replaced = {row.key for row in user}
    return tuple(user) + tuple(row for row in shipped if row.key not in replaced)


@functools.lru_cache(maxsize=4096)
def normalise(name: str) -> str:
    """A GPU name reduced for matching: lower case, no vendor words, letters and digits only.
    Kept per name: a comparison asks it about a million times for a few hundred names (a fifth
    of a Compare's time, for each price typed: issue 42)."""
    text = re.sub(r"\b(nvidia|tesla|geforce)\b", " ", name.lower())
    return re.sub(r"[^a-z0-9]", "", text)


@dataclass(frozen=True)
class Catalog:
    """Everything the price and projection code reads, with the problems found loading it."""

    instances: tuple[Instance, ...] = ()
    gpus: tuple[GpuSpec, ...] = ()
    grid: tuple[GridIntensity, ...] = ()
    machines: tuple[Machine, ...] = ()
    problems: tuple[Problem, ...] = field(default=())

    def gpu(self, name: str) -> GpuSpec | None:
        """The GPU row named `name` (its catalog name), or None."""
        wanted = normalise(name)
        return next((g for g in self.gpus if normalise(g.name) == wanted), None)

    def gpu_for_device(self, device_name: str | None) -> GpuSpec | None:
        """The GPU row for a device name as CUDA reports it ('Tesla V100-SXM2-16GB'), else its
        product's stand-in (engine/pricing/device.py), or None."""
        if not device_name:
            return None
        wanted = normalise(device_name)
        for g in self.gpus:
            if wanted in {normalise(g.name), *(normalise(a) for a in g.aliases)}:
                return g
        return stand_in_for(self.gpus, device_name)

    def gpu_of(self, instance: Instance) -> GpuSpec | None:
        return self.gpu(instance.gpu_spec) if instance.gpu_spec else None

    def find_gpus(self, text: str) -> list[GpuSpec]:
        """GPUs whose name, device names or cloud name contain `text` (case and spaces aside)."""
        wanted = normalise(text)
        return [
            g
            for g in self.gpus
            if any(wanted in normalise(n) for n in (g.name, g.cloud_catalog_gpu_name, *g.aliases))
        ]

    def grid_for(self, provider: str, region: str) -> GridIntensity | None:
        return next(
            (g for g in self.grid if g.provider == provider and g.region == region),
            None,
        )

    def machine(self, name: str) -> Machine | None:
        return next((m for m in self.machines if m.name == name), None)

    def select(
        self,
        clouds: Iterable[str] | None = None,
        gpu: str | None = None,
        text: str | None = None,
        historical: bool | None = False,
        full_only: bool = True,
    ) -> list[Instance]:
        """Instances filtered by cloud, GPU (name as in find_gpus), free text over all columns,
        historical (None: both), and full_only (leave out GCP GPU-only and VM-only prices)."""
        wanted_clouds = {c.strip().lower() for c in clouds} if clouds else None
        gpu_names = {g.name for g in self.find_gpus(gpu)} if gpu else None
        gpu_text = normalise(gpu) if gpu else ""
        out = []
        for i in self.instances:
            if wanted_clouds is not None and i.cloud.lower() not in wanted_clouds:
                continue
            if historical is not None and i.historical != historical:
                continue
            if full_only and not i.full_instance:
                continue
            if gpu_names is not None and not (
                i.gpu_spec in gpu_names or (gpu_text and gpu_text in normalise(i.gpu_model))
            ):
                continue
            if text and not _matches(text, i):
                continue
            out.append(i)
        return out

    @property
    def clouds(self) -> list[str]:
        return sorted({i.cloud for i in self.instances})

    def frame(self, kind: str) -> pd.DataFrame:
        """One kind of row (instances, gpus, grid, machines) as a DataFrame, for a table model;
        instances also carry full_instance and flagged."""
        import pandas as pd

        if kind not in KINDS:
            raise ConfigError("kind", f"{kind!r} is not one of {', '.join(KINDS)}")
        rows = getattr(self, kind)
        records = [asdict(r) for r in rows]
        if kind == "instances":
            for record, row in zip(records, rows, strict=True):
                record.update(full_instance=row.full_instance, flagged=row.flagged)
        return pd.DataFrame(records)


def _matches(text: str, row: Any) -> bool:
    haystack = " ".join(str(v) for v in row.__dict__.values()).lower()
    return all(word in haystack for word in text.lower().split())


def load(assets: Path | None = None, user: Path | None = None) -> Catalog:
    """The shipped catalog, the fetched prices over it, the user's files over both. Bad rows
    become `problems`."""
    assets = assets or paths.assets()
    user = user or user_dir()
    loaded: dict[str, tuple[Any, ...]] = {}
    problems: list[Problem] = []
    for kind in KINDS:
        shipped: list[Any] = []
        if kind in SHIPPED:
            shipped, found = read_rows(assets / SHIPPED[kind], kind, "shipped")
            problems += found
        if kind == "instances":
            fetched, found = read_rows(fetched_file(user), kind, "fetched")
            problems += found
            shipped = list(_merge(shipped, fetched))
        mine, found = read_rows(user / f"{kind}.csv", kind, "user")
        problems += found
        loaded[kind] = _merge(shipped, mine)
    return Catalog(
        instances=loaded["instances"],
        gpus=loaded["gpus"],
        grid=loaded["grid"],
        machines=loaded["machines"],
        problems=tuple(problems),
    )
