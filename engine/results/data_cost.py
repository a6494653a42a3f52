"""What the data costs: a run that loaded its data beside a synthetic run of the same model,
framework, batch, device and precision on the same machine, from the store (`results show`).

Synthetic batches measure the model alone (the upper bound); the run with an input pipeline
is what training pays. Their difference in throughput and $/epoch is the data's share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the store (and its pandas) is the caller's: the window imports this module
    from engine.results.store import Store

_SAME = ("model", "framework", "batch_size", "device", "precision")


def synthetic_twin(store: Store, result: dict[str, Any]) -> dict[str, Any] | None:
    """The newest finished synthetic run matching `result` (same host too), or None; None as
    well for a result that is itself synthetic."""
    if (result.get("data") or {}).get("kind", "synthetic") == "synthetic":
        return None
    rows = store.list()
    own = rows[rows["run_id"] == result.get("run_id")]
    if own.empty:
        return None
    match = rows["status"] == "ok"
    for key in _SAME:  # as the listing has them (the device resolved)
        match &= rows[key] == own.iloc[0][key]
    host = result.get("environment", {}).get("hostname")
    for run_id in rows[match]["run_id"]:
        other = store.get(str(run_id))
        kind = (other.get("data") or {}).get("kind", "synthetic")
        if kind == "synthetic" and other.get("environment", {}).get("hostname") == host:
            return other
    return None


def comparison(result: dict[str, Any], twin: dict[str, Any]) -> dict[str, Any]:
    """Both figures and the data's share: throughput lost to loading (0..1), and the extra
    $/epoch (None without prices on both)."""
    loaded, synthetic = result["throughput_samples_per_s"], twin["throughput_samples_per_s"]
    usd, usd_synthetic = result.get("usd_per_epoch"), twin.get("usd_per_epoch")
    return {
        "synthetic_run_id": twin["run_id"],
        "synthetic_samples_per_s": synthetic,
        "samples_per_s": loaded,
        "throughput_lost_fraction": max(0.0, 1 - loaded / synthetic) if synthetic else None,
        "synthetic_usd_per_epoch": usd_synthetic,
        "usd_per_epoch": usd,
        "data_usd_per_epoch": usd - usd_synthetic
        if usd is not None and usd_synthetic is not None
        else None,
    }


def text(c: dict[str, Any]) -> str:
    """The comparison as the lines `results show` prints."""
    lost = c["throughput_lost_fraction"]
    line = (
        f"data cost  {c['samples_per_s']:,.1f} samples/s loading the data, "
        f"{c['synthetic_samples_per_s']:,.1f} on synthetic batches (run "
        f"{c['synthetic_run_id']})"
    )
    if lost is not None:
        line += f": loading costs {lost:.0%} of the throughput"
    if c["data_usd_per_epoch"] is not None:
        line += (
            f"\n           ${c['usd_per_epoch']:.4g} per epoch against "
            f"${c['synthetic_usd_per_epoch']:.4g}: the data adds ${c['data_usd_per_epoch']:.4g}"
        )
    return line
