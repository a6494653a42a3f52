"""The measured machine as owned hardware: the user's figures, else their machine row, else the
catalog's launch price and TDP of its GPU (the defaults the GUI's "owned" form starts from)."""

from __future__ import annotations

from typing import Any

from engine.core.errors import ConfigError
from engine.pricing.catalog import Catalog
from engine.pricing.cost import OwnedHardware
from engine.pricing.device import device_label, device_power_w, is_cpu
from engine.pricing.rows import GpuSpec, Machine

# Settable assumptions, shown wherever they are used.
DEFAULTS = {
    "lifetime_years": 3.0,
    "hours_per_day": 24.0,
    "rest_of_system_w": 0.0,
    "psu_efficiency": 0.9,
}
FIELDS = ("purchase_usd", "usd_per_kwh", "power_w", *DEFAULTS)


def gpu_defaults(spec: GpuSpec | None) -> dict[str, float | None]:
    """The owned form's starting figures for a GPU before any run: its launch price and TDP from
    the catalog (None where the catalog has none, or for no GPU), no tariff, then DEFAULTS."""
    return {
        "purchase_usd": spec.launch_price_usd if spec else None,
        "power_w": spec.tdp_w if spec else None,
        "usd_per_kwh": None,
        **DEFAULTS,
    }


def gpu_of_result(
    result: dict[str, Any], catalog: Catalog, machine: Machine | None
) -> GpuSpec | None:
    if machine is not None and machine.gpu_spec:
        return catalog.gpu(machine.gpu_spec)
    return None if is_cpu(result) else catalog.gpu_for_device(device_label(result))


def owned_for_result(
    result: dict[str, Any],
    catalog: Catalog,
    machine: Machine | None = None,
    **given: float | None,
) -> tuple[OwnedHardware, str]:
    """Owned hardware for the machine `result` ran on, and where its power figure comes from.

    Each of FIELDS is taken from `given` (None: not given), else from `machine`, else: purchase
    from the GPU's launch price, power measured during the run or the GPU's TDP, the rest from
    DEFAULTS. A missing purchase price or tariff raises ConfigError naming it.
    """
    unknown = set(given) - set(FIELDS)
    if unknown:
        raise ConfigError(sorted(unknown)[0], f"is not one of {', '.join(FIELDS)}")

    def pick(name: str) -> Any:
        value = given.get(name)
        if value is None and machine is not None:
            value = getattr(machine, name)
        return value

    spec = gpu_of_result(result, catalog, machine)
    purchase = pick("purchase_usd")
    if purchase is None:
        purchase = gpu_defaults(spec)["purchase_usd"]
    if purchase is None:
        what = spec.name if spec else device_label(result)
        raise ConfigError("purchase_usd", f"no launch price for {what} in the catalog; give it")
    tariff = pick("usd_per_kwh")
    if tariff is None:
        raise ConfigError("usd_per_kwh", "give your electricity tariff ($/kWh) to price owning")
    power, basis = pick("power_w"), "given"
    if power is None:
        power, basis = device_power_w(result, spec)
    rest = {name: _or(pick(name), default) for name, default in DEFAULTS.items()}
    owned = OwnedHardware(purchase_usd=purchase, usd_per_kwh=tariff, power_w=power, **rest)
    return owned.validated(), basis


def _or(value: Any, default: float) -> Any:
    return default if value is None else value
