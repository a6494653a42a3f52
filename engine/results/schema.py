"""What a stored result must hold: the checks a result passes before the store takes it (an
import, an export from another machine) and again when it is read back. The result's fields
themselves are built by engine/measure/result.py (its header) and engine/accuracy/result.py.

Every field that code reads is checked for its type here, so that a result that passes never
breaks `results show`, compare or the desktop app; fields it does not read may hold any JSON,
within the limits on size and nesting below, with finite numbers only and text that can be
written out (no lone surrogate such as "\\ud800"). What no measurement can produce is refused
too: a negative time, memory, power, energy or cost, a throughput below MIN_THROUGHPUT or an
epoch time or cost past what the slowest throughput gives (MAX_SECONDS, MAX_USD), an interval
that does not hold its figure. Every reader goes through validate(): a file (import, compare,
project, report) and every stored row (Store.get and Store.list, engine/results/store.py).
"""

from __future__ import annotations

import math
import re
from typing import Any

from engine.core.errors import ConfigError
from engine.measure.config import RunConfig
from engine.measure.result import SCHEMA, STATUSES
from engine.pricing.cost import MAX_USD_PER_HOUR
from engine.results.json_checks import (
    Bad,
    date,
    items,
    limits,
    number,
    obj,
    optional,
    pair,
    short,
    text,
    whole,
)

RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
# The slowest throughput a window can measure: one sample in the longest window a run allows
# (--max-seconds at most 7 days, engine/measure/config.py) is 1.65e-6 samples/s.
MIN_THROUGHPUT = 1e-6
MAX_EPOCH_SAMPLES = 10**13  # as RunConfig.epoch_samples allows
# No device trains a trillion samples a second (the largest clusters reach about 1e8 tokens).
MAX_THROUGHPUT = 1e12
MAX_BYTES = 2.0**64  # no memory a 64-bit machine can address is bigger
# A device's mean draw is priced as an owned machine's power (engine/pricing/cost.py
# OwnedHardware takes 0 to 1e6 W): one beyond it is refused here, naming the field.
MAX_POWER_W = 1e6
# The longest epoch a result can hold (the most samples at the slowest throughput), and its
# cost at the highest price: a time or cost past these (an epoch of 1e308 s, shown as "$inf
# per epoch") is no measurement.
MAX_SECONDS = MAX_EPOCH_SAMPLES / MIN_THROUGHPUT
MAX_USD = MAX_SECONDS * MAX_USD_PER_HOUR / 3600


NUMBER, POSITIVE, WHOLE, TEXT = number(), number(positive=True), whole(), text
OPT_NUMBER, OPT_TEXT, OPT_WHOLE = optional(NUMBER), optional(TEXT), optional(WHOLE)
# A size, an energy, a count: never below 0. A time, a cost: never below 0 nor past the bounds.
AMOUNT = number(minimum=0.0)
OPT_AMOUNT = optional(AMOUNT)
SECONDS, USD = number(minimum=0.0, maximum=MAX_SECONDS), number(minimum=0.0, maximum=MAX_USD)
OPT_SECONDS, OPT_USD = optional(SECONDS), optional(USD)

_PRICE = obj(
    {
        "usd_per_hour": number(minimum=0.0, maximum=MAX_USD_PER_HOUR),
        "source": TEXT,
        "as_of": date,
    },
    ("usd_per_hour", "source", "as_of"),
)
_STEP_TIMES = obj({k: OPT_SECONDS for k in ("median", "p10", "p90", "mean", "min", "max")})
_ENERGY = obj(
    {
        k: OPT_AMOUNT
        for k in ("energy_j", "mean_utilization_percent", "joules_per_sample", "kwh_per_epoch")
    }
    | {"mean_power_w": optional(number(minimum=0.0, maximum=MAX_POWER_W))}
)
_FLOPS = obj(
    {
        "per_step": OPT_AMOUNT,
        "per_sample": AMOUNT,
        "achieved_tflops": AMOUNT,
        "method": OPT_TEXT,
        "peak_tflops": OPT_AMOUNT,
        "mfu": OPT_AMOUNT,
        "peak_source": OPT_TEXT,
    },
    ("per_sample", "achieved_tflops"),
)
_POINT = obj(
    {
        "iteration": WHOLE,
        "accuracy": OPT_NUMBER,
        "seconds": SECONDS,
        "usd": OPT_USD,
        "epochs": OPT_AMOUNT,
    },
    ("iteration", "seconds"),
)
_ACCURACY = obj(
    {
        "point": optional(_POINT),
        "dataset": obj({"name": TEXT}, ("name",)),
        "stop_reason": TEXT,
        "curve": items(obj({"iteration": WHOLE, "accuracy": OPT_NUMBER}, ("iteration",))),
        "run": optional(obj({"seconds": OPT_SECONDS, "usd": OPT_USD})),
    },
    ("dataset", "stop_reason", "curve"),
)
# A data-parallel run (engine/measure/result.py distributed_record).
_DISTRIBUTED = obj(
    {
        "world_size": whole(1),
        "nnodes": whole(1),
        "nproc_per_node": whole(1),
        "backend": TEXT,
        "per_process_batch": whole(1),
        "global_batch": whole(1),
        "per_rank": items(
            obj({"rank": WHOLE, "samples_per_s": OPT_AMOUNT}, ("rank", "samples_per_s"))
        ),
    },
    ("world_size", "nnodes", "backend", "per_process_batch", "per_rank"),
)
_ENVIRONMENT = obj(
    {
        k: OPT_TEXT
        for k in ("device", "device_name", "cpu", "framework", "framework_version", "hostname")
    }
    | {"threads": OPT_WHOLE, "gpu_count": OPT_WHOLE, "cpu_count_logical": OPT_WHOLE}
)
_WORKLOAD = obj(
    {
        "name": OPT_TEXT,
        "task": OPT_TEXT,
        "epoch_unit": OPT_TEXT,
        "parameters": OPT_WHOLE,
        "input_shape": optional(items(WHOLE)),
        "model_file": optional(obj({"path": TEXT, "sha256": OPT_TEXT})),
    }
)

