"""Hardware for the planner (engine/plan/planner.py), from the catalog: a GPU (priced on its
cheapest instances), a named instance, or every GPU with a known peak (the comparison); owned
when a tariff is given; the grid of a region for CO2; and the utilisation and power of a stored
result. What the user chose (PlanOptions) is engine/plan/options.py.

Prices: `count` GPUs are billed as whole instances, ceil(count / GPUs per instance) of them, and
the cheapest such choice is taken (prices the catalog flags, e.g. "verify", only when nothing
else sells that GPU). Spot is the cheapest spot offer of that GPU, which may be another
instance than the on-demand one; both are named in the basis.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from engine.core.errors import ConfigError
from engine.core.placeholders import ask
from engine.measure.utilisation import peak_for_spec
from engine.plan.offers import billed_gpus, offer, offer_text
from engine.plan.options import PlanOptions
from engine.plan.planner import TDP, Compute, PlanRow, Power, RunsRow, Target, Utilisation, plan
from engine.pricing import owning
from engine.pricing.catalog import Catalog
from engine.pricing.cost import OwnedHardware
from engine.pricing.device import device_label, is_cpu
from engine.pricing.rows import GpuSpec, Instance

# --- finding hardware --------------------------------------------------------------------------


def find_gpu(catalog: Catalog, text: str) -> tuple[GpuSpec, str]:
    """The GPU row `text` names (its name, a device name, or a part of them), and a note when
    several matched: then the one of the cheapest instance is taken."""
    exact = catalog.gpu(text) or catalog.gpu_for_device(text)
    if exact is not None:
        return exact, ""
    found = catalog.find_gpus(text)
    if len(found) == 1:
        return found[0], ""
    if not found:
        raise ConfigError("gpu", f"no GPU matches {text!r} (epochcost catalog gpus lists them)")
    names = {g.name for g in found}
    sold = [i for i in catalog.select() if i.gpu_spec in names and i.gpu_count >= 1]
    if not sold:
        raise ConfigError("gpu", f"{text!r} matches {', '.join(sorted(names))}: give one name")
    spec = catalog.gpu(min(sold, key=lambda i: (i.flagged, i.usd_per_hour / i.gpu_count)).gpu_spec)
    assert spec is not None
    others = ", ".join(sorted(names - {spec.name}))
    return spec, f"{text!r} also matches {others}; give the full name to choose"


def find_instance(catalog: Catalog, text: str, clouds: tuple[str, ...] | None) -> Instance:
    wanted = text.strip().lower()
    rows = [i for i in catalog.select(clouds, historical=None) if i.instance_type.lower() == wanted]
    rows.sort(key=lambda i: i.historical)  # a current price before a historical one
    if not rows:
        raise ConfigError("instance", f"no instance {text!r} in the catalog (catalog instances)")
    clouds_found = {i.cloud for i in rows}
    if len(clouds_found) > 1:
        raise ConfigError(
            "instance", f"{text!r} is sold by {', '.join(sorted(clouds_found))}: add --cloud"
        )
    instance = rows[0]
    if instance.gpu_count < 1 or not instance.gpu_spec:
        raise ConfigError("instance", f"{instance.label} has no whole GPU in the GPU catalog")
    return instance


def default_precision(spec: GpuSpec) -> str:
    """The precision a plan on `spec` takes unless one is chosen: the FP16 tensor rate where
    the GPU has one, else the fastest it has a peak for (a GTX 1080 Ti: FP32)."""
    for precision in ("fp16", "bf16", "tf32", "fp32"):
        if peak_for_spec(spec, precision).tflops is not None:
            return precision
    return "fp32"


# --- grid, owning, power -------------------------------------------------------------------------


def grid(
    catalog: Catalog, options: PlanOptions, instance: Instance | None
) -> tuple[Any, str, float]:
    """(g CO2e per kWh or None, where it comes from, PUE)."""
    pue = options.pue
    if options.g_co2e_per_kwh is not None:
        return options.g_co2e_per_kwh, f"{options.g_co2e_per_kwh:g} g/kWh (given)", pue or 1.0
    row = None
    if options.region:
        provider, _, region = options.region.rpartition(":")
        rows = [g for g in catalog.grid if g.region.lower() == region.lower()]
        rows = [g for g in rows if not provider or g.provider == provider.lower()]
        if instance is not None and len(rows) > 1:
            rows = [g for g in rows if g.provider == instance.cloud] or rows
        if not rows:
            raise ConfigError("region", f"{options.region!r} is not in the grid catalog")
        if len(rows) > 1:
            both = ", ".join(f"{g.provider}:{g.region}" for g in rows)
            raise ConfigError("region", f"{options.region!r} is in several clouds: {both}")
        row = rows[0]
    elif instance is not None:
        row = catalog.grid_for(instance.cloud, instance.region)
        if row is None:
            return (
                None,
                f"no grid figure for {instance.cloud} {instance.region or '(no region)'}",
                pue or 1.0,
            )
    if row is None:
        return None, f"no region given for CO2 (give {ask('grid_region')})", pue or 1.0
    pue_text = ""
    if pue is None and row.pue:
        pue, pue_text = row.pue, f", PUE {row.pue:g}"
    where = f"{row.provider}:{row.region}"
    basis = f"{where} {row.ci_gco2e_per_kwh:g} g/kWh ({row.ci_data_vintage}){pue_text}"
    return row.ci_gco2e_per_kwh, basis, pue or 1.0


def owned(
    spec: GpuSpec, count: int, power: Power, options: PlanOptions
) -> tuple[OwnedHardware | None, str]:
    """Buying `count` of `spec`: launch price (or the given one) over its lifetime, plus the
    electricity of its power; None (and why) when no tariff or no purchase price is known."""
    if options.usd_per_kwh is None:
        return None, f"owning not priced (give {ask('usd_per_kwh')})"
    purchase = options.purchase_usd if options.purchase_usd is not None else spec.launch_price_usd
    if purchase is None:
        if options.owned:
            raise ConfigError(
                "purchase_usd", f"no launch price for {spec.name} in the catalog; give it"
            )
        why = f"no launch price for {spec.name}"
        return None, f"owning not priced: {why} (give {ask('purchase_usd')})"
    power_w = None if spec.tdp_w is None else spec.tdp_w * power.fraction_of_tdp
    # Checked as one GPU, so that a mistake is told in the figure given (-5, not -40 for 8).
    one = owning.owned_setup(
        purchase_usd=purchase,
        usd_per_kwh=options.usd_per_kwh,
        power_w=power_w,
        lifetime_years=options.lifetime_years,
        hours_per_day=options.hours_per_day,
        psu_efficiency=options.psu_efficiency,
        rest_of_system_w=options.rest_of_system_w,
    )
    hardware = replace(
        one,
        purchase_usd=purchase * count,
        power_w=None if power_w is None else power_w * count,
    )
    source = "given" if options.purchase_usd is not None else "launch price, catalog"
    watts = hardware.rest_of_system_w
    rest = f" (+ {watts:g} W rest of system)" if watts else ""
    profile = f"profile {options.owned_profile}: " if options.owned_profile else ""
    basis = (
        f"{profile}owned: {count} x ${purchase:,.0f} ({source}) over "
        f"{hardware.lifetime_years:g} years at "
        f"{hardware.hours_per_day:g} h/day + electricity{rest} at ${options.usd_per_kwh:g}/kWh "
        f"/ {hardware.psu_efficiency:g} PSU = ${hardware.usd_per_hour:,.4f}/h"
    )
    return hardware, basis


def power_from_result(result: dict[str, Any], catalog: Catalog) -> Power | None:
    """The measured draw of a result's GPU as a fraction of its TDP, to carry to other GPUs."""
    mean = (result.get("energy") or {}).get("mean_power_w")
    if not mean or is_cpu(result):
        return None
    spec = catalog.gpu_for_device(device_label(result))
    if spec is None or not spec.tdp_w:
        return None
    fraction = mean / spec.tdp_w
    return Power(fraction, f"measured {mean:.0f} W on {spec.name} = {fraction:.0%} of its TDP")


