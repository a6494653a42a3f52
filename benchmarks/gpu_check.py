"""`make gpu-check`: every GPU path of epochcost on a machine with an NVIDIA GPU, in one command.

Each check is a real worker run (or a sweep, or a data-parallel run) on cuda:0, judged from
what its result records: fp32, fp16 and bf16 runs; torch.compile (its compile time apart);
CUDA event step times against the window's wall clock; NVML memory, power and energy; an
out-of-memory run at a batch that cannot fit (stored as data, not a crash); a sweep's max-fit
search; MFU against the catalog's peak for the GPU; TensorFlow on the GPU when its
environment has GPU support; `--nproc` with NCCL over every GPU when there are two or more.

Writes a JSON report (--out, default gpu-check.json) and prints a summary, one line a check.
Exit 0 when every check passed or was skipped, 1 when one failed. On a machine NVML finds no
NVIDIA GPU on, it says "no GPU here", writes a report saying so, and exits 0.

    .venv/bin/python benchmarks/gpu_check.py [--out gpu-check.json] [--model resnet18-cifar]
        [--only fp32 --only "NVML memory, power, energy" ...]
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine.cli.common import option_name
from engine.core.events import Failed, Finished
from engine.core.placeholders import worded
from engine.measure.config import RunConfig
from engine.measure.probes import nvml_devices
from engine.process.launcher import WorkerProcess
from engine.sweep.plan import SweepPlan
from engine.sweep.runner import run_sweep

NO_GPU = "no GPU here: NVML finds no NVIDIA GPU, so there is nothing to check"
OOM_BATCH = 1 << 20  # far past any GPU's memory for the model
MAX_FIT_CAP = 8192  # the max-fit search stops here on a GPU large enough
TIMER_TOLERANCE = 0.25  # step times summed against the window's wall time


@dataclass
class Check:
    name: str
    status: str = "pass"  # pass, fail, skip
    detail: str = ""
    seconds: float = 0.0
    figures: dict[str, Any] = field(default_factory=dict)


def short_config(model: str, **changes: Any) -> RunConfig:
    """A run short enough for a check: a few windows of a few dozen steps."""
    base = RunConfig(
        model=model,
        device="cuda:0",
        batch_size=64,
        warmup_steps=5,
        min_steps=10,
        max_steps=60,
        max_seconds=10.0,
        repeats=2,
    )
    return base.with_changes(**changes)


def run(config: RunConfig) -> tuple[dict[str, Any] | None, Failed | None]:
    """One worker run: its result, or its failure."""
    worker = WorkerProcess(config).start()
    result, failure = None, None
    try:
        for event in worker.events():
            if isinstance(event, Finished):
                result = event.result
            elif isinstance(event, Failed):
                failure = event
    finally:
        worker.close()
    return result, failure


# ---- judging a result (pure: tests/engine/test_gpu_check_script.py) ---------------------


def judge_run(result: dict[str, Any] | None, failure: Failed | None) -> tuple[str, str]:
    if result is not None and result.get("status") == "ok":
        return "pass", f"{result['throughput_samples_per_s']:,.1f} samples/s"
    return "fail", failure.message if failure else "no result"


def judge_timers(result: dict[str, Any]) -> tuple[str, str]:
    """CUDA event step times, summed over the windows, against the windows' wall time."""
    steps, wall = result["steps_measured"], result["window_seconds"]
    median = result["step_time_s"]["median"]
    ratio = median * steps / wall if wall else 0.0
    ok = abs(ratio - 1.0) <= TIMER_TOLERANCE
    return (
        "pass" if ok else "fail",
        f"median step x steps / window wall time = {ratio:.3f} (within {TIMER_TOLERANCE:.0%} "
        "of 1 expected)",
    )


def judge_nvml(result: dict[str, Any]) -> tuple[str, str]:
    energy = result.get("energy") or {}
    wanted = {
        "peak memory": result.get("peak_memory_bytes"),
        "device memory used": result.get("device_peak_used_bytes"),
        "mean power (W)": energy.get("mean_power_w"),
        "energy (J)": energy.get("energy_j"),
    }
    missing = [k for k, v in wanted.items() if not v or v <= 0]
    text = ", ".join(f"{k} {v:,.1f}" if v else f"{k} none" for k, v in wanted.items())
    return ("fail" if missing else "pass", text + f"; energy by {energy.get('energy_method')}")


def judge_mfu(result: dict[str, Any]) -> tuple[str, str]:
    flops = result.get("flops") or {}
    mfu = flops.get("mfu")
    if mfu is None:
        return "fail", f"no MFU: {flops.get('peak_source', 'no FLOPs counted')}"
    ok = 0 < mfu <= 1
    return ("pass" if ok else "fail", f"MFU {mfu:.1%} of {flops.get('peak_tflops')} TFLOP/s")


def judge_oom(result: dict[str, Any] | None, failure: Failed | None) -> tuple[str, str]:
    if failure is not None and failure.kind == "oom":
        return "pass", failure.message
    what = failure.message if failure else "it trained"
    return "fail", f"expected an out-of-memory failure: {what}"


