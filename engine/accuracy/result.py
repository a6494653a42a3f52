"""The result of one training-to-accuracy run: an epochcost.result/1 with kind "accuracy".

It is a timed-run result too (throughput on the real data set, pipeline included, memory,
price), so `results list/show/export/import` and the comparison treat it like any other; the
`accuracy` section holds what is particular to it:

    accuracy.dataset   {name, source, train_samples, test_samples, eval_samples,
                        input_shape, classes}
    accuracy.rule      {mode: "target"|"stable", target_accuracy, band, patience,
                        eval_every, include_eval_time, max_iterations, max_seconds}
    accuracy.reached   true when the target was met or accuracy settled
    accuracy.stop_reason  target | stable | max_iterations | max_seconds
    accuracy.point     null when not reached, else {iteration, accuracy, epochs,
                        train_seconds, eval_seconds, seconds, usd}: seconds is training time
                        to the point (plus evaluation time when include_eval_time); usd is
                        seconds at the run's price (null without a price)
    accuracy.run       the whole run, confirmation included: {iterations, epochs,
                        train_seconds, eval_seconds, setup_seconds, seconds, usd}; seconds =
                        setup + training + evaluation, what the machine was busy for
    accuracy.curve     [{iteration, accuracy, loss, train_loss, train_seconds, eval_seconds,
                        elapsed_s}], loss the held-out mean cross-entropy
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.accuracy.config import AccuracyConfig
from engine.core.errors import ConfigError
from engine.core.events import Failed, json_safe
from engine.core.stats import summary
from engine.measure.monitor import MonitorSummary, summary_dict
from engine.measure.result import failure_header, header, workload_record
from engine.pricing import cost
from engine.workloads.data import DataInfo, describe
from engine.workloads.registry import Workload

if TYPE_CHECKING:  # the loop runs in the worker; a result only reads what it measured
    from engine.accuracy.loop import LoopOutcome

KIND = "accuracy"


def _usd(seconds: float, config: AccuracyConfig) -> float | None:
    return (
        None if config.usd_per_hour is None else cost.usd_for_seconds(seconds, config.usd_per_hour)
    )


def _rule(config: AccuracyConfig) -> dict[str, Any]:
    return {
        "mode": "stable" if config.until_stable else "target",
        "target_accuracy": config.target_accuracy,
        "band": config.band,
        "patience": config.patience,
        "eval_every": config.eval_every,
        "include_eval_time": config.include_eval_time,
        "max_iterations": config.max_iterations,
        "max_seconds": config.max_seconds,
    }


def _dataset(info: DataInfo, config: AccuracyConfig) -> dict[str, Any]:
    return {
        "name": info.name,
        "source": info.source,
        "train_samples": info.train_samples,
        "test_samples": info.test_samples,
        "eval_samples": min(config.eval_samples or info.test_samples, info.test_samples),
        "input_shape": list(info.input_shape),
        "classes": info.classes,
    }


def _memory(monitor: MonitorSummary, device_memory: dict[str, Any] | None) -> dict[str, Any]:
    """Peak memory of the worker on its device (CPU: peak RSS) against the device's total."""
    if device_memory is None:
        peak, total, source = monitor.peak_process_memory_bytes, monitor.memory_total_bytes, "rss"
    else:
        peak, total = device_memory["peak_bytes"], device_memory["total_bytes"]
        source = device_memory["source"]
        if monitor.peak_process_memory_bytes and monitor.peak_process_memory_bytes > peak:
            peak, source = monitor.peak_process_memory_bytes, "nvml per-process"
    return {
        "peak_memory_bytes": peak,
        "memory_total_bytes": total,
        "memory_fill": peak / total if peak and total else None,
        "memory_source": source,
    }


def accuracy_section(
    config: AccuracyConfig, info: DataInfo, outcome: LoopOutcome, setup_seconds: float
) -> dict[str, Any]:
    per_epoch = config.batch_size / info.train_samples
    point = outcome.point
    final = outcome.curve[-1]
    point_dict = None
    if point is not None:
        seconds = point.seconds(config.include_eval_time)
        point_dict = {
            "iteration": point.iteration,
            "accuracy": point.accuracy,
            "epochs": point.iteration * per_epoch,
            "train_seconds": point.train_seconds,
            "eval_seconds": point.eval_seconds,
            "seconds": seconds,
            "usd": _usd(seconds, config),
        }
    run_seconds = setup_seconds + final.train_seconds + final.eval_seconds
    return {
        "dataset": _dataset(info, config),
        "rule": _rule(config),
        "reached": point is not None,
        "stop_reason": outcome.stop_reason,
        "point": point_dict,
        "run": {
            "iterations": final.iteration,
            "epochs": final.iteration * per_epoch,
            "train_seconds": final.train_seconds,
            "eval_seconds": final.eval_seconds,
            "setup_seconds": setup_seconds,
            "seconds": run_seconds,
            "usd": _usd(run_seconds, config),
        },
        "curve": [p.to_dict() for p in outcome.curve],
    }


def build_result(
    *,
    run_id: str,
    config: AccuracyConfig,
    workload: Workload,
    info: DataInfo,
    environment: dict[str, Any],
    parameters: int,
    outcome: LoopOutcome,
    setup_seconds: float,
    monitor: MonitorSummary,
    device_memory: dict[str, Any] | None,
    warnings: list[str],
) -> dict[str, Any]:
    final = outcome.curve[-1]
    samples = final.iteration * config.batch_size
    throughput = samples / final.train_seconds if samples and final.train_seconds > 0 else None
    epoch_s = cost.epoch_seconds(info.train_samples, throughput) if throughput else None
    price = config.price
    result: dict[str, Any] = {
        **header(run_id, config, environment),
        "kind": KIND,
        "workload": workload_record(workload, parameters),
        # Training throughput on the real data, input pipeline included, evaluation excluded.
        "throughput_samples_per_s": throughput,
        "step_time_s": summary(outcome.interval_step_times_s),  # mean step per interval
        "steps_measured": final.iteration,
        # The span the energy figures cover (as in a timed run): training and evaluation.
        "window_seconds": final.train_seconds + final.eval_seconds,
        "stop_reason": outcome.stop_reason,
        "final_loss": final.train_loss,
        "epoch_samples": info.train_samples,
        "epoch_seconds": epoch_s,
        **_memory(monitor, device_memory),
        "energy": summary_dict(monitor),
        "usd_per_epoch": cost.usd_per_epoch(epoch_s, price.usd_per_hour)
        if price and epoch_s
        else None,
        "warnings": warnings,
        "accuracy": accuracy_section(config, info, outcome, setup_seconds),
    }
    return json_safe(result)


def failed_result(
    event: Failed, config: AccuracyConfig, environment: dict[str, Any]
) -> dict[str, Any]:
    """A stored result for a run that ended without a curve (an OOM point is data)."""
    try:
        train_samples = describe(config.dataset).train_samples
    except ConfigError:
        train_samples = 0
    return json_safe(
        {
            **failure_header(event, config, environment),
            "kind": KIND,
            "epoch_samples": train_samples,
            "accuracy": None,
        }
    )


def is_accuracy_result(result: dict[str, Any]) -> bool:
    return result.get("kind") == KIND