def utilisation_from_result(result: dict[str, Any], catalog: Catalog) -> Utilisation:
    """The MFU a stored result measured, with its GPU and precision; ConfigError if it has none."""
    run_id = result.get("run_id", "?")
    flops = result.get("flops") or {}
    if result.get("status") != "ok" or flops.get("mfu") is None:
        why = flops.get("peak_source") or "no FLOP count or MFU stored with it"
        text = f"{run_id} has no measured MFU ({why}): give {ask('mfu')} instead"
        raise ConfigError("from_result", text)
    spec = catalog.gpu_for_device(device_label(result))
    gpu = spec.name if spec else device_label(result)
    precision = result["config"]["precision"]
    model = result["config"]["model"]
    basis = f"measured: MFU {flops['mfu']:.1%} ({model}, {precision}, on {gpu}, run {run_id})"
    return Utilisation(flops["mfu"], basis, True, gpu, precision, run_id)


def utilisation_warnings(u: Utilisation, target: Target, precision: str) -> tuple[str, ...]:
    """Where a measured MFU is carried further than it was measured."""
    if not u.measured:
        return ()
    out = []
    if u.measured_on != target.gpu:
        out.append(
            f"MFU measured on {u.measured_on}, applied to {target.gpu}: utilisation differs "
            "between GPUs (a faster GPU is often harder to keep busy)"
        )
    if u.precision != precision:
        out.append(f"MFU measured at {u.precision}, applied to the {precision} peak")
    if target.count > 1:
        out.append(f"MFU measured on one GPU, applied to {target.count}: perfect scaling assumed")
    return tuple(out)


# --- targets -----------------------------------------------------------------------------------


