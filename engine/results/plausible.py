"""Whether a result could have been measured: the rules every way a result comes in from
elsewhere shares (`results import`, the app's import, `cloud collect`), beyond the bounds of
its fields (engine/results/schema.py). The date rule also holds for every row the store adds
and reads (stored_problem): a row stored before it that breaks it is listed as damaged.

- **Dated now or before:** `created_at` is when the run ended; one more than CLOCK_SKEW_S (a
  day) ahead of this machine's clock was written, not measured (9999-12-31 would head `results
  list` for good).
- **No faster than the device:** the FLOP rate a result claims per device, the larger of its
  `flops.achieved_tflops` and what its throughput gives (`flops.per_sample` x samples/s), is
  at most the device's physical peak: a GPU's fastest dense rate in the catalog (its tensor
  FP16/BF16 rate; twice its FP32 rate without tensor cores, as packed FP16 runs), a CPU's
  CPU_TFLOPS_PER_CORE per logical core up to CPU_MAX_TFLOPS. The peak is the device's, not the
  run's precision's: an fp32 run whose convolutions ran as TF32 reads above its FP32 peak and
  is real. A device the catalog lacks (an unknown GPU, Apple's MPS), or a GPU whose fastest rate
  it lacks, is not checked: no guess stands in for a peak; check() says so, and an import says
  the result's FLOP rate is unchecked, and why.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from engine.core.errors import ConfigError
from engine.pricing import catalog as catalog_module
from engine.pricing.catalog import Catalog
from engine.pricing.device import device_label, is_cpu
from engine.pricing.rows import GpuSpec
from engine.results.result_fields import CLOCK_SKEW_S, CPU_MAX_TFLOPS, CPU_TFLOPS_PER_CORE


def check(
    result: dict[str, Any],
    where: str,
    catalog: Catalog | None = None,
    now: _dt.datetime | None = None,
) -> str | None:
    """A ConfigError naming `where` (the file, the log) when `result` (already validated by
    engine/results/schema.py) is dated in the future or claims more than its device can do;
    else why its FLOP rate could not be checked (None: checked, or no FLOP count). `catalog` is
    loaded when not given; one that cannot be read leaves GPUs unchecked."""
    dated_before(result, where, now or _dt.datetime.now(_dt.UTC))
    return within_peak(result, where, catalog)


def created(result: dict[str, Any]) -> _dt.datetime | None:
    """A result's `created_at` as an aware time (a date alone: its midnight; no zone: UTC)."""
    text = result.get("created_at")
    if not text:
        return None
    if len(text) == 10:
        day = _dt.date.fromisoformat(text)
        return _dt.datetime(day.year, day.month, day.day, tzinfo=_dt.UTC)
    at = _dt.datetime.fromisoformat(text)
    return at if at.tzinfo is not None else at.replace(tzinfo=_dt.UTC)


def dated_before(result: dict[str, Any], where: str, now: _dt.datetime) -> None:
    """`created_at` no more than CLOCK_SKEW_S ahead of `now`."""
    at = created(result)
    if at is None or at.timestamp() <= now.timestamp() + CLOCK_SKEW_S:
        return
    raise ConfigError(
        where,
        f"created_at {result['created_at']} is in the future (this machine's clock says "
        f"{now.astimezone(_dt.UTC):%Y-%m-%d %H:%M} UTC; {CLOCK_SKEW_S / 86400:g} day of clock "
        "skew is allowed): a result is dated when it is measured; fix created_at, or measure "
        "again",
    )


def within_peak(result: dict[str, Any], where: str, catalog: Catalog | None = None) -> str | None:
    """The FLOP rate a result claims per device at most the device's physical peak; where that
    peak is unknown, why the rate is unchecked."""
    claimed = claimed_tflops_per_device(result)
    if claimed is None:
        return None
    peak, basis = physical_peak(result, catalog)
    if peak is None:
        return f"no peak bounds {device_label(result)}: {basis}"
    if claimed <= peak:
        return None
    raise ConfigError(
        where,
        f"claims {claimed:.4g} TFLOP/s per device on {device_label(result)}, above the device's "
        f"physical peak of {peak:.4g} TFLOP/s ({basis}): no measurement reaches that, the "
        "figures were scaled or edited; measure again",
    )


def claimed_tflops_per_device(result: dict[str, Any]) -> float | None:
    """The larger of the stated and the throughput's FLOP rate (TFLOP/s), per device: per
    GPU of a data-parallel run, per node of a CPU run; None without a FLOP count."""
    flops = result.get("flops")
    if not flops:
        return None
    rates = [flops.get("achieved_tflops") or 0.0]
    throughput = result.get("throughput_samples_per_s")
    if throughput is not None:
        rates.append(flops["per_sample"] * throughput / 1e12)
    spread = result.get("distributed") or {}
    devices = spread.get("nnodes" if is_cpu(result) else "world_size") or 1
    return max(rates) / devices


def physical_peak(
    result: dict[str, Any], catalog: Catalog | None = None
) -> tuple[float | None, str]:
    """The most TFLOP/s the result's device can do, and what the figure is (None: unknown)."""
    env = result.get("environment") or {}
    if is_cpu(result):
        cores = env.get("cpu_count_logical") or env.get("cpu_count_physical")
        if not cores:
            return CPU_MAX_TFLOPS, f"no CPU does more than {CPU_MAX_TFLOPS:g}"
        peak = min(CPU_TFLOPS_PER_CORE * cores, CPU_MAX_TFLOPS)
        return peak, (
            f"a CPU of {cores} logical cores: at most {CPU_TFLOPS_PER_CORE:g} each, "
            f"{CPU_MAX_TFLOPS:g} in all"
        )
    if not str(env.get("device") or result["config"]["device"]).startswith("cuda"):
        return None, "not a GPU the catalog holds"
    spec = _catalog(catalog).gpu_for_device(env.get("device_name"))
    return gpu_peak(spec) if spec is not None else (None, "not in the GPU catalog")


def gpu_peak(spec: GpuSpec) -> tuple[float | None, str]:
    """A GPU's fastest dense rate in the catalog (TFLOP/s), and what it is."""
    rates = [spec.fp32_tflops, spec.tf32_tensor_tflops_dense, spec.fp16_bf16_tensor_tflops_dense]
    known = [r for r in rates if r is not None]
    if spec.has_tensor_cores:
        if spec.fp16_bf16_tensor_tflops_dense is None:
            return None, f"{spec.name}'s tensor rate is not in the catalog"
        return max(known), f"{spec.name}'s fastest dense rate, {spec.origin} catalog"
    if spec.fp32_tflops is None:
        return None, f"{spec.name}'s FP32 rate is not in the catalog"
    return max([2 * spec.fp32_tflops, *known]), f"twice {spec.name}'s FP32 rate (packed FP16)"


def stored_problem(result: dict[str, Any]) -> str | None:
    """Why a result breaks the rule the store holds every row to, as it is added and as it is
    read (a row dated 9999-12-31 would head the listing for good), or None. Only the date: the
    peak rule reads the catalog, which can change under a stored row, so it is held where a
    result comes in from elsewhere (import, collect)."""
    try:
        dated_before(result, "it", _dt.datetime.now(_dt.UTC))
    except ConfigError as exc:
        return exc.message
    return None


def _catalog(catalog: Catalog | None) -> Catalog:
    """`catalog`, or the shipped and user catalog; an empty one when that cannot be read."""
    if catalog is not None:
        return catalog
    try:
        return catalog_module.load()
    except OSError:  # the data folder is unusable: the peak is unknown, the result unchecked
        return Catalog()
