"""epochcost project RESULT_OR_ID --gpu NAME|all: a measured run's throughput on other GPUs."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.cmd_catalog import load_reporting, resolve_gpu
from engine.cli.cmd_compare import load_result
from engine.cli.common import UsageError, print_json
from engine.cli.tables import number, table
from engine.pricing.catalog import Catalog
from engine.pricing.compare import device_label, is_cpu
from engine.pricing.comparison import MeasuredRun, measured_elsewhere
from engine.pricing.projection import Basis, Projection, measured, memory_bytes, project_result
from engine.pricing.rows import GpuSpec
from engine.results.store import Store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "project",
        help="a measured run's throughput on another GPU (or every catalog GPU)",
        description="Project a measured run onto catalog GPUs: measured where a stored run of "
        "the same workload ran there, else estimated from published measurements of models of "
        "the same family (Lambda's PyTorch benchmark), else from spec ratios. Each figure says "
        "what it rests on and whether the batch fits. docs/pricing.md explains the method.",
    )
    p.add_argument("result", metavar="RESULT_OR_ID", help="a stored run id (or prefix) or a file")
    p.add_argument(
        "--gpu",
        required=True,
        metavar="NAME|all",
        help="a catalog GPU by name or device name ('V100 SXM2 16GB', 'NVIDIA A100-PCIE-40GB'), "
        "or all",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=handle)


def projections(
    result: dict[str, Any], cat: Catalog, targets: list[GpuSpec], listing: Any = None
) -> list[tuple[GpuSpec, Projection]]:
    """Each target's projection of `result` (measured ones from `listing`, a Store.list())."""
    basis = Basis.of(cat)
    on_gpu: dict[str, MeasuredRun] = {}
    if listing is not None:
        for other in measured_elsewhere(listing, result):
            spec = cat.gpu_for_device(other.device_name)
            if spec is not None:
                on_gpu.setdefault(spec.name, other)
    source = None if is_cpu(result) else cat.gpu_for_device(device_label(result))
    out = []
    for target in targets:
        run = on_gpu.get(target.name)
        if source is not None and target.name == source.name:
            ci = result.get("throughput_ci95") or (None, None)
            proj = measured(
                result["throughput_samples_per_s"],
                f"measured on {target.name} (this run, {result['run_id']})",
                (ci[0], ci[1]),
                result.get("peak_memory_bytes"),
            )
        elif run is not None:
            proj = measured(
                run.samples_per_s,
                f"measured on {target.name} (run {run.run_id})",
                (run.low, run.high),
            )
        elif is_cpu(result):
            proj = Projection(
                "no_estimate",
                basis="a CPU result cannot be scaled to a GPU: measure there and import it",
            )
        elif source is None:
            proj = Projection(
                "no_estimate",
                basis=f"the measured GPU {device_label(result)} is not in the GPU catalog",
            )
        else:
            proj = project_result(result, source, target, basis, memory_bytes(target))
        out.append((target, proj))
    return out


def to_json(gpu: GpuSpec, proj: Projection) -> dict[str, Any]:
    return {
        "gpu": gpu.name,
        "status": proj.status,
        "samples_per_s": proj.samples_per_s,
        "low": proj.low,
        "high": proj.high,
        "basis": proj.basis,
        "method": proj.method,
        "fits": proj.fits,
        "memory_needed_bytes": proj.memory_needed_bytes,
        "memory_available_bytes": proj.memory_available_bytes,
    }


def handle(args: argparse.Namespace) -> int:
    result = load_result(args.result)
    if result["status"] != "ok":
        raise UsageError(
            "RESULT_OR_ID " + args.result,
            f"{result['run_id']} ended {result['status']}: no throughput to project",
        )
    cat = load_reporting()
    every = args.gpu.strip().lower() == "all"
    targets = list(cat.gpus) if every else [resolve_gpu(cat, args.gpu)]
    rows = projections(result, cat, targets, Store(readonly=True).list())
    if args.json:
        data = [to_json(g, p) for g, p in rows]
        print_json(data if every else data[0])
        return 0
    c = result["config"]
    print(
        f"{c['model']} | {c['framework']} | {device_label(result)} | batch {c['batch_size']} | "
        f"{c['precision']} | {result['throughput_samples_per_s']:,.1f} samples/s\n"
    )
    order = {"measured": 0, "estimated": 1, "does_not_fit": 2, "no_estimate": 3}
    rows.sort(key=lambda gp: (order[gp[1].status], -(gp[1].samples_per_s or 0.0)))
    body = [
        [
            g.name,
            p.status.replace("_", " "),
            number(p.samples_per_s),
            f"{number(p.low)} - {number(p.high)}" if p.low is not None else "",
            {True: "yes", False: "no", None: "?"}[p.fits],
            p.basis,
        ]
        for g, p in rows
    ]
    print(table(["GPU", "status", "samples/s", "range", "fits", "basis"], body, right={2, 3}))
    return 0
