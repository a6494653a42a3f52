"""The catalog's CSV columns: how each file's cells are parsed and checked, and written back.

One parser serves the shipped files (assets/) and the user's own files, so a user row is held to
the same rules as a shipped one. A bad cell raises ConfigError naming the column; the loader turns
that into a problem with the file's line number and skips the row. Every writer holds the rows it
writes to the same rule (`checked_cells`: the row as the cells it writes, parsed back), so nothing
is written that the loader would skip. The row types the cells become are in
engine/pricing/rows.py.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from engine.core.checks import cell_number
from engine.core.errors import ConfigError
from engine.pricing.rows import PRICE_COMPONENTS, GpuSpec, GridIntensity, Instance, Machine

# --- cell parsers: blank -> None; bad text -> ConfigError naming the column -----------------


def _text(column: str, raw: str) -> str:
    return raw.strip()


def _number(low: float = 0.0, high: float = math.inf, open_low: bool = False) -> Callable:
    def parse(column: str, raw: str) -> float | None:
        value = cell_number(column, raw)
        if value is None:
            return None
        text = raw.strip()
        if not math.isfinite(value) or value < low or value > high or (open_low and value == low):
            bound = f"more than {low:g}" if open_low else f"at least {low:g}"
            top = f" and at most {high:g}" if math.isfinite(high) else ""
            raise ConfigError(column, f"{text} must be {bound}{top}")
        return value

    return parse


def _yes_no(column: str, raw: str) -> bool | None:
    text = raw.strip().lower()
    if not text:
        return None
    if text in ("yes", "true", "1", "y"):
        return True
    if text in ("no", "false", "0", "n"):
        return False
    raise ConfigError(column, f"{raw.strip()!r} is not yes or no")


def _choice(options: tuple[str, ...]) -> Callable:
    def parse(column: str, raw: str) -> str | None:
        text = raw.strip()
        if text and text not in options:
            raise ConfigError(column, f"{text!r} is not one of {', '.join(options)}")
        return text or None

    return parse


def _aliases(column: str, raw: str) -> tuple[str, ...]:
    return tuple(a.strip() for a in raw.split(";") if a.strip())


def _capability(column: str, raw: str) -> str:
    text = raw.strip()
    if text and not re.fullmatch(r"\d{1,2}\.\d", text):
        raise ConfigError(column, f"{text!r}: give CUDA's compute capability as 6.1 or 12.0")
    return text


def _date_or_blank(column: str, raw: str) -> str:
    text = raw.strip()
    if text and not re.match(r"^\d{4}(-\d{2}(-\d{2})?)?$", text):
        raise ConfigError(column, f"{text!r}: use a date as YYYY-MM-DD (or YYYY-MM, YYYY)")
    return text


@dataclass(frozen=True)
class Schema:
    """A file's columns: the parser of each, which are required, and the row type they build."""

    kind: str
    row_type: type
    parsers: Mapping[str, Callable[[str, str], Any]]
    required: tuple[str, ...]
    user_date_column: str = ""  # checked as a date in user files (shipped dates are free text)
    key_columns: tuple[str, ...] = field(default=())

    @property
    def columns(self) -> list[str]:
        return list(self.parsers)


_POSITIVE = _number(open_low=True)
_NONNEG = _number()

