"""Owned hardware priced one way everywhere: `owned_setup` turns an owned set-up (purchase,
lifetime, hours a day, GPU watts, rest of system, PSU efficiency, tariff) into OwnedHardware,
whose `usd_per_hour` is the one $/h the panel, Compare, Plan, the report, profiles and every
CLI command show. For the measured machine (`owned_for_result`) a figure not given is its
machine row's, else the catalog's launch price and TDP of its GPU (the defaults the GUI's
"owned" form starts from), else DEFAULTS; `carried` says which figures of a set-up chosen
elsewhere (the panel, a profile) apply to a result's machine."""

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


def owned_setup(**figures: float | None) -> OwnedHardware:
    """THE owned set-up as priced hardware: each of FIELDS as given (None: not given), the
    DEFAULTS where left out, every range checked. Its `usd_per_hour` is the set-up's $/h:
    purchase / (lifetime_years x 365 x hours_per_day) + (power_w + rest_of_system_w) /
    psu_efficiency / 1000 x usd_per_kwh. A missing purchase price or tariff, or a field that
    is not one, raises ConfigError naming it."""
    unknown = set(figures) - set(FIELDS)
    if unknown:
        raise ConfigError(sorted(unknown)[0], f"is not one of {', '.join(FIELDS)}")
    purchase, tariff = figures.get("purchase_usd"), figures.get("usd_per_kwh")
    if purchase is None:
        raise ConfigError("purchase_usd", "give the purchase price ($) to price owning")
    if tariff is None:
        raise ConfigError("usd_per_kwh", "give your electricity tariff ($/kWh) to price owning")
    rest = {name: _or(figures.get(name), default) for name, default in DEFAULTS.items()}
    owned = OwnedHardware(
        purchase_usd=purchase, usd_per_kwh=tariff, power_w=figures.get("power_w"), **rest
    )
    return owned.validated()


def usd_per_hour(**figures: float | None) -> float:
    """An owned set-up's $/h (owned_setup's figures)."""
    return owned_setup(**figures).usd_per_hour


def figures_of(owned: OwnedHardware) -> dict[str, float | None]:
    """Every figure of an owned set-up, by FIELDS' names (what owned_setup takes back)."""
    return {name: getattr(owned, name) for name in FIELDS}


def carried(
    owned: OwnedHardware, hardware: str, result: dict[str, Any], catalog: Catalog
) -> dict[str, float | None]:
    """The figures of a set-up chosen elsewhere (the panel's, a profile's) that apply to the
    machine `result` ran on: tariff, use, rest of system and PSU always; the purchase and the
    device watts only when its `hardware` (a catalog GPU, or a machine of yours by name) is
    that result's GPU, or the result ran on no GPU (another GPU's price is not this one's)."""
    figures = figures_of(owned)
    spec = gpu_of_result(result, catalog, None)
    machine = catalog.machine(hardware)
    gpu = catalog.gpu(machine.gpu_spec) if machine and machine.gpu_spec else catalog.gpu(hardware)
    if spec is not None and (gpu is None or gpu.name != spec.name):
        del figures["purchase_usd"], figures["power_w"]
    return figures


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
    power, basis = pick("power_w"), "given"
    if power is None:
        power, basis = device_power_w(result, spec)
    picked = {name: pick(name) for name in FIELDS}
    owned = owned_setup(**{**picked, "purchase_usd": purchase, "power_w": power})
    return owned, basis


def _or(value: Any, default: float) -> Any:
    return default if value is None else value
