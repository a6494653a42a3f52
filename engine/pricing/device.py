"""What a result ran on, as the price code reads it: a CPU or not, the device's name, its
power draw while training (measured, else the catalog's TDP), and whether its price is another
device's (a CPU measurement priced as an owned GPU)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from engine.pricing.rows import GpuSpec

if TYPE_CHECKING:
    from engine.pricing.catalog import Catalog

# An owned price's source (engine/pricing/profiles.py owned_source), after a profile's name:
# "owned GeForce GTX 1080 Ti: $699 over 3 y ..." or "profile home: owned GeForce GTX ...".
_OWNED_SOURCE = re.compile(r"(?:^|: )owned (?P<hardware>[^:]+): \$")


def is_cpu(result: dict[str, Any]) -> bool:
    env = result.get("environment") or {}
    return (env.get("device") or result["config"].get("device")) == "cpu"


def device_label(result: dict[str, Any]) -> str:
    env = result.get("environment") or {}
    return env.get("device_name") or env.get("cpu") or env.get("device") or "unknown device"


def device_power_w(result: dict[str, Any], spec: GpuSpec | None) -> tuple[float | None, str]:
    """The device's draw while training, in watts, and where the figure comes from: the mean of
    the power readings (NVML), else the energy counter over the measured windows (RAPL; the
    monitor's energy covers those windows only), else the GPU's TDP from the catalog."""
    energy = result.get("energy") or {}
    if energy.get("mean_power_w"):
        return energy["mean_power_w"], "measured"
    seconds = result.get("window_seconds")
    if energy.get("energy_j") and energy.get("energy_method") == "counter" and seconds:
        return energy["energy_j"] / seconds, "measured (energy counter)"
    if spec is not None and spec.tdp_w and not is_cpu(result):
        return spec.tdp_w, f"TDP of {spec.name} (catalog)"
    return None, "unknown (no power reading, no TDP in the catalog)"


def owned_gpu_priced(result: dict[str, Any], catalog: Catalog) -> str | None:
    """The catalog GPU a result's price is the owned price of (its source names it), or None."""
    source = (result.get("price") or {}).get("source") or ""
    found = _OWNED_SOURCE.search(source)
    if found is None:
        return None
    spec = catalog.gpu(found["hardware"].strip())
    return spec.name if spec is not None else None


def cpu_at_gpu_price(result: dict[str, Any], catalog: Catalog) -> str | None:
    """What a CPU result priced as an owned GPU means, in a sentence (None for any other): the
    cost is the CPU's speed at that GPU's price, not what the GPU would do."""
    if not is_cpu(result):
        return None
    gpu = owned_gpu_priced(result, catalog)
    if gpu is None:
        return None
    return (
        f"Measured on the CPU ({device_label(result)}) and priced as an owned {gpu}: this is "
        f"the CPU's speed at the {gpu}'s price, not the {gpu}'s speed. Measure on the GPU "
        "to price what it does."
    )