SCHEMAS: dict[str, Schema] = {
    "instances": Schema(
        "instances",
        Instance,
        {
            "cloud": _text,
            "region": _text,
            "instance_type": _text,
            "gpu_model": _text,
            "gpu_spec": _text,
            "gpu_count": _NONNEG,
            "gpu_memory_gib_per_gpu": _POSITIVE,
            "vcpus": _POSITIVE,
            "ram_gib": _POSITIVE,
            "usd_per_hour": _number(0.0, 100_000.0),
            "usd_per_hour_spot": _number(0.0, 100_000.0),
            "price_component": _choice(PRICE_COMPONENTS),
            "historical": _yes_no,
            "price_date": _text,
            "source": _text,
            "source_commit": _text,
            "notes": _text,
        },
        required=("cloud", "instance_type", "usd_per_hour"),
        user_date_column="price_date",
        key_columns=("cloud", "instance_type", "historical"),
    ),
    "gpus": Schema(
        "gpus",
        GpuSpec,
        {
            "name": _text,
            "aliases": _aliases,
            "vendor": _text,
            "form_factor": _text,
            "architecture": _text,
            "compute_capability": _capability,
            "release_date": _text,
            "release_year": _text,
            "memory_gb": _POSITIVE,
            "memory_bandwidth_gbs": _POSITIVE,
            "fp32_tflops": _POSITIVE,
            "fp16_bf16_tensor_tflops_dense": _POSITIVE,
            "tf32_tensor_tflops_dense": _POSITIVE,
            "tdp_w": _POSITIVE,
            "launch_price_usd": _NONNEG,
            "has_tensor_cores": _yes_no,
            "cloud_catalog_gpu_name": _text,
            "sources": _text,
            "notes": _text,
        },
        required=("name",),
        key_columns=("name",),
    ),
    "grid": Schema(
        "grid",
        GridIntensity,
        {
            "provider": _text,
            "region": _text,
            "region_name": _text,
            "country": _text,
            "ci_gco2e_per_kwh": _number(0.0, 5000.0),
            "ci_source_dataset": _text,
            "ci_data_vintage": _text,
            "pue": _number(1.0, 5.0),
        },
        required=("provider", "ci_gco2e_per_kwh"),
        key_columns=("provider", "region"),
    ),
    "machines": Schema(
        "machines",
        Machine,
        {
            "name": _text,
            "gpu_spec": _text,
            "purchase_usd": _NONNEG,
            "lifetime_years": _number(0.0, 100.0, open_low=True),
            "hours_per_day": _number(0.0, 24.0, open_low=True),
            "power_w": _NONNEG,
            "rest_of_system_w": _NONNEG,
            "usd_per_kwh": _number(0.0, 100.0),
            "psu_efficiency": _number(0.0, 1.0, open_low=True),
            "grid": _text,
            "ci_gco2e_per_kwh": _number(0.0, 5000.0),
            "as_of": _text,
            "source": _text,
            "notes": _text,
        },
        required=("name", "purchase_usd"),
        user_date_column="as_of",
        key_columns=("name",),
    ),
}


def parse_row(kind: str, raw: Mapping[str, str | None], origin: str) -> Any:
    """Build the row type of `kind` from CSV text cells; ConfigError(column, why) if one is bad.

    Columns the row type does not keep (release_year, form_factor, ...) are checked and dropped.
    """
    schema = SCHEMAS[kind]
    values: dict[str, Any] = {}
    for column, parse in schema.parsers.items():
        value = parse(column, raw.get(column) or "")
        if column in schema.required and value in (None, ""):
            raise ConfigError(column, "is required and empty")
        if value is not None:
            values[column] = value
    if origin == "user" and schema.user_date_column:
        _date_or_blank(schema.user_date_column, raw.get(schema.user_date_column) or "")
    if kind == "instances":
        _spot_not_above(values)
    if kind == "instances" and "gpu_count" not in values:
        values["gpu_count"] = 1.0 if values.get("gpu_model") or values.get("gpu_spec") else 0.0
    if kind == "machines" and values.get("grid") and ":" not in values["grid"]:
        raise ConfigError("grid", f"{values['grid']!r}: give the grid region as provider:region")
    known = {f.name for f in fields(schema.row_type)}
    return schema.row_type(**{k: v for k, v in values.items() if k in known}, origin=origin)


def _spot_not_above(values: Mapping[str, Any]) -> None:
    """A spot price above the on-demand one is a mistake in the source (a column swapped)."""
    spot, price = values.get("usd_per_hour_spot"), values.get("usd_per_hour")
    if spot is not None and price is not None and spot > price:
        raise ConfigError(
            "usd_per_hour_spot", f"{spot:g} is above the on-demand price usd_per_hour {price:g}"
        )


def cell(value: Any) -> str:
    """One value as its CSV cell: blank for None, yes/no, aliases joined by ';'."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple | list):
        return ";".join(str(v) for v in value)
    return str(value)


def checked_cells(kind: str, row: Any) -> dict[str, str]:
    """A row as the cells a writer puts in the file, checked by parsing them back as the loader
    does; ConfigError(column, why) for a row the loader would skip."""
    text = {c: cell(getattr(row, c, None)) for c in SCHEMAS[kind].columns}
    parse_row(kind, text, getattr(row, "origin", "user"))
    return text


def row_key(kind: str, raw: Mapping[str, str | None]) -> tuple[str, ...]:
    """The identity of a raw row (what a user row with the same key replaces)."""
    schema = SCHEMAS[kind]
    key = []
    for column in schema.key_columns:
        text = (raw.get(column) or "").strip()
        if column == "historical":
            text = "yes" if _yes_no(column, text) else "no"
        key.append(text)
    return tuple(key)
