"""The bounds of a result's figures and the checks of its sections (flops, energy, data, cloud,
environment...), which engine/results/schema.py composes into the whole result's check.

Every number a result holds has a bound here that no measurement can pass: a figure past it
was edited in or damaged, and shown as it is it reads "1e+308 TFLOP/s" or "inf%", or fails a
format, far from the file that held it. The bounds are physical (no device trains a trillion
samples a second) rather than tight, so that no real run is ever refused.
"""

from __future__ import annotations

from typing import Any

from engine.pricing.cost import MAX_USD_PER_HOUR
from engine.results.json_checks import (
    Bad,
    Check,
    date,
    items,
    number,
    obj,
    optional,
    short,
    text,
    whole,
)
from engine.workloads import family

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
# FLOPs of one step or one sample: a step of a 10-trillion-parameter model over a million
# tokens is about 6e19; 1e24 is past any model built.
MAX_FLOPS = 1e24
# One device's peak (the fastest reach some 1e4 TFLOP/s at their narrowest precision), and
# what a whole data-parallel run achieves (100 EFLOP/s: past every cluster built).
MAX_PEAK_TFLOPS = 1e5
MAX_TFLOPS = 1e8
# MFU above 1 is kept with a note (engine/measure/utilisation.py: a catalog peak that does not
# fit the row); ten times the peak is no measurement.
MAX_MFU = 10.0
MAX_COUNT = 2**31  # CPU threads, GPUs, processes, classes: far past any machine
# What a result from elsewhere may claim (engine/results/plausible.py). A clock this far ahead
# of ours is a machine's wrong clock at most; a `created_at` past it was written, not measured.
CLOCK_SKEW_S = 86_400.0
# A CPU's physical peak, generously: AMX does some 2 TFLOP/s (bf16) per core at its best, and
# no CPU socket reaches 100 TFLOP/s. The catalog holds GPU peaks only.
CPU_TFLOPS_PER_CORE = 4.0
CPU_MAX_TFLOPS = 100.0

NUMBER, POSITIVE, WHOLE, TEXT = number(), number(positive=True), whole(), text
OPT_NUMBER, OPT_TEXT, OPT_WHOLE = optional(NUMBER), optional(TEXT), optional(WHOLE)
FRACTION = number(minimum=0.0, maximum=1.0)
OPT_FRACTION = optional(FRACTION)
OPT_COUNT = optional(whole(0, MAX_COUNT))
BYTES = number(minimum=0.0, maximum=MAX_BYTES)
OPT_BYTES = optional(BYTES)
SECONDS, USD = number(minimum=0.0, maximum=MAX_SECONDS), number(minimum=0.0, maximum=MAX_USD)
OPT_SECONDS, OPT_USD = optional(SECONDS), optional(USD)
THROUGHPUT = number(positive=True, maximum=MAX_THROUGHPUT)
OPT_RATE = optional(number(minimum=0.0, maximum=MAX_THROUGHPUT))  # a rank's, 0 when stalled
USD_PER_HOUR = number(minimum=0.0, maximum=MAX_USD_PER_HOUR)

PRICE = obj(
    {"usd_per_hour": USD_PER_HOUR, "source": TEXT, "as_of": date},
    ("usd_per_hour", "source", "as_of"),
)
STEP_TIMES = obj(
    {k: OPT_SECONDS for k in ("median", "p10", "p90", "mean", "min", "max")} | {"count": OPT_WHOLE}
)
_ENERGY_J = MAX_POWER_W * MAX_SECONDS  # the highest draw over the longest epoch
ENERGY = obj(
    {
        "energy_j": optional(number(minimum=0.0, maximum=_ENERGY_J)),
        "mean_utilization_percent": optional(number(minimum=0.0, maximum=100.0)),
        "joules_per_sample": optional(number(minimum=0.0, maximum=MAX_POWER_W / MIN_THROUGHPUT)),
        "kwh_per_epoch": optional(number(minimum=0.0, maximum=_ENERGY_J / 3.6e6)),
        "mean_power_w": optional(number(minimum=0.0, maximum=MAX_POWER_W)),
        "energy_method": OPT_TEXT,
    }
)
_FLOP_COUNT = number(minimum=0.0, maximum=MAX_FLOPS)
_ACHIEVED = number(minimum=0.0, maximum=MAX_TFLOPS)
FLOPS = obj(
    {
        "per_step": optional(_FLOP_COUNT),
        "per_sample": _FLOP_COUNT,
        "achieved_tflops": _ACHIEVED,
        "achieved_tflops_per_device": optional(_ACHIEVED),
        "method": OPT_TEXT,
        "peak_tflops": optional(number(positive=True, maximum=MAX_PEAK_TFLOPS)),
        "mfu": optional(number(minimum=0.0, maximum=MAX_MFU)),
        "peak_source": OPT_TEXT,
    },
    ("per_sample", "achieved_tflops"),
)


