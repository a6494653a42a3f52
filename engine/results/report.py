"""Human-readable text for a result (CLI summaries, `results show`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from engine.core.interval import interval_text
from engine.core.precision import MARK, imprecise
from engine.core.precision_target import target_text
from engine.core.text import duration

if TYPE_CHECKING:
    from engine.core.stats import Spread


def size(n: float | None) -> str:
    if n is None:
        return "n/a"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return f"{n:.2f} TiB"


def money(usd: float | None) -> str:
    if usd is None:
        return "n/a"
    if usd < 0.01:
        return f"${usd:.5f}"
    if usd < 100:
        return f"${usd:.4f}"
    return f"${usd:,.2f}"


def listed_device(device: str, cloud_instance: Any) -> str:
    """A listing's device (Past runs, `results list`): a cloud run's names its instance beside
    the GPU ("NVIDIA A10G on g5.xlarge"), so that a run at home and a rented one differ."""
    if isinstance(cloud_instance, str) and cloud_instance:
        return f"{device} on {cloud_instance}"
    return device


def mean_std(s: Spread, fmt: str, scale: float = 1.0) -> str:
    """ "275 ± 66" (the std left out with fewer than two values), "n/a" without a mean."""
    if s.mean is None:
        return "n/a"
    text = format(s.mean * scale, fmt)
    return text if s.std is None else f"{text} ± {format(s.std * scale, fmt)}"


def money_mean_std(s: Spread) -> str:
    """Dollars to three significant digits of the mean, the std to the same decimals."""
    if s.mean is None:
        return "n/a"
    decimals = 2 if s.mean >= 1 else 2 - math.floor(math.log10(max(s.mean, 1e-12)))
    return "$" + mean_std(s, f".{decimals}f")


def distributed_text(spread: dict[str, Any]) -> str:
    """A data-parallel run's processes, its global batch and each rank's own rate."""
    rates = " / ".join(
        f"{r['samples_per_s']:,.0f}" if r.get("samples_per_s") else "?" for r in spread["per_rank"]
    )
    nodes = spread["nnodes"]
    return (
        f"{spread['world_size']} data-parallel ({nodes} node{'s' if nodes > 1 else ''}, "
        f"{spread['backend']}), global batch {spread.get('global_batch', '?')} "
        f"({spread['per_process_batch']} each); per rank {rates} samples/s"
    )


def summary(result: dict[str, Any]) -> str:
    """A few aligned lines that say what was measured and what it costs."""
    c = result["config"]
    env = result.get("environment") or {}
    device = env.get("device_name") or env.get("cpu") or c.get("device")
    threads = (
        f", {env['threads']} threads" if env.get("device") == "cpu" and env.get("threads") else ""
    )
    framework = f"{env.get('framework', c['framework'])} {env.get('framework_version', '')}"
    head = (
        f"{c['model']} | {framework.strip()} | {env.get('device', c['device'])} "
        f"({device}{threads}) | batch {c['batch_size']} | {c['precision']}"
    )
    lines = [head]
    source = (result.get("workload") or {}).get("model_file")
    if source:
        digest = (source.get("sha256") or "unreadable")[:12]
        lines.append(f"{'model file':10s} {source.get('path')} (sha256 {digest}...)")
    if result["status"] != "ok":
        err = result.get("error") or {}
        lines.append(f"{'status':10s} {result['status']}: {err.get('message', '')}")
        lines.append(f"{'run id':10s} {result['run_id']}")
        return "\n".join(lines)
    st = result["step_time_s"]
    unit = (result.get("workload") or {}).get("epoch_unit") or "samples"
    tput = result["throughput_samples_per_s"]
    lines += [
        f"{'throughput':10s} {tput:,.1f} samples/s, {_interval_text(result)}",
        f"{'':10s} step {st['median']:.4f} s median, p10 {st['p10']:.4f}, p90 {st['p90']:.4f}; "
        f"{result['steps_measured']} steps, {_windows(result)}",
        *(
            [f"{'target':10s} {target_text(goal)}"]
            if (goal := result.get("target_precision"))
            else []
        ),
        f"{'epoch':10s} {result['epoch_samples']:,} {unit} in {duration(result['epoch_seconds'])}",
        f"{'memory':10s} {size(result.get('peak_memory_bytes'))} peak of "
        f"{size(result.get('memory_total_bytes'))} ({_percent(result.get('memory_fill'))}, "
        f"{result.get('memory_source', '')})",
    ]
    if result.get("distributed"):
        lines.append(f"{'processes':10s} {distributed_text(result['distributed'])}")
    if result.get("flops"):
        lines.append(f"{'FLOPs':10s} {flops_text(result['flops'], unit)}")
    price = result.get("price")
    if price:
        usd = result["usd_per_epoch"]
        spread = interval_text(result.get("usd_per_epoch_ci95"), usd) if usd is not None else ""
        lines.append(
            f"{'cost':10s} {money(usd)} per epoch ({spread}) at "
            f"${price['usd_per_hour']:,.2f}/h ({price['source']}, {price['as_of']})"
        )
    else:
        lines.append(f"{'cost':10s} no price given (--price-per-hour USD)")
    verdict = imprecise(result)
    if verdict is not None:
        lines.append(f"{'precision':10s} {MARK}: {verdict.why}")
        lines.append(f"{'':10s} to price it, {verdict.todo}")
    if "stored_price" in result:
        was = result["stored_price"]
        stored = (
            f"${was['usd_per_hour']:,.2f}/h ({was['source']}, {was['as_of']})" if was else "none"
        )
        lines.append(f"{'':10s} priced again here; stored with {stored}")
    if result.get("compile_seconds") is not None:
        lines.append(f"{'compile':10s} {duration(result['compile_seconds'])} (outside the window)")
    if result.get("accuracy"):
        lines.append(f"{'accuracy':10s} {_accuracy(result['accuracy'])}")
    for warning in result.get("warnings") or []:
        lines.append(f"{'warning':10s} {warning}")
    lines.append(f"{'run id':10s} {result['run_id']}")
    return "\n".join(lines)


def _interval_text(result: dict[str, Any]) -> str:
    """'95% interval 75.1 to 78.3 (±2.1%); Student t over 3 windows', or why there is none."""
    ci = result.get("throughput_ci95")
    if not ci:
        return "no interval: measured before epochcost recorded one"
    text = interval_text(ci, result["throughput_samples_per_s"], lambda v: f"{v:,.1f}")
    return f"{text}; {result.get('interval_method', '')}"


# Why a measured window ended (the worker's stop_reason): in words, and the limit's name on
# the command line and in the app's form.
STOP_WORDS = {
    "stable": ("once its steps were steady", None, None),
    "max_steps": ("at its step limit", "--max-steps", "Max. measured steps"),
    "max_seconds": ("at the time limit", "--max-seconds", "Max. time (s)"),
}


def stop_text(reason: str | None, in_app: bool = False) -> str:
    """'at its step limit (--max-steps)' for "max_steps" (in the app: '(Max. measured
    steps)'); an unknown reason as it is."""
    words, option, field = STOP_WORDS.get(reason or "", (reason or "not recorded", None, None))
    name = field if in_app else option
    return f"{words} ({name})" if name else words


