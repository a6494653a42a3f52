"""Results to price in tests: built as a worker would record them on hardware not here.

There is no GPU on the test machine, so a GPU result is written out field by field (as an
imported result file from another machine would be) and checked by the real result validator.
"""

from __future__ import annotations

from typing import Any

from engine.measure.config import RunConfig
from engine.measure.result import SCHEMA
from engine.results.schema import validate


def result(
    *,
    run_id: str = "20250101T000000-gpu00001",
    device: str = "cuda:0",
    device_name: str | None = "NVIDIA GeForce GTX 1080 Ti",
    samples_per_s: float = 1000.0,
    precision: str = "fp32",
    batch_size: int = 64,
    peak_memory_bytes: int | None = 3 * 2**30,
    mean_power_w: float | None = 220.0,
    usd_per_hour: float | None = None,
    model: str = "resnet50-cifar",
    hostname: str = "homebox",
) -> dict[str, Any]:
    config = RunConfig(model=model, batch_size=batch_size, precision=precision, device=device)
    epoch_samples = config.resolved_epoch_samples
    environment: dict[str, Any] = {"hostname": hostname, "device": device, "cpu": "Some CPU"}
    if device_name:
        environment["device_name"] = device_name
    price = None
    if usd_per_hour is not None:
        price = {"usd_per_hour": usd_per_hour, "source": "user", "as_of": "2025-01-01"}
    data = {
        "schema": SCHEMA,
        "run_id": run_id,
        "created_at": "2025-01-01T00:00:00+00:00",
        "status": "ok",
        "error": None,
        "config": config.to_dict(),
        "environment": environment,
        "throughput_samples_per_s": samples_per_s,
        "window_seconds": 10.0,
        "step_time_s": {"median": 0.1, "p10": 0.09, "p90": 0.11},
        "steps_measured": 20,
        "stop_reason": "stable",
        "epoch_samples": epoch_samples,
        "epoch_seconds": epoch_samples / samples_per_s,
        "peak_memory_bytes": peak_memory_bytes,
        "memory_total_bytes": 11 * 2**30,
        "memory_fill": None,
        "energy": {"energy_j": None, "energy_method": None, "mean_power_w": mean_power_w},
        "price": price,
        "usd_per_epoch": None,
    }
    return validate(data)
