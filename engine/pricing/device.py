"""What a result ran on, as the price code reads it: a CPU or not, the device's name, and its
power draw while training (measured, else the catalog's TDP)."""

from __future__ import annotations

from typing import Any

from engine.pricing.rows import GpuSpec


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
