"""epochcost doctor: can this machine's framework environments train on its GPUs (or on a GPU
you name), and what to do where not."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.catalog_options import load_reporting, resolve_gpu
from engine.cli.common import UsageError
from engine.cli.output import print_json
from engine.measure.compatibility import LABELS, driver_cuda, span
from engine.pricing.rows import GpuSpec
from engine.process import doctor

NO_GPU = "none found by NVML (no NVIDIA GPU, or no NVIDIA driver): runs use the CPU"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="can each framework environment here train on each GPU; what to do where not",
    )
    p.add_argument(
        "--for-gpu",
        metavar="NAME",
        help="a GPU that is not here, from the catalog (epochcost catalog gpus lists them)",
    )
    p.add_argument(
        "--driver",
        metavar="VERSION",
        help="with --for-gpu: the NVIDIA driver it would run under, such as 535.104.05",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if args.driver is not None and args.for_gpu is None:
        raise UsageError("driver", "give it with --for-gpu (the driver here is read from NVML)")
    if args.driver is not None and driver_cuda(args.driver) is None:
        raise UsageError(
            "driver", f"{args.driver!r}: give an NVIDIA driver version such as 535.104.05"
        )
    if args.for_gpu is not None:
        spec = _catalog_gpu(args.for_gpu)
        report = doctor.for_gpu(spec.name, spec.compute_capability, args.driver or "")
        if args.json:
            print_json(report)
        else:
            print("\n".join(_gpu_lines(report)))
        return 0
    found = doctor.diagnose()
    if args.json:
        print_json(found)
        return 0
    print("\n".join(_text(found)))
    return 0


def _catalog_gpu(text: str) -> GpuSpec:
    """The catalog GPU `text` names, as every command reads a GPU's name."""
    return resolve_gpu(load_reporting(), text, "for_gpu")


def _text(found: dict[str, Any]) -> list[str]:
    m = found["machine"]
    lines = [
        f"{'machine':12s} {m['os']}, {m['cpu']} ({m['logical_cores']} logical cores), "
        f"Python {m['python']}, epochcost {m['epochcost']}",
        "environments",
    ]
    for env in found["environments"]:
        lines.append("  " + _environment(env))
    if not found["gpus"]:
        lines.append(f"{'GPUs':12s} {NO_GPU}")
    for gpu in found["gpus"]:
        lines += _gpu_lines(gpu)
    return lines


def _environment(env: dict[str, Any]) -> str:
    where = "the app's own" if env["own"] else "chosen"
    used = "; runs use it" if env["used_for_runs"] else ""
    if env.get("error"):
        return f"{_name(env)}: cannot be read ({env['error']}) in {env['python']}"
    cuda = f"CUDA {env['cuda']}, {_span(env)}" if env["cuda"] else "CPU only"
    return f"{_name(env)} {env['version']} ({cuda}) in {env['python']} ({where}{used})"


def _gpu_lines(gpu: dict[str, Any]) -> list[str]:
    cc = f"sm_{gpu['compute_capability'].replace('.', '')}" if gpu["compute_capability"] else ""
    driver = gpu["driver"] and f"driver {gpu['driver']}"
    if driver and gpu["driver_cuda"]:
        driver += f" (runs CUDA up to {gpu['driver_cuda']})"
    where = "from the catalog" if gpu["source"] == "catalog" else f"GPU {gpu['index']}"
    facts = ", ".join(p for p in (cc or "compute capability unknown", driver) if p)
    lines = [f"{gpu['gpu']} ({where}): {facts}"]
    for row in gpu["frameworks"]:
        label = f"{_name(row)} {row['version']}".strip()
        if not row["own"]:
            label += f" in {row['python']}"
        lines.append(f"  {label}: {'yes' if row['ok'] else 'no'}: {row['reason']}")
        if row["remedy"]:
            lines.append(f"    to fix: {row['remedy']}")
    return lines


def _name(env: dict[str, Any]) -> str:
    return LABELS.get(env["framework"], env["framework"])


def _span(env: dict[str, Any]) -> str:
    return f"GPUs {span(env['archs'])}"
