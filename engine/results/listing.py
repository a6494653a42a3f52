"""The store's listing read out of each row: the columns copied out at storing, and fields of
the stored JSON (its 95% intervals, the kind of run, the cloud instance...) read through
engine/results/schema.py's validate(), so that a row which does not pass is listed as DAMAGED
with no figures and the rest of the store stays usable (engine/results/store.py lists)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from engine.core.errors import ConfigError
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
# Read out of each stored result's JSON for the listing: the 95% intervals (None for results
# stored before they were recorded), the share of the CPU other processes used, and what kind
# of run it was (the app's Past runs says run, sweep, accuracy, or how it failed).
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
LISTING = (*LIST_COLUMNS, *_FROM_BODY)
# The status a listing gives a row whose stored JSON does not pass validate(): its figures are
# left out (no comparison or projection reads them) and Store.damaged() says why.
DAMAGED = "damaged"
_FIGURES = ("throughput_samples_per_s", "memory_fill", "usd_per_epoch")


def listed(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A listing row from (the columns..., body): the body's fields where it passes validate(),
    else the row as DAMAGED with its figures left out."""
    *columns, body = row
    problem, extracted = checked(body)
    if problem is None:
        return (*columns, *extracted)
    listed = dict(zip(LIST_COLUMNS, columns, strict=True))
    listed.update(dict.fromkeys(_FIGURES), status=DAMAGED)
    return (*listed.values(), *(None for _ in _FROM_BODY))


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
        data = validate(json.loads(body))
    except ConfigError as exc:
        return exc.message, ()
    except (ValueError, TypeError, RecursionError):
        return "its stored JSON is damaged (not valid JSON)", ()
    return None, tuple(_pick(data, path) for path in _FROM_BODY.values())


def _pick(data: Any, path: tuple[str | int, ...]) -> Any:
    """data[path[0]][path[1]]...; None where a step is missing."""
    for step in path:
        if isinstance(step, int):
            data = data[step] if isinstance(data, list) and len(data) > step else None
        else:
            data = data.get(step) if isinstance(data, dict) else None
    return data
