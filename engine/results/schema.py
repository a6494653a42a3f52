"""What a stored result must hold: the checks a result passes before the store takes it (an
import, an export from another machine) and again when it is read back. The result's fields
themselves are built by engine/measure/result.py (its header) and engine/accuracy/result.py.

Every field that code reads is checked for its type here, so that a result that passes never
breaks `results show`, compare or the desktop app; fields it does not read may hold any JSON,
within the limits on size and nesting below, with finite numbers only and text that can be
written out (no lone surrogate such as "\\ud800"). What no measurement can produce is refused
too: a negative time, memory, power, energy or cost, a throughput below MIN_THROUGHPUT or an
epoch time or cost past what the slowest throughput gives (MAX_SECONDS, MAX_USD), an interval
that does not hold its figure, a figure past its physical bound or an integer beyond 64 bits
(engine/results/result_fields.py holds the bounds and the sections' checks), a memory fill
that is not its peak over its total, an MFU without its peak, a failed run that does not say
why. Every reader goes through validate(): a file (import, compare,
project, report) and every stored row (Store.get and Store.list, engine/results/store.py).
"""

from __future__ import annotations

from typing import Any

from engine.core.errors import ConfigError
from engine.core.ids import RUN_ID, RUN_ID_RULE
from engine.measure.config import RunConfig
from engine.measure.result import SCHEMA, STATUSES
from engine.results import result_fields as f
from engine.results.json_checks import (
    Bad,
    date,
    items,
    limits,
    no_wide_int,
    number,
    obj,
    optional,
    pair,
    short,
    shown,
    whole,
)
from engine.results.result_fields import (
    MAX_EPOCH_SAMPLES,
    MAX_SECONDS,
    MAX_THROUGHPUT,
    MAX_USD,
    MIN_THROUGHPUT,
    OPT_BYTES,
    OPT_FRACTION,
    OPT_SECONDS,
    OPT_TEXT,
    OPT_USD,
    OPT_WHOLE,
    POSITIVE,
    SECONDS,
    TEXT,
    THROUGHPUT,
    WHOLE,
)

__all__ = ["MAX_SECONDS", "MAX_THROUGHPUT", "MAX_USD", "MIN_THROUGHPUT", "RUN_ID", "validate"]