def judge_distributed(
    result: dict[str, Any] | None, failure: Failed | None, world: int
) -> tuple[str, str]:
    if result is None:
        return "fail", failure.message if failure else "no result"
    spread = result.get("distributed") or {}
    ok = spread.get("world_size") == world and spread.get("backend") == "nccl"
    rates = [r.get("samples_per_s") for r in spread.get("per_rank", [])]
    return (
        "pass" if ok else "fail",
        f"{spread.get('world_size')} processes over {spread.get('backend')}: "
        f"{result['throughput_samples_per_s']:,.1f} samples/s, per rank {rates}",
    )


# ---- the checks ----------------------------------------------------------------------------


def checks(model: str, gpus: list[dict[str, Any]]) -> list[tuple[str, Callable[[], Check]]]:
    kept: dict[str, dict[str, Any]] = {}

    def plain(name: str, **changes: Any) -> Callable[[], Check]:
        def go() -> Check:
            result, failure = run(short_config(model, **changes))
            status, detail = judge_run(result, failure)
            if result is not None:
                kept[name] = result
            if changes.get("precision") == "bf16" and failure and "no bf16" in failure.message:
                status, detail = "skip", failure.message  # an older GPU, refused clearly
            figures = {"compile_seconds": result.get("compile_seconds")} if result else {}
            return Check(name, status, detail, figures=figures)

        return go

    def from_fp32(
        name: str, judge: Callable[[dict[str, Any]], tuple[str, str]]
    ) -> Callable[[], Check]:
        def go() -> Check:
            result = kept.get("fp32")
            if result is None:
                return Check(name, "skip", "the fp32 run did not measure")
            return Check(name, *judge(result))

        return go

    def oom() -> Check:
        result, failure = run(short_config(model, batch_size=OOM_BATCH, repeats=1))
        return Check("out of memory", *judge_oom(result, failure))

    def max_fit() -> Check:
        summary = run_sweep(
            short_config(model, warmup_steps=2, repeats=1),
            SweepPlan(max_fit=True, max_batch=MAX_FIT_CAP),
        )
        found = summary.to_dict()
        fit, recommended = found["max_fit_batch"], found["recommended_batch"]
        return Check(
            "sweep max-fit",
            "pass" if fit else "fail",
            f"max fit {fit}, recommended {recommended} (search capped at {MAX_FIT_CAP}); "
            + worded(found["search_limit_reason"] or "", option_name),
            figures={"max_fit_batch": fit, "recommended_batch": recommended},
        )

    def tensorflow() -> Check:
        result, failure = run(short_config("tiny-mlp", framework="tensorflow"))
        if result is not None:
            return Check("tensorflow on the GPU", *judge_run(result, failure))
        message = failure.message if failure else "no result"
        if failure and failure.kind in ("framework", "config"):
            return Check("tensorflow on the GPU", "skip", f"not runnable here: {message}")
        return Check("tensorflow on the GPU", "fail", message)

    def nccl() -> Check:
        world = min(len(gpus), 8)
        if world < 2:
            return Check("--nproc with NCCL", "skip", "one GPU here: needs two or more")
        config = short_config(model, device="cuda", nproc=world)
        result, failure = run(config)
        return Check("--nproc with NCCL", *judge_distributed(result, failure, world))

    return [
        ("fp32", plain("fp32")),
        ("fp16", plain("fp16", precision="fp16")),
        ("bf16", plain("bf16", precision="bf16")),
        ("torch.compile", plain("torch.compile", compile=True)),
        ("CUDA timers vs wall clock", from_fp32("CUDA timers vs wall clock", judge_timers)),
        ("NVML memory, power, energy", from_fp32("NVML memory, power, energy", judge_nvml)),
        ("MFU", from_fp32("MFU", judge_mfu)),
        ("out of memory", oom),
        ("sweep max-fit", max_fit),
        ("tensorflow on the GPU", tensorflow),
        ("--nproc with NCCL", nccl),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("gpu-check.json"))
    parser.add_argument("--model", default="resnet18-cifar")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="CHECK",
        help="run this check only, by its name as printed (again for more); default: all",
    )
    args = parser.parse_args(argv)
    only = set(args.only)
    gpus = nvml_devices()
    report: dict[str, Any] = {
        "created_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "model": args.model,
        "gpus": gpus,
        "checks": [],
    }
    if not gpus:
        print(NO_GPU)
        report["summary"] = NO_GPU
        args.out.write_text(json.dumps(report, indent=2) + "\n")
        return 0
    print(f"GPUs: {', '.join(g['name'] for g in gpus)}; model {args.model}", flush=True)
    results = []
    for name, go in checks(args.model, gpus):
        if only and name not in only:
            continue
        t0 = time.monotonic()
        try:
            check = go()
        except Exception as exc:  # noqa: BLE001 - a check that breaks is a failed check
            check = Check(name, "fail", f"{type(exc).__name__}: {exc}")
        check.seconds = time.monotonic() - t0
        results.append(check)
        print(f"{check.status:4s}  {name:28s} {check.seconds:6.1f} s  {check.detail}", flush=True)
    counts = {s: sum(c.status == s for c in results) for s in ("pass", "fail", "skip")}
    report["checks"] = [asdict(c) for c in results]
    report["summary"] = counts
    args.out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(
        f"gpu-check: {counts['pass']} pass, {counts['fail']} fail, {counts['skip']} skip "
        f"(report {args.out})"
    )
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
