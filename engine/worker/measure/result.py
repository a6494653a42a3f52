"""A measured result, built in the worker from what the loop measured (schema
epochcost.result/1, on the shared header of engine/measure/result.py).

A result is a plain JSON-able dict so that it crosses processes and machines unchanged. It keeps
the price used with its source and date: a stored result never changes when a catalog does.
"""

from __future__ import annotations

import statistics
from typing import Any

from engine.core.events import json_safe
from engine.core.interval import Steps, cost_interval, repeat_warning, throughput_interval
from engine.core.precision_target import judge
from engine.core.stats import summary
from engine.measure import busy, utilisation
from engine.measure.config import RunConfig
from engine.measure.result import header
from engine.pricing import cost
from engine.worker.measure import input_wait
from engine.worker.measure.loop import Measurement
from engine.worker.measure.monitor import MonitorSummary, summary_dict
from engine.worker.workloads.file_workload import FileWorkload
from engine.workloads import model_file_source
from engine.workloads.family import Family, decide
from engine.workloads.registry import Workload


def memory_record(monitor: MonitorSummary, device_memory: dict[str, Any] | None) -> dict[str, Any]:
    """Peak memory of this process on its device (CPU: peak resident set) against the device's
    total: a timed run's and an accuracy run's."""
    if device_memory is None:  # CPU: peak resident set against RAM
        peak, total, source = monitor.peak_process_memory_bytes, monitor.memory_total_bytes, "rss"
    else:
        peak, total, source = (
            device_memory["peak_bytes"],
            device_memory["total_bytes"],
            device_memory["source"],
        )
        # NVML's per-process figure includes the CUDA context the framework cannot see.
        if monitor.peak_process_memory_bytes and monitor.peak_process_memory_bytes > peak:
            peak, source = monitor.peak_process_memory_bytes, "nvml per-process"
    fill = peak / total if peak and total else None
    return {
        "peak_memory_bytes": peak,
        "memory_total_bytes": total,
        "memory_fill": fill,
        "memory_source": source,
        "device_peak_used_bytes": monitor.peak_device_used_bytes,
    }


def _flops(
    per_step: float | None,
    config: RunConfig,
    throughput: float,
    environment: dict[str, Any],
    method: str | None = None,
    devices: int = 1,
    family: str = "",
) -> dict[str, Any] | None:
    """FLOPs per step and per sample, the FLOP rate the measured throughput achieves, and MFU
    against the device's peak for the precision (engine/measure/utilisation.py). A
    data-parallel run's `devices` share the throughput: MFU is one device's share against its
    peak (per_step is one process's step)."""
    if not per_step:
        return None
    per_sample = per_step / config.batch_size
    achieved = per_sample * throughput / 1e12
    flops = {
        "per_step": per_step,
        "per_sample": per_sample,
        "achieved_tflops": achieved / devices,
        "method": method or "counted forward + backward",
    }
    flops = utilisation.with_mfu(flops, environment, config.precision, family=family) or flops
    if devices > 1:
        flops["achieved_tflops_per_device"] = flops["achieved_tflops"]
        flops["achieved_tflops"] = achieved
    return flops


def distributed_record(config: RunConfig, measurement: Measurement) -> dict[str, Any] | None:
    """What a data-parallel result says of its processes: how many, their backend, the batch
    each trained, and each rank's own throughput (its samples over its own window, the median
    over the windows)."""
    group = measurement.group
    if group is None:
        return None
    per_rank: list[list[float]] = [[] for _ in range(group.world_size)]
    for window in measurement.windows:
        own = window.samples / group.world_size
        for rank, seconds in enumerate(window.rank_seconds or []):
            per_rank[rank].append(own / seconds)
    return {
        "world_size": group.world_size,
        "nnodes": group.nnodes,
        "nproc_per_node": config.nproc,
        "backend": group.backend,
        "per_process_batch": config.batch_size,
        "global_batch": config.batch_size * group.world_size,
        "per_rank": [
            {"rank": rank, "samples_per_s": statistics.median(rates) if rates else None}
            for rank, rates in enumerate(per_rank)
        ],
        "monitored": "this node's first device (memory, power, energy per sample)",
    }


