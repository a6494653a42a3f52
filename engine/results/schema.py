"""What a stored result must hold: the checks a result passes before the store takes it (an
import, an export from another machine) and again when it is read back. The result's fields
themselves are built by engine/measure/result.py (its header) and engine/accuracy/result.py.

Every field that code reads is checked for its type here, so that a result that passes never
breaks `results show`, compare or the desktop app; fields it does not read may hold any JSON,
within the limits on size and nesting below, and with finite numbers only.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Callable
from typing import Any

from engine.core.errors import ConfigError
from engine.measure.config import RunConfig
from engine.measure.result import SCHEMA, STATUSES

RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
MAX_DEPTH = 32
MAX_NODES = 500_000
MAX_TEXT = 1_000_000  # characters in one string (a traceback, a model file's path)

Check = Callable[[Any, str], None]


class _Bad(Exception):
    def __init__(self, path: str, what: str) -> None:
        super().__init__(what)
        self.path, self.what = path, what


def _number(positive: bool = False, minimum: float | None = None) -> Check:
    def check(value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _Bad(path, "must be a number")
        if positive and not value > 0:
            raise _Bad(path, "must be more than 0")
        if minimum is not None and not value >= minimum:
            raise _Bad(path, f"must be at least {minimum:g}")

    return check


def _whole(low: int = 0) -> Check:
    def check(value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Bad(path, "must be a whole number")
        if value < low:
            raise _Bad(path, f"must be at least {low}")

    return check


def _text(value: Any, path: str) -> None:
    if not isinstance(value, str):
        raise _Bad(path, "must be text")


def _flag(value: Any, path: str) -> None:
    if not isinstance(value, bool):
        raise _Bad(path, "must be true or false")


def _date(value: Any, path: str) -> None:
    _text(value, path)
    try:
        _dt.date.fromisoformat(value) if len(value) == 10 else _dt.datetime.fromisoformat(value)
    except ValueError:
        raise _Bad(path, "must be a date (YYYY-MM-DD) or an ISO date and time") from None


def _optional(check: Check) -> Check:
    def optional(value: Any, path: str) -> None:
        if value is not None:
            check(value, path)

    return optional


def _items(check: Check) -> Check:
    def items(value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise _Bad(path, "must be a list")
        for i, item in enumerate(value):
            check(item, f"{path}[{i}]")

    return items


def _pair(first: Check, second: Check) -> Check:
    """[low, high]: a list of two."""

    def pair(value: Any, path: str) -> None:
        if not isinstance(value, list) or len(value) != 2:
            raise _Bad(path, "must be a list of two numbers [low, high]")
        first(value[0], f"{path}[0]")
        second(value[1], f"{path}[1]")

    return pair


def _object(spec: dict[str, Check], required: tuple[str, ...] = ()) -> Check:
    """A JSON object whose `spec` fields, where present, pass their checks."""

    def obj(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise _Bad(path, "must be an object")
        for key in required:
            if key not in value:
                raise _Bad(f"{path}.{key}", "is missing")
        for key, check in spec.items():
            if key in value:
                check(value[key], f"{path}.{key}")

    return obj


NUMBER, POSITIVE, WHOLE, TEXT = _number(), _number(positive=True), _whole(), _text
OPT_NUMBER, OPT_TEXT, OPT_WHOLE = _optional(NUMBER), _optional(TEXT), _optional(WHOLE)

_PRICE = _object(
    {"usd_per_hour": _number(minimum=0.0), "source": TEXT, "as_of": _date},
    ("usd_per_hour", "source", "as_of"),
)
_STEP_TIMES = _object({k: OPT_NUMBER for k in ("median", "p10", "p90", "mean", "min", "max")})
_FLOPS = _object(
    {
        "per_step": OPT_NUMBER,
        "per_sample": NUMBER,
        "achieved_tflops": NUMBER,
        "method": OPT_TEXT,
        "peak_tflops": OPT_NUMBER,
        "mfu": OPT_NUMBER,
        "peak_source": OPT_TEXT,
    },
    ("per_sample", "achieved_tflops"),
)
_POINT = _object(
    {
        "iteration": WHOLE,
        "accuracy": OPT_NUMBER,
        "seconds": NUMBER,
        "usd": OPT_NUMBER,
        "epochs": OPT_NUMBER,
    },
    ("iteration", "seconds"),
)
_ACCURACY = _object(
    {
        "point": _optional(_POINT),
        "dataset": _object({"name": TEXT}, ("name",)),
        "stop_reason": TEXT,
        "curve": _items(_object({"iteration": WHOLE, "accuracy": OPT_NUMBER}, ("iteration",))),
        "run": _optional(_object({"seconds": OPT_NUMBER, "usd": OPT_NUMBER})),
    },
    ("dataset", "stop_reason", "curve"),
)
# A data-parallel run (engine/measure/result.py distributed_record).
_DISTRIBUTED = _object(
    {
        "world_size": _whole(1),
        "nnodes": _whole(1),
        "nproc_per_node": _whole(1),
        "backend": TEXT,
        "per_process_batch": _whole(1),
        "global_batch": _whole(1),
        "per_rank": _items(
            _object({"rank": WHOLE, "samples_per_s": OPT_NUMBER}, ("rank", "samples_per_s"))
        ),
    },
    ("world_size", "nnodes", "backend", "per_process_batch", "per_rank"),
)
_ENVIRONMENT = _object(
    {
        k: OPT_TEXT
        for k in ("device", "device_name", "cpu", "framework", "framework_version", "hostname")
    }
    | {"threads": OPT_WHOLE, "gpu_count": OPT_WHOLE, "cpu_count_logical": OPT_WHOLE}
)
_WORKLOAD = _object(
    {
        "name": OPT_TEXT,
        "task": OPT_TEXT,
        "epoch_unit": OPT_TEXT,
        "parameters": OPT_WHOLE,
        "input_shape": _optional(_items(WHOLE)),
        "model_file": _optional(_object({"path": TEXT, "sha256": OPT_TEXT})),
    }
)

# Every result, whatever its status.
_ALWAYS = _object(
    {
        "schema": TEXT,
        "run_id": TEXT,
        "status": TEXT,
        "created_at": _optional(_date),
        "config": _object(
            {
                "model": TEXT,
                "framework": TEXT,
                "batch_size": WHOLE,
                "device": TEXT,
                "precision": TEXT,
            },
            ("model", "framework", "batch_size", "device", "precision"),
        ),
        "environment": _ENVIRONMENT,
        "error": _optional(_object({"kind": OPT_TEXT, "message": TEXT}, ("message",))),
        "price": _optional(_PRICE),
        "workload": _optional(_WORKLOAD),
        "warnings": _optional(_items(TEXT)),
        "epoch_samples": WHOLE,
        "group_id": OPT_TEXT,
        "kind": OPT_TEXT,
        "sweep": _optional(_object({"group_id": TEXT, "role": TEXT, "trial": WHOLE})),
        "scaling": _optional(_object({"group_id": TEXT, "nproc": _whole(1)})),
        "energy": _optional(_object({})),
        "accuracy": _optional(_ACCURACY),
        "compile_seconds": OPT_NUMBER,
        "step_time_s": _optional(_STEP_TIMES),
        "throughput_ci95": _optional(_pair(NUMBER, NUMBER)),
        "usd_per_epoch_ci95": _optional(_pair(NUMBER, OPT_NUMBER)),
        "interval_method": OPT_TEXT,
        "repeats": OPT_WHOLE,
        "other_cpu_fraction": OPT_NUMBER,
        "distributed": _optional(_DISTRIBUTED),
    }
    | {
        k: OPT_NUMBER
        for k in (
            "throughput_samples_per_s",
            "epoch_seconds",
            "peak_memory_bytes",
            "memory_total_bytes",
            "memory_fill",
            "usd_per_epoch",
        )
    },
    ("schema", "run_id", "status", "config", "environment", "epoch_samples"),
)
# What `results show` and compare read of a result that measured something.
_MEASURED = _object(
    {
        "throughput_samples_per_s": POSITIVE,
        "epoch_samples": _whole(1),
        "epoch_seconds": POSITIVE,
        "step_time_s": _object({k: NUMBER for k in ("median", "p10", "p90")}, ("median",)),
        "steps_measured": WHOLE,
        "stop_reason": TEXT,
        "flops": _optional(_FLOPS),
        "memory_source": OPT_TEXT,
    },
    ("throughput_samples_per_s", "epoch_seconds", "step_time_s", "steps_measured"),
)


def validate(data: Any, where: str = "result") -> dict[str, Any]:
    """Check a result read from a file or the store; ConfigError saying what is wrong."""
    if not isinstance(data, dict):
        raise ConfigError(where, "is not a JSON object")
    if data.get("schema") != SCHEMA:
        raise ConfigError(where, f"schema is {_short(data.get('schema'))}, expected {SCHEMA!r}")
    try:
        _limits(data)
        _ALWAYS(data, "result")
        if data["status"] not in STATUSES:
            allowed = ", ".join(STATUSES)
            raise _Bad("result.status", f"{_short(data['status'])} is not one of {allowed}")
        if not RUN_ID.fullmatch(data["run_id"]):
            raise _Bad(
                "result.run_id",
                f"{_short(data['run_id'])} is not a run id (letters, digits, '.', '_' and '-', "
                "at most 128)",
            )
        if data["status"] == "ok":
            _MEASURED(data, "result")
        _around("throughput_ci95", "throughput_samples_per_s", data)
        _around("usd_per_epoch_ci95", "usd_per_epoch", data)
    except _Bad as bad:
        field = bad.path.removeprefix("result.")
        raise ConfigError(where, f"field {field!r} {bad.what}") from None
    try:
        # The model file of a result from elsewhere need not exist here.
        RunConfig.from_dict(data["config"], check_files=False)
    except (ConfigError, TypeError) as exc:
        raise ConfigError(where, f"config: {exc}") from None
    return data


def _around(interval_key: str, figure_key: str, data: dict[str, Any]) -> None:
    """A stored 95% interval must be [low, high] of finite numbers, low <= high, not below 0,
    and hold its own figure: an estimate scaled from a figure outside its own interval lies
    outside its range too. A cost interval's high may be null (the throughput's low reached
    0); a throughput's low may be 0 (its interval reaches down to zero, as the worker writes
    it when the noise is wider than the figure)."""
    interval, figure = data.get(interval_key), data.get(figure_key)
    if interval is None:
        return
    low, high = interval
    path = f"result.{interval_key}"
    if low is None or not math.isfinite(low) or low < 0:
        raise _Bad(path, f"low end {_short(low)} is not a number of 0 or more")
    if high is not None and (not math.isfinite(high) or not high > 0 or high < low):
        raise _Bad(path, f"[{low:g}, {high:g}] is not a pair [low, high] in order, high above 0")
    if figure is None:
        return
    slack = 1e-9 * abs(figure)
    if figure < low - slack or (high is not None and figure > high + slack):
        shown = f"[{low:g}, {'null' if high is None else format(high, 'g')}]"
        raise _Bad(
            path,
            f"{shown} does not hold the result's own {figure_key} {figure:g}: the file is "
            "inconsistent (edited or damaged); measure again or fix the figure",
        )


def _limits(data: Any) -> None:
    """Nesting depth, size, finite numbers: over the whole result, read or not."""
    stack: list[tuple[Any, int, str]] = [(data, 0, "result")]
    nodes = 0
    while stack:
        value, depth, path = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise _Bad("result", f"has more than {MAX_NODES:,} values; no result is that big")
        if depth > MAX_DEPTH:
            raise _Bad(path, f"is nested more than {MAX_DEPTH} deep")
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise _Bad(path, "has a key that is not text")
                stack.append((item, depth + 1, f"{path}.{key}"))
        elif isinstance(value, list):
            stack.extend((item, depth + 1, f"{path}[{i}]") for i, item in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            raise _Bad(path, "is not a finite number")
        elif isinstance(value, str) and len(value) > MAX_TEXT:
            raise _Bad(path, f"is longer than {MAX_TEXT:,} characters")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