def _target(
    catalog: Catalog,
    spec: GpuSpec,
    count: int,
    options: PlanOptions,
    power: Power,
    instances: list[Instance],
    label: str = "",
) -> Target:
    peak = peak_for_spec(spec, options.precision)
    if peak.tflops is None:
        raise ConfigError("precision", f"{spec.name} at {options.precision}: {peak.source}")
    demand = offer(instances, count, spot=False)
    spot = offer(instances, count, spot=True)
    rented = f"profile {options.rented_profile}: " if options.rented_profile else ""
    spot_basis = offer_text(*spot, count, "spot") if spot else "no spot price in the catalog"
    if spot and demand and spot[2] > demand[2] and billed_gpus(spot[0], count) > count:
        # Spot only on bigger instances, idle GPUs billed: dearer than on-demand, no choice.
        spot_basis = f"no spot offer for {count} GPU(s) below on-demand ({spot_basis})"
        spot = None
    g, grid_basis, pue = grid(catalog, options, demand[0] if demand else None)
    hardware, owned_basis = owned(spec, count, power, options)
    return Target(
        label=label or f"{count} x {spec.name}",
        gpu=spec.name,
        count=count,
        peak_tflops=peak.tflops,
        peak_basis=peak.source,
        tdp_w=spec.tdp_w,
        usd_per_hour=demand[2] if demand else None,
        billed_gpus=billed_gpus(demand[0], count) if demand else None,
        price_basis=rented + offer_text(*demand, count, "on-demand")
        if demand
        else "no cloud sells it in the catalog",
        usd_per_hour_spot=spot[2] if spot else None,
        spot_basis=rented + spot_basis,
        owned=hardware,
        owned_basis=owned_basis,
        g_co2e_per_kwh=g,
        grid_basis=grid_basis,
        pue=pue,
    )


def _sold(catalog: Catalog, spec: GpuSpec, clouds: tuple[str, ...] | None) -> list[Instance]:
    return [i for i in catalog.select(clouds) if i.gpu_spec == spec.name and i.gpu_count >= 1]


def target_for_gpu(
    catalog: Catalog, spec: GpuSpec, options: PlanOptions, power: Power = TDP
) -> Target:
    """`options.count` GPUs of `spec`, priced on the cheapest instances that sell it."""
    return _target(
        catalog, spec, options.count or 1, options, power, _sold(catalog, spec, options.clouds)
    )


def target_for_instance(
    catalog: Catalog, instance: Instance, options: PlanOptions, power: Power = TDP
) -> Target:
    """A named instance; `options.count` GPUs (default: the instance's own)."""
    spec = catalog.gpu_of(instance)
    if spec is None:
        raise ConfigError(
            "instance", f"{instance.label}: its GPU {instance.gpu_spec!r} is not in the GPU catalog"
        )
    count = options.count or int(instance.gpu_count)
    n = math.ceil(count / instance.gpu_count)
    label = f"{instance.cloud} {instance.instance_type}" + (f" x{n}" if n > 1 else "")
    return _target(catalog, spec, count, options, power, [instance], label)


def all_targets(
    catalog: Catalog,
    options: PlanOptions,
    power_for: Callable[[GpuSpec], Power] = lambda spec: TDP,
) -> tuple[list[Target], list[tuple[str, str]]]:
    """One target per catalog GPU with a known peak for the precision (priced where sold), and
    the GPUs left out with why."""
    targets, left_out = [], []
    for spec in catalog.gpus:
        sold = _sold(catalog, spec, options.clouds)
        if options.clouds and not sold:
            continue
        peak = peak_for_spec(spec, options.precision)
        if peak.tflops is None:
            left_out.append((spec.name, peak.source.removeprefix("peak unknown: ")))
            continue
        targets.append(_target(catalog, spec, options.count or 1, options, power_for(spec), sold))
    return targets, left_out


def with_notes(target: Target, notes: tuple[str, ...]) -> Target:
    return replace(target, notes=target.notes + notes)


def plan_on(
    target: Target,
    compute: Compute,
    utilisation: Utilisation,
    precision: str,
    power: Power = TDP,
    runs: tuple[RunsRow, ...] = (RunsRow("one run", 1),),
) -> tuple[PlanRow, Target]:
    """The plan on one target, with notes where a measured MFU is carried beyond where it was
    measured; the target comes back with those notes (for its price and grid texts)."""
    target = with_notes(target, utilisation_warnings(utilisation, target, precision))
    return plan(compute, target, utilisation, power, runs), target


def compare(
    catalog: Catalog,
    compute: Compute,
    utilisation: Utilisation,
    options: PlanOptions,
    power: Power = TDP,
    runs: tuple[RunsRow, ...] = (RunsRow("one run", 1),),
) -> tuple[list[tuple[PlanRow, Target]], list[tuple[str, str]]]:
    """One plan per catalog GPU with a peak for the precision, cheapest on-demand first (those
    no cloud sells last, fastest first), and the GPUs left out with why: the rows of the
    comparison table and bar chart (PlanRow.to_row() for each)."""
    targets, left_out = all_targets(catalog, options, lambda spec: power)
    rows = [plan_on(t, compute, utilisation, options.precision, power, runs) for t in targets]
    rows.sort(
        key=lambda rt: (rt[0].usd_ondemand is None, rt[0].usd_ondemand or 0, rt[0].wall_hours)
    )
    return rows, left_out