def build_result(
    *,
    run_id: str,
    config: RunConfig,
    workload: Workload,
    environment: dict[str, Any],
    parameters: int,
    measurement: Measurement,
    monitor: MonitorSummary,
    device_memory: dict[str, Any] | None,
    device_state: dict[str, Any],
    flops_per_step: float | None = None,
    flops_method: str | None = None,
    data: dict[str, Any] | None = None,
    composition: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The stored result. `data`: what the input pipeline read (its `samples` are an epoch's
    unless --epoch-samples says otherwise); None for synthetic batches."""
    windows = measurement.windows
    throughputs = [w.throughput_samples_per_s for w in windows]
    throughput = statistics.median(throughputs)
    step_times = [t for w in windows for t in w.step_times_s]
    epoch_samples = config.epoch_samples or (data or {}).get("samples") or workload.epoch_samples
    waits = input_wait.record(windows)
    bound = input_wait.warning(waits["input_wait_fraction"])
    epoch_s = cost.epoch_seconds(epoch_samples, throughput)
    price = config.price
    usd = cost.usd_per_epoch(epoch_s, price.usd_per_hour) if price else None
    # On a CPU the share other processes took is time this run lost and another may not: the
    # interval widens for it (engine/core/interval.py); a GPU's figure does not move with it.
    on_cpu = environment.get("device") == "cpu"
    contention = monitor.other_cpu_fraction if on_cpu else None
    threads = environment.get("threads") or 1
    ci = throughput_interval(throughput, throughputs, step_times, contention, threads)
    repeat = repeat_warning(ci)
    target = config.target_precision_pct
    goal = (
        None
        if target is None
        else judge(
            target / 100,
            ci,
            throughputs,
            Steps.of(step_times),
            measurement.measuring_seconds or sum(w.seconds for w in windows),
            contention=contention,
            threads=threads,
            min_windows=config.repeats,
        ).record(config.max_seconds)
    )
    window_seconds = sum(w.seconds for w in windows)
    window_samples = sum(w.samples for w in windows)
    energy = summary_dict(monitor)
    world = measurement.group.world_size if measurement.group else 1
    if monitor.energy_j is not None and window_samples:  # one device, over its own samples
        energy["joules_per_sample"] = monitor.energy_j * world / window_samples
        energy["kwh_per_epoch"] = energy["joules_per_sample"] * epoch_samples / 3.6e6
    result: dict[str, Any] = {
        **header(run_id, config, environment),
        "workload": workload_record(workload, parameters, composition),
        "throughput_samples_per_s": throughput,
        "throughput_ci95": ci.to_list(),
        "interval_method": ci.method,
        "repeats": len(windows),
        "throughput_repeats": throughputs,
        "throughput_spread": (max(throughputs) - min(throughputs)) / throughput,
        "step_time_s": summary(step_times),
        "steps_measured": sum(w.steps for w in windows),
        "window_seconds": window_seconds,
        "stop_reason": windows[-1].stop_reason,
        "target_precision": goal,  # engine/core/precision_target.py; None: no target
        "warmup_steps": len(measurement.warmup_step_times_s),
        "warmup_seconds": measurement.warmup_seconds,
        "warmup_peak_memory_bytes": measurement.warmup_peak_memory_bytes,
        "compile_seconds": measurement.compile_seconds,
        "final_loss": measurement.loss,
        "epoch_samples": epoch_samples,
        "epoch_seconds": epoch_s,
        **memory_record(monitor, device_memory),
        "energy": energy,
        "device_state": device_state,
        "usd_per_epoch": usd,
        "usd_per_epoch_ci95": cost_interval(usd, ci) if usd is not None else None,
        "flops": _flops(
            flops_per_step,
            config,
            throughput,
            environment,
            flops_method,
            world,
            family_of(workload, composition).name,
        ),
        "other_cpu_fraction": monitor.other_cpu_fraction,
        "data": data or {"kind": "synthetic"},
        **waits,
        "warnings": measurement.warnings
        + ([bound] if bound else [])
        + ([repeat] if repeat else [])
        + busy.warnings(monitor.other_cpu_fraction, device_state),
    }
    spread = distributed_record(config, measurement)
    if spread is not None:
        result["distributed"] = spread
    return json_safe(result)


def family_of(workload: Workload, composition: dict[str, Any] | None) -> Family:
    """The model's family (engine/workloads/family.py): a file's stated FAMILY, else what the
    model is made of, else a built-in's own; for whether TF32 ran, in the run's MFU."""
    if isinstance(workload, FileWorkload):
        return decide(workload.family, composition)
    return decide("", composition, (workload.name, workload.family))


def workload_record(
    workload: Workload, parameters: int | None, composition: dict[str, Any] | None = None
) -> dict[str, Any]:
    """What a result says of its workload: what the model is made of (`composition`, its FLOPs'
    or parameters' shares by kind of layer: engine/workloads/family.py), and for a model file
    also the file's path and content hash, so two results of the same code are known to match,
    and the FAMILY it states."""
    record: dict[str, Any] = {
        "name": workload.name,
        "task": workload.task,
        "input_shape": list(workload.input_shape),
        "num_classes": workload.num_classes,
        "epoch_unit": workload.epoch_unit,
        "parameters": parameters,
    }
    if composition:
        record["composition"] = composition
    if isinstance(workload, FileWorkload):
        record["model_file"] = model_file_source.record(workload.path, workload.sha256)
        if workload.family:
            record["family_stated"] = workload.family
    return record
