"""The store's listing read out of each row: every listed field is read from the stored JSON
through engine/results/schema.py's validate(), never from the SQL columns copied out at
storing, so that a row which does not pass is listed as DAMAGED with no figures and the rest
of the store stays usable (engine/results/store.py lists).

The columns are there for SQL to sort and filter by; what a listing shows comes from the body
alone, since a column can be changed without its body (an edit of the file, another program)
and would then list "-5.0 samples/s" or "inf%" beside a body that passes every check.
"""

from __future__ import annotations

import hashlib
from typing import Any

from engine.core import reading
from engine.core.errors import ConfigError
from engine.core.precision import imprecise
from engine.results import plausible
from engine.results.json_checks import short
from engine.results.schema import validate

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
# Read out of each stored result's JSON for the listing besides its columns: the 95%
# intervals (None for results stored before they were recorded), the share of the CPU other
# processes used, and what kind of run it was (the app's Past runs says run, sweep, accuracy,
# or how it failed).
_FROM_BODY = {
    "throughput_low": ("throughput_ci95", 0),
    "throughput_high": ("throughput_ci95", 1),
    "usd_per_epoch_low": ("usd_per_epoch_ci95", 0),
    "usd_per_epoch_high": ("usd_per_epoch_ci95", 1),
    "other_cpu_fraction": ("other_cpu_fraction",),
    "kind": ("kind",),  # "accuracy" for a run to an accuracy; None for a timed run
    "sweep_trial": ("sweep", "trial"),  # a sweep's trial number; None outside a sweep
    "world_size": ("distributed", "world_size"),  # processes of a data-parallel run; None: one
    "data_kind": ("data", "kind"),  # what the run read (None, stored before: synthetic)
    "data_path": ("data", "source"),
    "input_wait_fraction": ("input_wait_fraction",),
    "cloud_instance": ("cloud", "instance_type"),  # a run on a rented instance; None: here
}
# Found from each stored result's JSON by the engine's own rules: why the result is not precise
# enough to price (engine/core/precision.py: the mark, the cause, what to do), None where it is.
_FOUND = {"imprecise": lambda data: _text_of(imprecise(data))}
LISTING = (*LIST_COLUMNS, *_FROM_BODY, *_FOUND)
# The status a listing gives a row whose stored JSON does not pass validate(): its figures are
# left out (no comparison or projection reads them) and Store.damaged() says why.
DAMAGED = "damaged"
_FIGURES = ("throughput_samples_per_s", "memory_fill", "usd_per_epoch")


class Damage(ValueError):
    """A stored row that is not a readable result: the text says why, after "stored result ID
    cannot be read (...)"."""


def columns(result: dict[str, Any], group_id: str | None = None) -> tuple[Any, ...]:
    """The LIST_COLUMNS of a result, as the store copies them out and the listing shows them:
    the device resolved to its name, the group given at storing or the result's own."""
    config = result["config"]
    env = result.get("environment") or {}
    price = result.get("price") or {}
    return (
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
    )


def read_body(body: Any, run_id: Any = None) -> dict[str, Any]:
    """A stored row's result: its JSON read (engine/core/reading.py: no NaN, no integer beyond
    any float), validated, not dated in the future (engine/results/plausible.stored_problem)
    and, with `run_id`, holding the row's own id; Damage otherwise."""
    try:
        data = validate(reading.loads(body))
    except ConfigError as exc:
        raise Damage(exc.message) from None
    except reading.BadJson as exc:
        raise Damage(f"its stored JSON {exc}") from None
    except (ValueError, TypeError, RecursionError):  # a blob or a number in place of the text
        raise Damage("its stored JSON is damaged (not JSON text)") from None
    if run_id is not None and data["run_id"] != run_id:
        raise Damage(_other_id(data["run_id"], run_id))
    why = plausible.stored_problem(data)  # the date rule, on every read
    if why is not None:
        raise Damage(why)
    return data


def _other_id(found: str, run_id: Any) -> str:
    return (
        f"its stored JSON holds run id {short(found)}, not the row's own {short(run_id)}: the "
        "store was edited; delete the row and import the result again"
    )


def listed(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A listing row from (the columns..., body): the body's fields where it passes validate(),
    else the row as DAMAGED with its figures left out."""
    *stored, body = row
    fields = _fields(row)
    if isinstance(fields, tuple):
        return fields
    listed = dict(zip(LIST_COLUMNS, stored, strict=True))
    for key, value in listed.items():  # what a column may hold when the row is damaged
        if key == "batch_size":
            keep = isinstance(value, int) and not isinstance(value, bool)
        else:
            keep = isinstance(value, str) and key not in _FIGURES
        listed[key] = value if keep else None
    listed.update(run_id=_text(row[0]), status=DAMAGED)
    return (*listed.values(), *(None for _ in (*_FROM_BODY, *_FOUND)))


def problem(row: tuple[Any, ...]) -> str | None:
    """Why a stored row (the columns..., body) is DAMAGED, or None when it is listed."""
    fields = _fields(row)
    return None if isinstance(fields, tuple) else fields


def _fields(row: tuple[Any, ...]) -> tuple[Any, ...] | str:
    """The listing's fields of a row, or why there are none: its body does not pass, its run
    id is not the row's, or its group column is not text."""
    run_id, group = row[0], row[LIST_COLUMNS.index("group_id")]
    why, fields = checked(row[-1])
    if why is not None:
        return why
    if fields[0] != run_id:
        return _other_id(fields[0], run_id)
    if group is not None and not isinstance(group, str):
        return f"its group_id column holds {short(group)}, not text: the store was edited"
    listed = dict(zip(LISTING, fields, strict=True))
    listed["group_id"] = group  # given at storing, or the result's own (columns())
    return tuple(listed.values())


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else str(value)


def checked(body: Any) -> tuple[str | None, tuple[Any, ...]]:
    """(None, the listing's fields from the body) for a stored JSON that passes validate(), else
    (why not, ()). Cached by a digest of the body (a stored result never changes), so that
    listing a store again does not validate every result again."""
    raw = body if isinstance(body, bytes) else str(body).encode("utf-8", "surrogatepass")
    key = hashlib.blake2b(raw, digest_size=16).digest()
    if key not in _CHECKED:
        if len(_CHECKED) >= 4096:
            _CHECKED.clear()
        _CHECKED[key] = _check(body)
    return _CHECKED[key]


_CHECKED: dict[bytes, tuple[str | None, tuple[Any, ...]]] = {}


def _check(body: Any) -> tuple[str | None, tuple[Any, ...]]:
    try:
        data = read_body(body)
    except Damage as exc:
        return str(exc), ()
    picked = (_pick(data, path) for path in _FROM_BODY.values())
    return None, (*columns(data), *picked, *(find(data) for find in _FOUND.values()))


def _text_of(verdict: Any) -> str | None:
    return None if verdict is None else verdict.text()


def _pick(data: Any, path: tuple[str | int, ...]) -> Any:
    """data[path[0]][path[1]]...; None where a step is missing."""
    for step in path:
        if isinstance(step, int):
            data = data[step] if isinstance(data, list) and len(data) > step else None
        else:
            data = data.get(step) if isinstance(data, dict) else None
    return data
