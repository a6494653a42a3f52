"""What a stored result must hold: the checks a result read from a file (an import, an export
from another machine) passes before the store takes it. The result's fields themselves are
built by engine/measure/result.py (its header) and engine/accuracy/result.py."""

from __future__ import annotations

from typing import Any

from engine.core.errors import ConfigError
from engine.measure.config import RunConfig
from engine.measure.result import SCHEMA, STATUSES

_REQUIRED = {
    "schema": str,
    "run_id": str,
    "status": str,
    "config": dict,
    "environment": dict,
    "epoch_samples": int,
}
_NUMBERS = (
    "throughput_samples_per_s",
    "epoch_seconds",
    "peak_memory_bytes",
    "memory_total_bytes",
    "memory_fill",
    "usd_per_epoch",
)


def validate(data: Any, where: str = "result") -> dict[str, Any]:
    """Check a result read from a file; ConfigError saying what is wrong otherwise."""
    if not isinstance(data, dict):
        raise ConfigError(where, "is not a JSON object")
    if data.get("schema") != SCHEMA:
        raise ConfigError(where, f"schema is {data.get('schema')!r}, expected {SCHEMA!r}")
    for key, kind in _REQUIRED.items():
        if not isinstance(data.get(key), kind):
            raise ConfigError(where, f"field {key!r} is missing or not a {kind.__name__}")
    if data["status"] not in STATUSES:
        raise ConfigError(where, f"status {data['status']!r} is not one of {', '.join(STATUSES)}")
    for key in _NUMBERS:
        value = data.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ConfigError(where, f"field {key!r} must be a number or null")
    if data["status"] == "ok" and not data.get("throughput_samples_per_s"):
        raise ConfigError(where, "an ok result needs throughput_samples_per_s")
    price = data.get("price")
    if price is not None and not (
        isinstance(price, dict) and isinstance(price.get("usd_per_hour"), int | float)
    ):
        raise ConfigError(where, "price must be null or have a numeric usd_per_hour")
    try:
        # The model file of a result from elsewhere need not exist here.
        RunConfig.from_dict(data["config"], check_files=False)
    except ConfigError as exc:
        raise ConfigError(where, f"config: {exc}") from None
    return data