def _loader_workers(value: Any, path: str) -> None:
    """A count of loader workers, or TensorFlow's "AUTOTUNE"."""
    if not isinstance(value, str):
        whole(0, MAX_COUNT)(value, path)


# What the run read (engine/worker/frameworks/*/data.py); engine/results/data_lines.py says it.
DATA = obj(
    {
        "kind": OPT_TEXT,
        "source": OPT_TEXT,
        "samples": OPT_COUNT,
        "classes": OPT_COUNT,
        "augmentation": OPT_TEXT,
        "loader_workers": optional(_loader_workers),
    }
)
# A run on a rented instance (engine/cloud/collect.py cloud_section).
CLOUD = obj(
    {
        k: OPT_TEXT
        for k in ("cloud", "region", "instance_type", "cluster", "price_note", "startup_basis")
    }
    | {
        "nodes": optional(whole(1, MAX_COUNT)),
        "price": optional(
            obj({"usd_per_hour": USD_PER_HOUR, "source": OPT_TEXT, "as_of": OPT_TEXT})
        ),
        "startup_minutes": optional(number(minimum=0.0, maximum=MAX_SECONDS / 60)),
        "startup_usd": OPT_USD,
        # the rental whole: launch to teardown, at the cloud's billing granularity
        "rental_minutes": optional(number(minimum=0.0, maximum=MAX_SECONDS / 60)),
        "rental_usd": OPT_USD,
    }
)
POINT = obj(
    {
        "iteration": WHOLE,
        "accuracy": OPT_NUMBER,
        "seconds": SECONDS,
        "usd": OPT_USD,
        "epochs": optional(number(minimum=0.0, maximum=MAX_SECONDS)),
    },
    ("iteration", "seconds"),
)
ACCURACY = obj(
    {
        "point": optional(POINT),
        "dataset": obj({"name": TEXT}, ("name",)),
        "stop_reason": TEXT,
        "curve": items(obj({"iteration": WHOLE, "accuracy": OPT_NUMBER}, ("iteration",))),
        "run": optional(obj({"seconds": OPT_SECONDS, "usd": OPT_USD})),
    },
    ("dataset", "stop_reason", "curve"),
)
# A data-parallel run (engine/worker/measure/result.py distributed_record).
DISTRIBUTED = obj(
    {
        "world_size": whole(1, MAX_COUNT),
        "nnodes": whole(1, MAX_COUNT),
        "nproc_per_node": whole(1, MAX_COUNT),
        "backend": TEXT,
        "per_process_batch": whole(1),
        "global_batch": whole(1),
        "per_rank": items(obj({"rank": WHOLE, "samples_per_s": OPT_RATE}, ("rank",))),
    },
    ("world_size", "nnodes", "backend", "per_process_batch", "per_rank"),
)


def flag(value: Any, path: str) -> None:
    if not isinstance(value, bool):
        raise Bad(path, f"must be true or false, not {short(value)}")


# A run with a target precision (engine/core/precision_target.py, Verdict.record).
TARGET_PRECISION = obj(
    {
        "target": number(positive=True, maximum=1.0),
        "achieved": optional(number(minimum=0.0)),
        "reached": flag,
        "windows": whole(0, MAX_COUNT),
        "seconds": number(minimum=0.0, maximum=MAX_SECONDS),
        "budget_s": optional(number(minimum=0.0, maximum=MAX_SECONDS)),
        "why_not": OPT_TEXT,
        "seconds_needed": optional(number(minimum=0.0)),
    },
    ("target", "reached", "windows", "seconds"),
)


