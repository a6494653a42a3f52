"""A measured training-to-accuracy result, built in the worker: the timed-run fields (on the
shared header of engine/measure/result.py) and the `accuracy` section described in
engine/accuracy/result.py.
"""

from __future__ import annotations

from typing import Any

from engine.core.events import json_safe
from engine.core.stats import summary
from engine.measure.accuracy_config import AccuracyConfig
from engine.measure.result import ACCURACY_KIND, header
from engine.pricing import cost
from engine.worker.accuracy.loop import LoopOutcome
from engine.worker.measure.monitor import MonitorSummary, summary_dict
from engine.worker.measure.result import memory_record, workload_record
from engine.workloads.data import DataInfo
from engine.workloads.registry import Workload


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
        "kind": ACCURACY_KIND,
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
        **memory_record(monitor, device_memory),
        "energy": summary_dict(monitor),
        "usd_per_epoch": cost.usd_per_epoch(epoch_s, price.usd_per_hour)
        if price and epoch_s
        else None,
        "warnings": warnings,
        "accuracy": accuracy_section(config, info, outcome, setup_seconds),
    }
    return json_safe(result)