def _windows(result: dict[str, Any]) -> str:
    """How the windows ended: 'median of 3 windows (...), the last ended at the time limit'."""
    n = result.get("repeats") or 1
    headline = f"median of {n} windows" if n > 1 else "one window"
    return f"{headline} (samples / wall time), the last ended {stop_text(result['stop_reason'])}"


def flops_text(flops: dict[str, Any], unit: str = "sample") -> str:
    """3.73e+10 per sample, 1.84 TFLOP/s achieved, MFU 11.8% of 15.7 TFLOP/s (peak source)."""
    head = (
        f"{flops['per_sample']:.3g} per {unit.rstrip('s')}, "
        f"{flops['achieved_tflops']:.3g} TFLOP/s achieved"
    )
    source = flops.get("peak_source")
    if flops.get("mfu") is not None and flops.get("peak_tflops") is not None:
        return f"{head}, MFU {flops['mfu'] * 100:.1f}% of {flops['peak_tflops']:g} ({source})"
    return f"{head}; {source or 'peak unknown: no MFU recorded with this result'}"


def _percent(fill: float | None) -> str:
    return "n/a" if fill is None else f"{fill * 100:.1f}%"


def _accuracy(section: dict[str, Any]) -> str:
    """One line for a cost-to-accuracy run: where it reached its target or settled, or not."""
    point, data = section["point"], section["dataset"]["name"]
    if point is None:
        if not section["curve"]:
            return f"never reached its goal on {data} ({section['stop_reason']}, no evaluation)"
        last = section["curve"][-1]
        return (
            f"never reached its goal on {data} ({section['stop_reason']} at iteration "
            f"{last['iteration']:,}, {_percent(last['accuracy'])})"
        )
    verb = "settled" if section["stop_reason"] == "stable" else "reached the target"
    usd = f", {money(point['usd'])}" if point.get("usd") is not None else ""
    return (
        f"{verb} on {data} at iteration {point['iteration']:,} ({_percent(point['accuracy'])}) "
        f"after {duration(point['seconds'])}{usd}"
    )
