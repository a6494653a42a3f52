"""epochcost project RESULT_OR_ID --gpu NAME|all: a measured run's throughput on other GPUs."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.catalog_options import load_reporting, resolve_gpu
from engine.cli.common import UsageError
from engine.cli.output import print_json
from engine.cli.result_options import load_result
from engine.cli.tables import number, table
from engine.pricing.catalog import Catalog
from engine.pricing.compare import measured_on, throughput_on
from engine.pricing.compare_rows import measured_elsewhere
from engine.pricing.device import device_label
from engine.pricing.projection import Basis, Projection
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
    """Each target's throughput as compare finds it (measured there, from `listing`, a
    Store.list(), or this run; else projected), or a no_estimate saying why."""
    basis = Basis.of(cat)
    runs = [] if listing is None else measured_elsewhere(listing, result)
    on_gpu = measured_on(result, cat, runs)
    out = []
    for target in targets:
        found = throughput_on(result, cat, target, None, on_gpu, basis)
        out.append(
            (target, Projection("no_estimate", basis=found) if isinstance(found, str) else found)
        )
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
        "range_level": proj.range_level,
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
    heads = ["GPU", "status", "samples/s", "range (80%; measured: 95%)", "fits", "basis"]
    print(table(heads, body, right={2, 3}))
    return 0