# A 95% interval's ends lie below its figure's bound (a cost's high may be null); _around()
# checks the low end, the order and that the interval holds its figure.
_THROUGHPUT_ENDS = number(maximum=MAX_THROUGHPUT)
_USD_END = number(maximum=MAX_USD)

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
        "environment": f.environment,
        "error": optional(obj({"kind": OPT_TEXT, "message": TEXT}, ("message",))),
        "price": optional(f.PRICE),
        "workload": optional(f.WORKLOAD),
        "warnings": optional(items(TEXT)),
        "epoch_samples": whole(0, MAX_EPOCH_SAMPLES),
        "group_id": OPT_TEXT,
        "kind": OPT_TEXT,
        "sweep": optional(obj({"group_id": TEXT, "role": TEXT, "trial": WHOLE})),
        "scaling": optional(obj({"group_id": TEXT, "nproc": whole(1)})),
        # A study's point (engine/study): its group, axis, the axis's value there, its place.
        "study": optional(
            obj({"group_id": TEXT, "axis": TEXT, "point": WHOLE}, ("group_id", "axis", "value"))
        ),
        "energy": optional(f.ENERGY),
        "accuracy": optional(f.ACCURACY),
        "flops": optional(f.FLOPS),
        "data": optional(f.DATA),
        "cloud": optional(f.CLOUD),
        "compile_seconds": OPT_SECONDS,
        "step_time_s": optional(f.STEP_TIMES),
        "steps_measured": OPT_WHOLE,
        "throughput_ci95": optional(pair(_THROUGHPUT_ENDS, _THROUGHPUT_ENDS)),
        "usd_per_epoch_ci95": optional(pair(_USD_END, optional(_USD_END))),
        "interval_method": OPT_TEXT,
        "target_precision": optional(f.TARGET_PRECISION),
        "repeats": OPT_WHOLE,
        "other_cpu_fraction": OPT_FRACTION,
        # The share of the measured time spent waiting for data (None: synthetic batches).
        "input_wait_fraction": OPT_FRACTION,
        "input_wait_repeats": optional(items(OPT_FRACTION)),
        "distributed": optional(f.DISTRIBUTED),
        "throughput_repeats": optional(items(THROUGHPUT)),
        "throughput_samples_per_s": optional(THROUGHPUT),
        # (max - min) / median of windows within [MIN_THROUGHPUT, MAX_THROUGHPUT]
        "throughput_spread": optional(number(minimum=0.0, maximum=MAX_THROUGHPUT / MIN_THROUGHPUT)),
        "memory_fill": OPT_FRACTION,
        "memory_total_bytes": optional(number(positive=True, maximum=f.MAX_BYTES)),
        "usd_per_epoch": OPT_USD,
    }
    | {k: OPT_SECONDS for k in ("epoch_seconds", "window_seconds", "warmup_seconds")}
    | {
        k: OPT_BYTES
        for k in ("peak_memory_bytes", "warmup_peak_memory_bytes", "device_peak_used_bytes")
    },
    ("schema", "run_id", "status", "config", "environment", "epoch_samples"),
)
# What `results show` and compare read of a result that measured something.
_MEASURED = obj(
    {
        "throughput_samples_per_s": POSITIVE,
        "epoch_samples": whole(1),
        "epoch_seconds": POSITIVE,
        "step_time_s": obj({k: SECONDS for k in ("median", "p10", "p90")}, ("median",)),
        "steps_measured": WHOLE,
        "stop_reason": TEXT,
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
        too_big = limits(data)
        _ALWAYS(data, "result")
        if data["status"] not in STATUSES:
            allowed = ", ".join(STATUSES)
            raise Bad("result.status", f"{short(data['status'])} is not one of {allowed}")
        if not RUN_ID.fullmatch(data["run_id"]):
            raise Bad(
                "result.run_id",
                f"{short(data['run_id'])} is not a run id ({RUN_ID_RULE})",
            )
        if data["status"] == "ok":
            _MEASURED(data, "result")
        _slowest(data)
        _around("throughput_ci95", "throughput_samples_per_s", data)
        _around("usd_per_epoch_ci95", "usd_per_epoch", data)
        f.memory(data)
        f.mfu(data.get("flops"))
        f.says_why(data)
        no_wide_int(too_big)  # one no field above bounds (an unread field's)
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
    """A stored 95% interval must be [low, high] in order, high above 0 (its ends are numbers
    within the figure's bounds, checked with the fields), and hold its own figure: an estimate
    scaled from a figure outside its own interval lies outside its range too. A cost
    interval's high may be null (the throughput's low reached 0); a throughput's low may be 0
    (its interval reaches down to zero, as the worker writes it when the noise is wider than
    the figure)."""
    interval, figure = data.get(interval_key), data.get(figure_key)
    if interval is None:
        return
    low, high = interval
    path = f"result.{interval_key}"
    if low < 0:
        raise Bad(path, f"low end {short(low)} is not a number of 0 or more")
    ends = f"[{shown(low)}, {'null' if high is None else shown(high)}]"
    if high is not None and (not high > 0 or high < low):
        raise Bad(path, f"{ends} is not a pair [low, high] in order, high above 0")
    if figure is None:
        return
    slack = 1e-9 * abs(figure)
    if figure < low - slack or (high is not None and figure > high + slack):
        raise Bad(
            path,
            f"{ends} does not hold the result's own {figure_key} {shown(figure)}: the file is "
            "inconsistent (edited or damaged); measure again or fix the figure",
        )


def _slowest(data: dict[str, Any]) -> None:
    """No window measures a throughput below MIN_THROUGHPUT; one that low would put an epoch
    past MAX_SECONDS and its cost past every bound."""
    throughput = data.get("throughput_samples_per_s")
    if throughput is not None and throughput < MIN_THROUGHPUT:
        raise Bad(
            "result.throughput_samples_per_s",
            f"is {shown(throughput)} samples/s, slower than any window can measure "
            f"({MIN_THROUGHPUT:g}: one sample in the longest window)",
        )
