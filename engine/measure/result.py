"""The result object (schema epochcost.result/1): its header, shared by both programs.

The worker builds a measured result (engine/worker/measure/result.py) on this header; the
parent builds the result of a run that failed before it measured (failed_result) and checks
results it reads (engine/results/schema.py).

A result is a plain JSON-able dict so that it crosses processes and machines unchanged. It keeps
the price used with its source and date: a stored result never changes when a catalog does.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from engine.core.events import Failed, json_safe
from engine.core.stats import summary
from engine.measure.config import RunConfig, TrainingConfig
from engine.workloads import model_file_source

SCHEMA = "epochcost.result/1"
STATUSES = ("ok", "oom", "failed", "cancelled", "preempted")
FAILED_STATUSES = tuple(s for s in STATUSES if s != "ok")  # a result without a measurement
# The `kind` of a training-to-accuracy result (a timed run's result has none).
ACCURACY_KIND = "accuracy"


def now() -> str:
    """A result's creation time: UTC, to the second, ISO 8601."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def price_of(config: TrainingConfig) -> dict[str, Any] | None:
    """The price a result was costed at, with its source and date (today when not given)."""
    price = config.price
    return price.dated().to_dict() if price else None


def header(
    run_id: str,
    config: TrainingConfig,
    environment: dict[str, Any],
    status: str = "ok",
    error: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The fields every result starts with, timed or to an accuracy, measured or failed."""
    return {
        "schema": SCHEMA,
        "run_id": run_id,
        "created_at": now(),
        "status": status,
        "error": error,
        "config": config.to_dict(),
        "environment": environment,
        "price": price_of(config),
    }


def failure_header(
    event: Failed, config: TrainingConfig, environment: dict[str, Any]
) -> dict[str, Any]:
    """The header of a run that ended without a measurement (an OOM point is data)."""
    status = {"oom": "oom", "cancelled": "cancelled", "preempted": "preempted"}.get(
        event.kind, "failed"
    )
    error = {"kind": event.kind, "message": event.message, "batch_size": event.batch_size}
    return {
        **header(event.run_id, config, environment, status, error),
        "throughput_samples_per_s": None,
        "step_time_s": summary([]),
        "epoch_seconds": None,
        "peak_memory_bytes": None,
        "memory_total_bytes": None,
        "memory_fill": None,
        "usd_per_epoch": None,
    }


def _failed_workload(config: RunConfig) -> dict[str, Any]:
    if config.model_file is None:
        return {}
    return {
        "workload": {
            "name": config.model,
            "model_file": model_file_source.record(config.model_file),
        }
    }


def failed_result(event: Failed, config: RunConfig, environment: dict[str, Any]) -> dict[str, Any]:
    """A stored result for a run that ended without a measurement (an OOM point is data)."""
    return json_safe(
        {
            **failure_header(event, config, environment),
            **_failed_workload(config),
            "epoch_samples": config.resolved_epoch_samples,
        }
    )