# Every result, whatever its status.
_ALWAYS = obj(
    {
        "schema": TEXT,
        "run_id": TEXT,
        "status": TEXT,
        "created_at": optional(date),
        "config": obj(
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
        "error": optional(obj({"kind": OPT_TEXT, "message": TEXT}, ("message",))),
        "price": optional(_PRICE),
        "workload": optional(_WORKLOAD),
        "warnings": optional(items(TEXT)),
        "epoch_samples": whole(0, MAX_EPOCH_SAMPLES),
        "group_id": OPT_TEXT,
        "kind": OPT_TEXT,
        "sweep": optional(obj({"group_id": TEXT, "role": TEXT, "trial": WHOLE})),
        "scaling": optional(obj({"group_id": TEXT, "nproc": whole(1)})),
        "energy": optional(_ENERGY),
        "accuracy": optional(_ACCURACY),
        "compile_seconds": OPT_SECONDS,
        "step_time_s": optional(_STEP_TIMES),
        "throughput_ci95": optional(pair(NUMBER, NUMBER)),
        "usd_per_epoch_ci95": optional(pair(NUMBER, OPT_NUMBER)),
        "interval_method": OPT_TEXT,
        "repeats": OPT_WHOLE,
        "other_cpu_fraction": optional(number(minimum=0.0, maximum=1.0)),
        # The share of the measured time spent waiting for data (None: synthetic batches).
        "input_wait_fraction": optional(number(minimum=0.0, maximum=1.0)),
        "distributed": optional(_DISTRIBUTED),
        "throughput_repeats": optional(items(POSITIVE)),
        "throughput_samples_per_s": optional(number(positive=True, maximum=MAX_THROUGHPUT)),
    }
    | {k: OPT_SECONDS for k in ("epoch_seconds", "window_seconds", "warmup_seconds")}
    | {"memory_fill": OPT_AMOUNT, "throughput_spread": OPT_AMOUNT, "usd_per_epoch": OPT_USD}
    | {
        k: optional(number(minimum=0.0, maximum=MAX_BYTES))
        for k in (
            "peak_memory_bytes",
            "memory_total_bytes",
            "warmup_peak_memory_bytes",
            "device_peak_used_bytes",
        )
    },
    ("schema", "run_id", "status", "config", "environment", "epoch_samples"),
)
# What `results show` and compare read of a result that measured something.
_MEASURED = obj(
    {
        "throughput_samples_per_s": POSITIVE,
        "epoch_samples": whole(1),
        "epoch_seconds": POSITIVE,
        "step_time_s": obj({k: NUMBER for k in ("median", "p10", "p90")}, ("median",)),
        "steps_measured": WHOLE,
        "stop_reason": TEXT,
        "flops": optional(_FLOPS),
        "memory_source": OPT_TEXT,
    },
    ("throughput_samples_per_s", "epoch_seconds", "step_time_s", "steps_measured"),
)


def validate(data: Any, where: str = "result") -> dict[str, Any]:
    """Check a result read from a file or the store; ConfigError saying what is wrong."""
    if not isinstance(data, dict):
        raise ConfigError(where, "is not a JSON object")
    if data.get("schema") != SCHEMA:
        raise ConfigError(where, f"schema is {short(data.get('schema'))}, expected {SCHEMA!r}")
    try:
        limits(data)
        _ALWAYS(data, "result")
        if data["status"] not in STATUSES:
            allowed = ", ".join(STATUSES)
            raise Bad("result.status", f"{short(data['status'])} is not one of {allowed}")
        if not RUN_ID.fullmatch(data["run_id"]):
            raise Bad(
                "result.run_id",
                f"{short(data['run_id'])} is not a run id (letters, digits, '.', '_' and '-', "
                "at most 128)",
            )
        if data["status"] == "ok":
            _MEASURED(data, "result")
        _slowest(data)
        _around("throughput_ci95", "throughput_samples_per_s", data)
        _around("usd_per_epoch_ci95", "usd_per_epoch", data)
    except Bad as bad:
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
        raise Bad(path, f"low end {short(low)} is not a number of 0 or more")
    if high is not None and (not math.isfinite(high) or not high > 0 or high < low):
        raise Bad(path, f"[{low:g}, {high:g}] is not a pair [low, high] in order, high above 0")
    if figure is None:
        return
    slack = 1e-9 * abs(figure)
    if figure < low - slack or (high is not None and figure > high + slack):
        shown = f"[{low:g}, {'null' if high is None else format(high, 'g')}]"
        raise Bad(
            path,
            f"{shown} does not hold the result's own {figure_key} {figure:g}: the file is "
            "inconsistent (edited or damaged); measure again or fix the figure",
        )


def _slowest(data: dict[str, Any]) -> None:
    """No window measures a throughput below MIN_THROUGHPUT; one that low would put an epoch
    past MAX_SECONDS and its cost past every bound."""
    throughput = data.get("throughput_samples_per_s")
    if throughput is not None and throughput < MIN_THROUGHPUT:
        raise Bad(
            "result.throughput_samples_per_s",
            f"is {throughput:g} samples/s, slower than any window can measure "
            f"({MIN_THROUGHPUT:g}: one sample in the longest window)",
        )
