"""Scaling efficiency: how close a data-parallel run comes to perfect scaling (docs/scaling.md).

A scaling study (`epochcost scaling`, engine/sweep/scaling.py) stores one result per process
count under a group id that starts with SCALING_PREFIX, each with `scaling: {group_id, nproc}`.
Its points: throughput at each count, and efficiency = throughput / (the smallest count's
throughput x count / smallest count): 1.0 at the smallest, 0.9 where 10% of perfect scaling is
lost.

measured_scaling_efficiency() finds a stored figure for a model on a GPU, for compare's
multi-GPU instances (which otherwise assume perfect scaling).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.core.errors import ConfigError, StoreError
from engine.pricing import catalog as catalog_module
from engine.pricing.catalog import Catalog, normalise
from engine.results.store import Store

SCALING_PREFIX = "scaling-"


@dataclass(frozen=True)
class Point:
    """One process count of a study: its throughput (None: it did not measure) and efficiency."""

    nproc: int
    samples_per_s: float | None
    efficiency: float | None = None
    run_id: str | None = None
    status: str = "ok"
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "nproc": self.nproc,
            "samples_per_s": self.samples_per_s,
            "efficiency": self.efficiency,
            "run_id": self.run_id,
            "status": self.status,
            "error": self.error,
        }


def with_efficiency(points: list[Point]) -> list[Point]:
    """The points by process count, each with its efficiency against the smallest count that
    measured (1.0 there); None where either did not measure."""
    ordered = sorted(points, key=lambda p: p.nproc)
    base = next((p for p in ordered if p.samples_per_s), None)
    out = []
    for p in ordered:
        eff = None
        if base is not None and base.samples_per_s and p.samples_per_s:
            eff = p.samples_per_s / (base.samples_per_s * p.nproc / base.nproc)
        out.append(Point(p.nproc, p.samples_per_s, eff, p.run_id, p.status, p.error))
    return out


def point_of(result: dict[str, Any]) -> Point:
    """A stored result as a point of its study."""
    nproc = int((result.get("scaling") or {}).get("nproc") or result["config"].get("nproc", 1))
    error = (result.get("error") or {}).get("message")
    ok = result["status"] == "ok"
    rate = result.get("throughput_samples_per_s") if ok else None
    return Point(nproc, rate, None, result["run_id"], result["status"], error)


def study_groups(store: Store) -> list[str]:
    """The stored scaling studies' group ids, newest first."""
    rows = store.list()
    if rows.empty:
        return []
    ids = rows["group_id"].dropna()
    seen: list[str] = []
    for gid in ids:
        if str(gid).startswith(SCALING_PREFIX) and gid not in seen:
            seen.append(str(gid))
    return seen


def study_points(store: Store, group_id: str) -> tuple[list[Point], dict[str, Any]]:
    """A stored study's points (with efficiency) and the config of its first result."""
    rows = store.list(group_id)
    results = [store.get(rid) for rid in rows["run_id"]]
    config = results[-1]["config"] if results else {}
    return with_efficiency([point_of(r) for r in results]), config


def measured_scaling_efficiency(
    store: Store, model: str, gpu_name: str, nproc: int, catalog: Catalog | None = None
) -> tuple[float, str] | None:
    """A measured data-parallel efficiency at `nproc` devices for `model` on `gpu_name` (a
    catalog GPU name or a device name as CUDA reports it; "cpu" for CPU runs), with a line
    that says where it comes from; None when nothing stored measures it.

    Looked for, newest first: a scaling study with a point at `nproc` (against its smallest
    count); then a data-parallel result with `nproc` processes and a one-process result of the
    same model, batch per process and precision on the same device."""
    if nproc <= 1:
        return None
    try:
        rows = store.list()
    except StoreError:
        return None
    if rows.empty:
        return None
    same = rows[(rows["model"] == model) & (rows["status"] == "ok")]
    if catalog is None:
        try:
            catalog = catalog_module.load()
        except OSError:  # names must then match as they are
            catalog = None
    mask = [_same_device(d, gpu_name, catalog) for d in same["device"]]
    same = same.loc[same.index[mask]] if mask else same
    for gid in [g for g in same["group_id"].dropna().unique() if g.startswith(SCALING_PREFIX)]:
        try:
            points, _ = study_points(store, gid)
        except ConfigError:
            continue
        found = next((p for p in points if p.nproc == nproc and p.efficiency), None)
        base = next((p for p in points if p.samples_per_s), None)
        if found is not None and found.efficiency and base is not None:
            return found.efficiency, (
                f"measured scaling: {nproc} processes at {found.efficiency:.0%} of perfect "
                f"against {base.nproc} (scaling study {gid}, {model} on {gpu_name})"
            )
    return _from_pair(store, same, model, gpu_name, nproc)


def _from_pair(
    store: Store, rows: Any, model: str, gpu_name: str, nproc: int
) -> tuple[float, str] | None:
    """A data-parallel result at nproc and a one-process result of the same set-up."""
    results = []
    for rid in rows["run_id"]:
        try:
            results.append(store.get(rid))
        except ConfigError:
            continue
    singles = [r for r in results if not r.get("distributed")]
    for wide in results:
        spread = wide.get("distributed") or {}
        if spread.get("world_size") != nproc:
            continue
        key = _setup(wide["config"])
        single = next((s for s in singles if _setup(s["config"]) == key), None)
        if single is None:
            continue
        eff = wide["throughput_samples_per_s"] / (single["throughput_samples_per_s"] * nproc)
        return eff, (
            f"measured scaling: {nproc} processes at {eff:.0%} of perfect (results "
            f"{wide['run_id']} against {single['run_id']}, {model} on {gpu_name})"
        )
    return None


def _setup(config: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(config.get(k) for k in ("model", "framework", "batch_size", "precision"))


def _same_device(stored: Any, wanted: str, catalog: Catalog | None) -> bool:
    """A stored result's device (its CUDA name, or cpu) against a GPU name or device name."""
    if not isinstance(stored, str) or not stored:
        return False
    if normalise(stored) == normalise(wanted):
        return True
    if catalog is None:
        return False
    row = catalog.gpu_for_device(stored)
    return row is not None and (row is catalog.gpu(wanted) or row is catalog.gpu_for_device(wanted))


def efficiency_lookup(
    model: str, catalog: Catalog | None = None
) -> Callable[[str, float], tuple[float, str] | None]:
    """compare's `scaling` (CompareOptions) for `model`: the efficiency stored for it on a GPU
    at a whole number of GPUs, read from the results store (read-only), each asked once."""
    found: dict[tuple[str, float], tuple[float, str] | None] = {}

    def lookup(gpu: str, count: float) -> tuple[float, str] | None:
        if count != int(count):
            return None
        if (gpu, count) not in found:
            try:
                store = Store(readonly=True)
            except StoreError:
                return None
            found[(gpu, count)] = measured_scaling_efficiency(
                store, model, gpu, int(count), catalog
            )
        return found[(gpu, count)]

    return lookup
