"""epochcost catalog instances|gpus|grid|files|update: the price and hardware catalog, with
sources; `update` refreshes instance prices from SkyPilot's catalog (engine/cloud/prices.py)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from engine.cli.catalog_options import check_clouds, load_reporting
from engine.cli.common import EXIT_RUN_FAILED
from engine.cli.output import print_json
from engine.cli.tables import Footnotes, number, table
from engine.core import paths
from engine.pricing import catalog as catalog_module
from engine.pricing.rows import KINDS, Instance


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("catalog", help="cloud prices, GPU specs, grid carbon: list and search")
    cs = p.add_subparsers(dest="action", required=True, metavar="WHAT")
    inst = cs.add_parser("instances", help="rentable machines with their price, source and date")
    inst.add_argument("--cloud", default=None, help="comma-separated: aws,gcp,azure,...")
    inst.add_argument("--gpu", default=None, help="GPU name or part of it (V100, a100, 4090)")
    inst.add_argument("--notes", action="store_true", help="each row's notes under it")
    inst.add_argument(
        "--historical",
        choices=("no", "yes", "both"),
        default="both",
        help="the 2016-2018 prices of published studies (default both)",
    )
    gpus = cs.add_parser("gpus", help="GPU peak rates, memory, TDP, launch price")
    grid = cs.add_parser("grid", help="carbon intensity of cloud regions' grids")
    files = cs.add_parser("files", help="where the shipped and your own catalog files are")
    update = cs.add_parser("update", help="today's instance prices from SkyPilot's catalog")
    update.add_argument(
        "--from",
        dest="source",
        type=Path,
        default=None,
        metavar="DIR",
        help="offline: a folder in SkyPilot's layout, <cloud>/vms.csv (default: fetch them)",
    )
    update.add_argument("--json", action="store_true")
    update.set_defaults(handler=_update)
    for q in (inst, gpus, grid):
        q.add_argument("--search", default=None, metavar="TEXT", help="words every row must hold")
    for q in (inst, gpus, grid, files):
        q.add_argument("--json", action="store_true")
    inst.set_defaults(handler=_instances)
    gpus.set_defaults(handler=_gpus)
    grid.set_defaults(handler=_grid)
    files.set_defaults(handler=_files)


def _instances(args: argparse.Namespace) -> int:
    cat = load_reporting()
    historical = {"no": False, "yes": True, "both": None}[args.historical]
    clouds = check_clouds(cat, args.cloud)
    rows = cat.select(clouds, args.gpu, args.search, historical=historical, full_only=False)
    if args.json:
        print_json(
            [
                {**asdict(r), "full_instance": r.full_instance, "price_note": price_note(r)}
                for r in rows
            ]
        )
        return 0
    notes = Footnotes()
    body = [
        [
            r.cloud,
            r.region or "-",
            r.instance_type,
            f"{r.gpu_model or 'CPU'} x{r.gpu_count:g}" if r.gpu_count else "CPU only",
            number(r.gpu_memory_gib_per_gpu),
            f"{r.usd_per_hour:g}",
            "-" if r.usd_per_hour_spot is None else f"{r.usd_per_hour_spot:g}",
            r.price_component + (" (historical)" if r.historical else ""),
            "!" if r.flagged else "",
            (r.price_date or "-") + _age(r) + " " + notes.mark(r.source + _origin(r.origin)),
        ]
        for r in rows
    ]
    headers = ["cloud", "region", "instance", "GPU", "GiB/GPU", "$/h", "spot $/h", "price", "!"]
    lines = table([*headers, "date [source]"], body, right={4, 5, 6}).split("\n")
    print(lines[0])
    for r, line in zip(rows, lines[1:], strict=True):
        print(line)
        if args.notes and r.notes:
            print(f"    notes: {r.notes}")
    print(f"\n{len(rows)} instances. Sources:")
    print("\n".join(notes.lines()))
    print(
        "A gpu_only or vm_only price is part of a machine (a GCP GPU or host VM alone), not a "
        "whole instance; historical rows are the 2016-2018 prices of published studies."
    )
    if not args.notes:
        print("! the source flags the row (price anomaly, retired family, partial data): --notes")
    return 0


def _origin(origin: str) -> str:
    return {"user": " (your catalog)", "fetched": " (catalog update)"}.get(origin, "")


def price_note(row: Instance) -> str:
    """A current price's age note ("45 days old", "undated"); "" for a recent or historical
    one (a historical row's age is its point)."""
    return "" if row.historical else catalog_module.price_note(row.price_date)


def _age(row: Instance) -> str:
    note = price_note(row)
    return f" ({note})" if note and note != "undated" else ""


def _update(args: argparse.Namespace) -> int:
    from engine.cloud import prices

    failed: dict[str, str] = {}
    if args.source is not None:
        reports = prices.update_from(args.source)
    else:
        from engine.cloud.skypilot import cloud_python

        cloud_python()  # the cloud environment, or a message saying how to make it
        clouds = sorted({i.cloud for i in load_reporting().instances if i.origin != "user"})
        fetched = prices.update_online(clouds)
        reports, failed = fetched.reports, fetched.failed
    for cloud, why in failed.items():
        print(f"epochcost: {cloud}: not updated, its prices kept: {why}", file=sys.stderr)
    if args.json:
        print_json(
            {
                "file": str(catalog_module.fetched_file()),
                "clouds": [asdict(r) for r in reports],
                "failed": failed,
            }
        )
        return EXIT_RUN_FAILED if failed else 0
    for r in reports:
        print(
            f"{r.cloud}: {r.updated} prices from {r.path}, dated {r.as_of} ({r.changed} changed; "
            f"{r.missing} catalog instances not in the file keep their price)"
        )
        age = catalog_module.price_note(r.as_of)
        if age:
            print(f"  note: these prices are {age}: fetch newer files for today's")
    print(f"written to {catalog_module.fetched_file()} (the shipped snapshot stays the fallback)")
    return EXIT_RUN_FAILED if failed else 0


def _gpus(args: argparse.Namespace) -> int:
    cat = load_reporting()
    rows = [g for g in cat.gpus if not args.search or catalog_module._matches(args.search, g)]
    if args.json:
        print_json([{**asdict(g), "supports_bf16": g.supports_bf16} for g in rows])
        return 0
    notes = Footnotes()
    body = [
        [
            g.name,
            g.architecture,
            number(g.memory_gb, 0),
            number(g.memory_bandwidth_gbs, 0),
            number(g.fp32_tflops),
            number(g.fp16_bf16_tensor_tflops_dense),
            number(g.tdp_w, 0),
            number(g.launch_price_usd, 0),
            (g.release_date or "-") + " " + notes.mark(g.sources + _origin(g.origin)),
        ]
        for g in rows
    ]
    headers = ["GPU", "architecture", "GB", "GB/s", "FP32 TF", "tensor TF", "TDP W", "launch $"]
    print(table([*headers, "released [source]"], body, right={2, 3, 4, 5, 6, 7}))
    print(f"\n{len(rows)} GPUs. Tensor TF: dense FP16/BF16 (blank: not in the sources). Sources:")
    print("\n".join(notes.lines()))
    return 0


def _grid(args: argparse.Namespace) -> int:
    cat = load_reporting()
    rows = [g for g in cat.grid if not args.search or catalog_module._matches(args.search, g)]
    if args.json:
        print_json([asdict(g) for g in rows])
        return 0
    notes = Footnotes()
    body = [
        [
            g.provider,
            g.region or "-",
            g.region_name,
            number(g.ci_gco2e_per_kwh, 0),
            number(g.pue, 2),
            notes.mark(f"{g.ci_source_dataset}, {g.ci_data_vintage}" + _origin(g.origin)),
        ]
        for g in rows
    ]
    print(table(["provider", "region", "name", "gCO2e/kWh", "PUE", "source"], body, right={3, 4}))
    print(f"\n{len(rows)} regions. Sources:")
    print("\n".join(notes.lines()))
    return 0


def _files(args: argparse.Namespace) -> int:
    cat = load_reporting()
    shipped = paths.assets()
    user = catalog_module.user_dir()
    shipped_files = {k: str(shipped / v) for k, v in catalog_module.SHIPPED.items()}
    user_files = {k: str(user / f"{k}.csv") for k in KINDS}
    if args.json:
        problems = [asdict(p) for p in cat.problems]
        print_json({"shipped": shipped_files, "user": user_files, "problems": problems})
        return 0
    print("shipped (never written by epochcost; see assets/README.md):")
    for path in shipped_files.values():
        print(f"  {path}")
    print("yours (same columns; a row with a shipped row's key replaces it):")
    for kind, path in user_files.items():
        there = "" if (user / f"{kind}.csv").exists() else "  (not created yet)"
        print(f"  {path}{there}")
    print(f"{len(cat.problems)} problem(s)" + (" (listed above)" if cat.problems else ""))
    return 0
