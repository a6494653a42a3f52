"""GPUs to buy: what the measured epoch would cost on a GPU you own, beside the cloud rows.

Each candidate is one GPU, bought at its launch price (the catalog's, dated by the GPU's
release) or at a price you give, used `hours_per_day` for `lifetime_years`, drawing its TDP
(plus the rest of the system) through a power supply of `psu_efficiency` at your tariff. Its
throughput is the projection of the measured run onto it (engine/pricing/projection.py), or a
stored run measured on it. Its break-even is against the cheapest cloud row of the comparison:
the days of use after which owning it costs less than renting that instance for the same work,
with its range from both throughputs' ranges (engine/pricing/breakeven.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.pricing import breakeven, cost, owning
from engine.pricing.catalog import Catalog
from engine.pricing.compare_rows import BuyOptions, CompareOptions, CompareRow
from engine.pricing.projection import Projection
from engine.pricing.rows import GpuSpec

CLOUD = "buy"  # the rows' `cloud`
# Without a list: every catalog GPU with a launch price released in this year or later.
DEFAULT_SINCE_YEAR = 2020


def candidates(catalog: Catalog, options: BuyOptions) -> list[GpuSpec]:
    """The GPUs to price: those named, else the default candidates, newest first."""
    if options.gpus:
        found = [catalog.gpu(name) for name in options.gpus]
        return [g for g in found if g is not None]
    recent = [
        g
        for g in catalog.gpus
        if g.launch_price_usd
        and g.release_date[:4].isdigit()
        and int(g.release_date[:4]) >= DEFAULT_SINCE_YEAR
    ]
    return sorted(recent, key=lambda g: g.release_date, reverse=True)


def owned_hardware(gpu: GpuSpec, options: BuyOptions) -> tuple[cost.OwnedHardware, str, str] | str:
    """(hardware, price source, price date) for `gpu`, or why it cannot be priced."""
    given = options.price_of(gpu.name)
    if given is not None:
        purchase, source, date = given, "price given", ""
    elif gpu.launch_price_usd:
        purchase = gpu.launch_price_usd
        source = f"launch price of {gpu.name} (catalog: {gpu.sources or gpu.origin})"
        date = f"launch {gpu.release_date}" if gpu.release_date else "launch (undated)"
    else:
        return f"no launch price for {gpu.name} in the catalog: give one (GPU=USD)"
    if not gpu.tdp_w:
        return f"no TDP for {gpu.name} in the catalog: its electricity cannot be priced"
    owned = owning.owned_setup(
        purchase_usd=purchase,
        usd_per_kwh=options.usd_per_kwh,
        power_w=gpu.tdp_w,
        rest_of_system_w=options.rest_of_system_w,
        lifetime_years=options.lifetime_years,
        hours_per_day=options.hours_per_day,
        psu_efficiency=options.psu_efficiency,
    )
    return owned, source, date


def cheapest_cloud(rows: Sequence[CompareRow]) -> CompareRow | None:
    """The cloud row with the cheapest on-demand epoch (not the local machine, not a buy row)."""
    cloud = [r for r in rows if not r.local and r.cloud != CLOUD and r.usd_per_epoch is not None]
    return min(cloud, key=lambda r: r.usd_per_epoch or 0.0, default=None)


def buy_row(
    result: dict[str, Any],
    gpu: GpuSpec,
    proj: Projection,
    options: BuyOptions,
    against: CompareRow | None,
    epochs: float,
) -> CompareRow | str:
    """The comparison row of owning `gpu`, or why there is none."""
    priced = owned_hardware(gpu, options)
    if isinstance(priced, str):
        return priced
    owned, source, date = priced
    n = result["epoch_samples"]

    def epoch(samples_per_s: float | None) -> float | None:
        return cost.epoch_seconds(n, samples_per_s) if samples_per_s else None

    def usd(seconds: float | None) -> float | None:
        return None if seconds is None else cost.usd_for_seconds(seconds, owned.usd_per_hour)

    epoch_s = epoch(proj.samples_per_s)
    per_epoch = usd(epoch_s)
    wall = owned.wall_power_w
    kwh = cost.kwh_for_seconds(wall, epoch_s) if wall is not None and epoch_s else None
    span, versus = None, ""
    if against is not None and against.usd_per_hour and proj.samples_per_s:
        span = breakeven.days_range(
            owned,
            against.usd_per_hour,
            (proj.samples_per_s, proj.low, proj.high),
            (
                against.throughput_samples_per_s or proj.samples_per_s,
                against.throughput_low,
                against.throughput_high,
            ),
        )
        versus = (
            f"break-even against {against.cloud} {against.instance_type} "
            f"(${against.usd_per_hour:g}/h, the cheapest cloud epoch)"
        )
        if span.days is None:
            versus += ": never (its electricity costs more than renting)"
    fits_note = f"does not fit: {proj.basis}" if proj.status == "does_not_fit" else ""
    costs = (
        f"${owned.purchase_usd:,.0f} over {owned.lifetime_years:g} years at "
        f"{owned.hours_per_day:g} h/day + {wall:.0f} W at the wall (TDP {gpu.tdp_w:g} W) at "
        f"${owned.usd_per_kwh:g}/kWh = ${owned.usd_per_hour:.4f}/h"
    )
    return CompareRow(
        instance_type=f"buy {gpu.name}",
        cloud=CLOUD,
        gpu_model=gpu.name,
        gpu_count=1.0,
        status=proj.status,
        throughput_samples_per_s=proj.samples_per_s,
        throughput_low=proj.low,
        throughput_high=proj.high,
        epoch_seconds=epoch_s,
        usd_per_hour=owned.usd_per_hour,
        usd_per_hour_spot=None,
        usd_per_epoch=per_epoch,
        usd_per_epoch_low=usd(epoch(proj.high)),
        usd_per_epoch_high=usd(epoch(proj.low)),
        usd_per_epoch_spot=None,
        usd_per_run=None if per_epoch is None else per_epoch * epochs,
        usd_per_run_spot=None,
        kwh_per_epoch=kwh,
        co2_kg_per_epoch=None,
        break_even_days=None if span is None else span.days,
        break_even_days_low=None if span is None else span.low,
        break_even_days_high=None if span is None else span.high,
        break_even_text=breakeven.days_text(span),
        fits=proj.fits,
        memory_needed_bytes=proj.memory_needed_bytes,
        memory_available_bytes=proj.memory_available_bytes,
        price_source=f"{source}; {costs}",
        price_date=date,
        basis=proj.basis,
        notes="; ".join(x for x in (fits_note, versus) if x),
        range_level=proj.range_level,
    )


def rows(
    result: dict[str, Any],
    catalog: Catalog,
    options: CompareOptions,
    throughput: Callable[[GpuSpec], Projection | str],
    cloud_rows: Sequence[CompareRow],
    left_out: list[tuple[str, str]],
) -> list[CompareRow]:
    """The buy rows of a comparison: each candidate's row, or its reason in `left_out`.
    `throughput(gpu)` is the comparison's own: measured there, else projected."""
    if options.buy is None:
        return []
    against, out = cheapest_cloud(cloud_rows), []
    for gpu in candidates(catalog, options.buy):
        proj = throughput(gpu)
        row = (
            proj
            if isinstance(proj, str)
            else buy_row(result, gpu, proj, options.buy, against, options.epochs)
        )
        if isinstance(row, str):
            left_out.append((f"buy {gpu.name}", row))
        else:
            out.append(row)
    return out
