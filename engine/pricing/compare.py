"""What the epoch of a measured result costs on each catalog instance and on the machine it ran on.

`compare(result, catalog, options, measured_runs)` is a pure function: it returns a Comparison
(engine/pricing/compare_rows.py) whose rows a table model or a bar chart shows as they are
(sorted by $/epoch, local machine included), plus what was left out and why. Money in USD, time in
seconds, energy in kWh, emissions in kg CO2e.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.core.precision import MARK, imprecise
from engine.pricing import breakeven, buying, cost
from engine.pricing.catalog import Catalog, stale_note
from engine.pricing.compare_rows import CompareOptions, CompareRow, Comparison, MeasuredRun
from engine.pricing.device import device_label, device_power_w, is_cpu
from engine.pricing.projection import Basis, Projection, measured, memory_bytes
from engine.pricing.result_projection import family_of, project_result
from engine.pricing.rows import GpuSpec, Instance
from engine.pricing.spread import measured_spread


def _scale_note(count: float) -> str:
    if count < 1:
        return f"{count:g} of a GPU (a partition): that share of its rate assumed"
    return f"{count:g} GPUs: perfect data-parallel scaling assumed (an upper bound)"


def _throughput(
    result: dict[str, Any],
    catalog: Catalog,
    instance: Instance,
    on_gpu: dict[str, MeasuredRun],
    basis: Basis,
    scaling: Callable[[str, float], tuple[float, str] | None] | None = None,
) -> Projection | str:
    """The projection for one instance, or why there is none."""
    target = catalog.gpu_of(instance)
    if instance.gpu_count == 0:
        if is_cpu(result):
            return "CPU-only machine: a CPU result cannot be scaled to another CPU by spec ratios"
        return "CPU-only machine: a GPU result says nothing of a CPU's speed"
    if target is None:
        return "no GPU spec in the catalog for this accelerator (TPU, Gaudi, ...)"
    proj = throughput_on(result, catalog, target, instance, on_gpu, basis)
    if isinstance(proj, str):
        return proj
    count = instance.gpu_count
    measured_scaling = scaling(target.name, count) if scaling and count > 1 else None
    if measured_scaling is not None:
        efficiency, source = measured_scaling
        return proj.scaled(count * efficiency, f"{count:g} GPUs: {source}")
    return proj.scaled(count, _scale_note(count))


def measured_on(
    result: dict[str, Any], catalog: Catalog, measured_runs: Sequence[MeasuredRun]
) -> dict[str, MeasuredRun]:
    """Measurements per catalog GPU name: the newest of `measured_runs` on each GPU (they come
    newest first), and `result` itself, with its 95% interval, on the GPU it ran on."""
    on_gpu: dict[str, MeasuredRun] = {}
    for run in measured_runs:
        spec = catalog.gpu_for_device(run.device_name)
        if spec is not None:
            on_gpu.setdefault(spec.name, run)
    source = None if is_cpu(result) else catalog.gpu_for_device(device_label(result))
    if source is not None:
        tput = result["throughput_samples_per_s"]
        low_f, high_f = measured_spread(result)
        on_gpu[source.name] = MeasuredRun(
            result["run_id"], device_label(result), tput, tput * low_f, tput * high_f
        )
    return on_gpu


def throughput_on(
    result: dict[str, Any],
    catalog: Catalog,
    target: GpuSpec,
    instance: Instance | None,
    on_gpu: dict[str, MeasuredRun],
    basis: Basis,
) -> Projection | str:
    """One `target` GPU's throughput (measured there, `on_gpu` from `measured_on`, else
    projected from `result`), or why there is none."""
    if target.name in on_gpu:
        run = on_gpu[target.name]
        return measured(
            run.samples_per_s,
            f"measured on {target.name} (run {run.run_id})",
            (run.low, run.high),
        )
    if is_cpu(result):
        return "a CPU result cannot be scaled to a GPU by spec ratios"
    source = catalog.gpu_for_device(device_label(result))
    if source is None:
        return f"the measured GPU {device_label(result)} is not in the GPU catalog"
    proj = project_result(result, source, target, basis, memory_bytes(target, instance))
    return proj.basis if proj.status == "no_estimate" else proj


def _per_epoch(epoch_samples: int, samples_per_s: float | None) -> float | None:
    return cost.epoch_seconds(epoch_samples, samples_per_s) if samples_per_s else None


def _usd(seconds: float | None, usd_per_hour: float | None) -> float | None:
    if seconds is None or usd_per_hour is None:
        return None
    return cost.usd_for_seconds(seconds, usd_per_hour)


def _instance_row(
    result: dict[str, Any],
    catalog: Catalog,
    instance: Instance,
    proj: Projection,
    options: CompareOptions,
    local: breakeven.Speeds,
) -> CompareRow:
    n = result["epoch_samples"]
    epoch_s = _per_epoch(n, proj.samples_per_s)
    spot, price = instance.usd_per_hour_spot, instance.usd_per_hour
    spec = catalog.gpu_of(instance)
    kwh = None
    if epoch_s is not None and spec is not None and spec.tdp_w:
        kwh = cost.kwh_for_seconds(spec.tdp_w * instance.gpu_count, epoch_s)
    grid = catalog.grid_for(instance.cloud, instance.region)
    per_spot = run = run_spot = None
    if epoch_s is not None:
        run = cost.rented_usd_per_run(epoch_s, price, options.epochs, options.startup_minutes)
        if spot is not None:
            per_spot = cost.rented_usd_per_epoch(epoch_s, spot, options.rerun_fraction)
            run_spot = cost.rented_usd_per_run(
                epoch_s, spot, options.epochs, options.startup_minutes, options.rerun_fraction
            )
    fits_note = "" if proj.status != "does_not_fit" else f"does not fit: {proj.basis}"
    return CompareRow(
        instance_type=instance.instance_type,
        cloud=instance.cloud,
        gpu_model=instance.gpu_model,
        gpu_count=instance.gpu_count,
        status=proj.status,
        throughput_samples_per_s=proj.samples_per_s,
        throughput_low=proj.low,
        throughput_high=proj.high,
        epoch_seconds=epoch_s,
        usd_per_hour=price,
        usd_per_hour_spot=spot,
        usd_per_epoch=_usd(epoch_s, price),
        usd_per_epoch_low=_usd(_per_epoch(n, proj.high), price),
        usd_per_epoch_high=_usd(_per_epoch(n, proj.low), price),
        usd_per_epoch_spot=per_spot,
        usd_per_run=run,
        usd_per_run_spot=run_spot,
        kwh_per_epoch=kwh,
        co2_kg_per_epoch=cost.co2_kg(kwh, grid.ci_gco2e_per_kwh) if kwh and grid else None,
        **breakeven.row_fields(options, local, proj, price, spot),
        fits=proj.fits,
        memory_needed_bytes=proj.memory_needed_bytes,
        memory_available_bytes=proj.memory_available_bytes,
        region=instance.region,
        historical=instance.historical,
        price_source=instance.source,
        price_date=instance.price_date,
        price_age=stale_note(instance),
        basis=proj.basis,
        notes="; ".join(x for x in (fits_note, instance.notes) if x),
        range_level=proj.range_level,
    )


def _local_row(result: dict[str, Any], catalog: Catalog, options: CompareOptions) -> CompareRow:
    env = result.get("environment") or {}
    spec = None if is_cpu(result) else catalog.gpu_for_device(device_label(result))
    epoch_s = result.get("epoch_seconds") or _per_epoch(
        result["epoch_samples"], result["throughput_samples_per_s"]
    )
    owned, price = options.owned, result.get("price")
    notes = []
    if owned is not None:
        usd_per_hour: float | None = owned.usd_per_hour
        source = (
            f"owned: ${owned.purchase_usd:,.0f} over {owned.lifetime_years:g} years at "
            f"{owned.hours_per_day:g} h/day"
        )
        if owned.electricity_usd_per_hour is not None:
            source += f" + electricity ${owned.usd_per_kwh:g}/kWh"
        watts, date = owned.wall_power_w, ""
    else:
        usd_per_hour = price["usd_per_hour"] if price else None
        source = price.get("source", "") if price else "no price recorded"
        date = (price.get("as_of") or "") if price else ""
        watts, basis = device_power_w(result, spec)
        if options.local_power_w is not None:
            watts, basis = options.local_power_w, "given"
        if watts is not None:
            notes.append(f"power {watts:.0f} W, {basis}, device only")
    kwh = cost.kwh_for_seconds(watts, epoch_s) if watts is not None and epoch_s else None
    grid = options.local_g_co2e_per_kwh
    usd_per_epoch = _usd(epoch_s, usd_per_hour)
    throughput = result["throughput_samples_per_s"]
    low_f, high_f = measured_spread(result)
    n = result["epoch_samples"]
    return CompareRow(
        instance_type=env.get("hostname") or "measured machine",
        cloud="local",
        gpu_model=device_label(result),
        gpu_count=0.0 if is_cpu(result) else 1.0,
        status="measured",
        throughput_samples_per_s=throughput,
        throughput_low=throughput * low_f,
        throughput_high=throughput * high_f,
        epoch_seconds=epoch_s,
        usd_per_hour=usd_per_hour,
        usd_per_hour_spot=None,
        usd_per_epoch=usd_per_epoch,
        usd_per_epoch_low=_usd(_per_epoch(n, throughput * high_f), usd_per_hour),
        usd_per_epoch_high=_usd(_per_epoch(n, throughput * low_f), usd_per_hour),
        usd_per_epoch_spot=None,
        usd_per_run=None if usd_per_epoch is None else usd_per_epoch * options.epochs,
        usd_per_run_spot=None,
        kwh_per_epoch=kwh,
        co2_kg_per_epoch=cost.co2_kg(kwh, grid) if kwh is not None and grid is not None else None,
        break_even_days=None,
        fits=True,
        memory_needed_bytes=result.get("peak_memory_bytes"),
        memory_available_bytes=result.get("memory_total_bytes"),
        region=options.local_grid_label,
        local=True,
        price_source=source,
        price_date=date,
        basis=f"measured here (run {result['run_id']})",
        notes="; ".join(notes),
        range_level=0.95,
    )


def _sort_key(spot: bool):  # noqa: ANN202 - a key function
    def key(row: CompareRow) -> tuple[int, float, float]:
        usd = row.usd_per_epoch_spot if spot else row.usd_per_epoch
        return (usd is None, usd or 0.0, -(row.throughput_samples_per_s or 0.0))

    return key


def compare(
    result: dict[str, Any],
    catalog: Catalog,
    options: CompareOptions | None = None,
    measured_runs: Sequence[MeasuredRun] = (),
) -> Comparison:
    """Rows for the measured machine and every matching instance, cheapest epoch first."""
    options = options or CompareOptions()
    on_gpu = measured_on(result, catalog, measured_runs)
    source_spec = None if is_cpu(result) else catalog.gpu_for_device(device_label(result))
    rows, left_out = [_local_row(result, catalog, options)], []
    candidates = catalog.select(options.clouds, options.gpu, historical=None, full_only=False)
    local = breakeven.local_speeds(result)
    basis = Basis.of(catalog)
    for instance in candidates:
        why = _left_out(instance, options)
        proj = why or _throughput(result, catalog, instance, on_gpu, basis, options.scaling)
        if isinstance(proj, str):
            left_out.append((instance.label, proj))
            continue
        rows.append(_instance_row(result, catalog, instance, proj, options, local))
    if options.buy is not None:
        rows += buying.rows(
            result,
            catalog,
            options,
            lambda gpu: throughput_on(result, catalog, gpu, None, on_gpu, basis),
            rows,
            left_out,
        )
    rows.sort(key=_sort_key(options.spot))
    notes = _notes(result, source_spec, any(not r.local for r in rows))
    return Comparison(tuple(rows), _source_text(result, source_spec), notes, tuple(left_out))


def throughput_to_beat(
    catalog: Catalog,
    options: CompareOptions,
    epoch_samples: int,
    usd_per_epoch: float,
    count: int = 5,
) -> list[tuple[Instance, float]]:
    """For a result that cannot be projected (a CPU run): the `count` cheapest GPU instances by
    $/h among those the options select, each with the samples/s it would need for its epoch to
    cost less than `usd_per_epoch`."""
    candidates = [
        i
        for i in catalog.select(options.clouds, options.gpu)
        if i.gpu_count and (options.max_gpus is None or i.gpu_count <= options.max_gpus)
    ]
    cheapest = sorted(candidates, key=lambda i: i.usd_per_hour)[:count]
    return [
        (i, cost.throughput_to_match(epoch_samples, usd_per_epoch, i.usd_per_hour))
        for i in cheapest
    ]


def _left_out(instance: Instance, options: CompareOptions) -> str:
    if not instance.full_instance:
        return f"price is {instance.price_component} (not a whole machine)"
    if instance.historical and not options.historical:
        return "historical price (include with the historical option)"
    if options.max_gpus is not None and instance.gpu_count > options.max_gpus:
        return f"more than {options.max_gpus:g} GPU(s)"
    return ""


def _source_text(result: dict[str, Any], spec: GpuSpec | None) -> str:
    c = result["config"]
    where = device_label(result)
    if not is_cpu(result):
        where += f" (catalog: {spec.name})" if spec else " (not in the GPU catalog)"
    return (
        f"{c['model']} | {c['framework']} | {where} | batch {c['batch_size']} | {c['precision']} | "
        f"{result['throughput_samples_per_s']:,.1f} samples/s | epoch {result['epoch_samples']:,}"
    )


def _notes(result: dict[str, Any], spec: GpuSpec | None, cloud_rows: bool) -> tuple[str, ...]:
    notes = []
    verdict = imprecise(result)
    if verdict is not None:  # first: every row below rests on this run's figure
        notes.append(
            f"This run is {MARK}: {verdict.why}. Every cost here rests on it, so which machine "
            f"is cheapest is not known from it. To price it, {verdict.todo}."
        )
    if is_cpu(result):
        notes.append(
            "This result ran on a CPU. A CPU's speed cannot be scaled to a GPU (or to another "
            "CPU) by spec ratios, so an instance is shown only where a result of the same "
            "workload measured on its GPU is stored (epochcost results import FILE)."
        )
    elif spec is None:
        notes.append(
            f"{device_label(result)} is not in the GPU catalog: no estimates. Add its peak rates "
            "to your catalog's gpus.csv (with its device name in aliases)."
        )
    else:
        notes.append(
            "Estimated rows: from the measured ratio of published models of the same family "
            "where the published table holds both GPUs, else from spec ratios; the range is "
            "what those ratios spread over and their errors show. Assumes the GPU limits the "
            "run. Each row's basis says what it rests on. The model's "
            f"{family_of(result)[0].text()}."
        )
    if cloud_rows:
        notes.append(
            "kWh of cloud rows: GPU TDP x time (host and data-centre overhead not counted)."
        )
    return tuple(notes)