def one_of(choices: tuple[str, ...]) -> Check:
    def one_of(value: Any, path: str) -> None:
        if value not in choices:
            raise Bad(path, f"must be one of {', '.join(choices)}, not {short(value)}")

    return one_of


_SHARES = obj({"by": one_of(family.BASES)} | {k: FRACTION for k in family.KINDS}, ("by",))


def composition(value: Any, path: str) -> None:
    """What the model is made of (engine/workloads/family.py): the shares of its FLOPs (or
    parameters) by kind of layer, each 0 to 1 and together 1. Shares that add up to more were
    edited in, and an estimate would say "140% of FLOPs in convolutions"."""
    _SHARES(value, path)
    total = sum(value.get(k) or 0.0 for k in family.KINDS)
    if abs(total - 1.0) > 1e-3:
        raise Bad(path, f"shares add up to {total:.4g}, not 1: measure again or remove it")


WORKLOAD = obj(
    {
        "name": OPT_TEXT,
        "task": OPT_TEXT,
        "epoch_unit": OPT_TEXT,
        "parameters": OPT_WHOLE,
        "input_shape": optional(items(WHOLE)),
        "model_file": optional(obj({"path": TEXT, "sha256": OPT_TEXT})),
        "composition": optional(composition),
        # A model file's FAMILY (engine/worker/workloads/model_file.py), as it stated it
        "family_stated": optional(one_of(family.FAMILIES)),
    }
)
_ENV_FIELDS = obj(
    {
        k: OPT_TEXT
        for k in ("device", "device_name", "cpu", "framework", "framework_version", "hostname")
    }
    | {k: OPT_COUNT for k in ("threads", "gpu_count", "cpu_count_logical", "cpu_count_physical")}
    | {"ram_bytes": OPT_BYTES}
)


def environment(value: Any, path: str) -> None:
    """The machine's description: its named fields, and the report's sizes and times (every
    key ending in _bytes is shown in GiB, _seconds or _s in seconds) within their bounds."""
    _ENV_FIELDS(value, path)
    for key, item in value.items():
        if isinstance(item, bool) or not isinstance(item, int | float):
            continue
        if key.endswith("_bytes"):
            BYTES(item, f"{path}.{key}")
        elif key.endswith(("_seconds", "_s")):
            SECONDS(item, f"{path}.{key}")


def memory(data: dict[str, Any]) -> None:
    """A memory fill is the peak over the total, 0 to 1: the report shows it beside both, and
    one that disagrees with them (1000%, inf%) was edited in."""
    fill, peak, total = (
        data.get(k) for k in ("memory_fill", "peak_memory_bytes", "memory_total_bytes")
    )
    if fill is None or peak is None or total is None:
        return
    if abs(fill - peak / total) > 1e-6 * max(fill, 1e-9):
        raise Bad(
            "result.memory_fill",
            f"is {fill:g}, but peak_memory_bytes / memory_total_bytes is {peak / total:g}: "
            "the result is inconsistent (edited or damaged); measure again or fix the figures",
        )


def mfu(flops: dict[str, Any] | None) -> None:
    """An MFU is the achieved rate over a peak: without the peak it cannot have been measured,
    and the report cannot say what it is of."""
    if flops and flops.get("mfu") is not None and flops.get("peak_tflops") is None:
        raise Bad(
            "result.flops.mfu",
            "is given without flops.peak_tflops, the peak it is a share of: give the peak or "
            "set mfu to null",
        )


def says_why(data: dict[str, Any]) -> None:
    """A run that did not end ok keeps what went wrong: `results show` and the report print
    its error's message as the only line of that run."""
    if data["status"] == "ok":
        return
    error = data.get("error")
    if error is None:
        raise Bad(
            "result.error",
            f"is missing: a result with status {data['status']!r} says what went wrong "
            '({"message": "..."})',
        )
    if not error["message"].strip():
        raise Bad("result.error.message", f"is empty: say why the run ended {data['status']}")
