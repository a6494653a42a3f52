"""epochcost cloud run|collect: measure on a rented instance through SkyPilot (docs/cloud.md).

`cloud run` builds the SkyPilot task of a run (engine/cloud/task.py), prints it with its price
and estimate (--dryrun, which needs no credentials and no network), or launches it, follows it,
brings the result home and tears the cluster down (engine/cloud/launch.py). `cloud collect`
imports a job log saved by hand. Both keep the result like a local run (engine/results/saving).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from engine.cli.cmd_catalog import check_clouds, check_gpu, load_reporting
from engine.cli.common import (
    EXIT_OK,
    EXIT_RUN_FAILED,
    Progress,
    UsageError,
    add_run_options,
    config_from_args,
    print_json,
)
from engine.cli.file_options import out_file
from engine.cloud import collect, launch, log, task
from engine.cloud.skypilot import SkyPilot
from engine.core import paths
from engine.pricing.catalog import Catalog, price_note
from engine.pricing.profiles import find_instance
from engine.pricing.rows import Instance
from engine.results import report, saving
from engine.results.files import check_out_path
from engine.results.store import Store


def connect() -> SkyPilot:
    """The one object that reaches a cloud (tests replace this function alone)."""
    return SkyPilot()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cloud", help="measure on a rented cloud instance through SkyPilot")
    cs = p.add_subparsers(dest="action", required=True, metavar="WHAT")
    run = cs.add_parser("run", help="launch a run on a cloud instance (or print it: --dryrun)")
    which = run.add_mutually_exclusive_group(required=True)
    which.add_argument("--instance", metavar="ID", help="a catalog instance: cloud:type or type")
    which.add_argument("--gpu", metavar="NAME", help="the cheapest catalog instance of this GPU")
    run.add_argument("--cloud", default=None, help="with --gpu: comma-separated clouds")
    run.add_argument("--spot", action="store_true", help="a spot instance, at its spot price")
    add_run_options(run)
    run.add_argument("--nodes", type=int, default=1, help="data-parallel over N nodes (torchrun)")
    run.add_argument(
        "--startup-minutes",
        type=float,
        default=launch.MIN_STARTUP_MINUTES,
        metavar="M",
        help=f"start-up the estimate assumes (default {launch.MIN_STARTUP_MINUTES:g})",
    )
    run.add_argument("--dryrun", action="store_true", help="print the task and estimate; exit")
    run.add_argument("--yes", action="store_true", help="launch without asking")
    col = cs.add_parser("collect", help="import a saved job log of a cloud run")
    col.add_argument("log", type=Path, metavar="LOG", help="the job's log (sky logs CLUSTER)")
    col.add_argument("--instance", metavar="ID", required=True, help="what it ran on")
    col.add_argument("--spot", action="store_true", help="it ran on spot, at the spot price")
    col.add_argument("--nodes", type=int, default=1, help="nodes it ran on")
    for q in (run, col):
        q.add_argument("--out", type=out_file, help="also write the result to this JSON file")
        q.add_argument("--json", action="store_true", help="print one JSON object on stdout")
        q.add_argument("--no-store", action="store_true", help="do not add it to the store")
    run.set_defaults(handler=_run)
    col.set_defaults(handler=_collect)


def choose_instance(cat: Catalog, args: argparse.Namespace) -> Instance:
    """--instance, or the cheapest current whole instance with --gpu (fewest GPUs first)."""
    if args.instance:
        if args.cloud:
            raise UsageError("cloud", "--cloud goes with --gpu; --instance names its cloud")
        return find_instance(cat, args.instance)
    check_gpu(cat, args.gpu)
    clouds = check_clouds(cat, args.cloud)
    rows = [
        i
        for i in cat.select(clouds, args.gpu)
        if i.gpu_count >= 1 and (not args.spot or i.usd_per_hour_spot is not None)
    ]
    if not rows:
        spot = " with a spot price" if args.spot else ""
        raise UsageError("gpu", f"no whole instance of {args.gpu!r}{spot} in the catalog")
    key = (lambda i: (i.gpu_count, i.usd_per_hour_spot)) if args.spot else None
    return min(rows, key=key or (lambda i: (i.gpu_count, i.usd_per_hour)))


def _prepare(args: argparse.Namespace) -> tuple[task.CloudRun, Any, dict[str, Any]]:
    if args.price_per_hour is not None:
        raise UsageError("price_per_hour", "a cloud run is priced at its instance's catalog price")
    cat = load_reporting()
    instance = choose_instance(cat, args)
    if not 0 <= args.startup_minutes <= 24 * 60:
        raise UsageError("startup_minutes", f"{args.startup_minutes:g}: give 0 to 1440 minutes")
    config = config_from_args(args)
    cloud = task.prepare(cat, instance, config, args.spot, args.nodes, time.time())
    sky_task = task.sky_task(cloud)
    return cloud, sky_task, task.task_mapping(sky_task)


def dryrun(cloud: task.CloudRun, mapping: dict[str, Any], startup_minutes: float) -> dict:
    """What --dryrun --json prints: the task, its $/h with source and date, the estimate."""
    minutes = launch.estimate_minutes(cloud, startup_minutes)
    price = cloud.price
    return {
        "task": mapping,
        "launch": {"down": True, "idle_minutes_to_autostop": launch.IDLE_MINUTES},
        "usd_per_hour": cloud.usd_per_hour,
        "price": price.to_dict(),
        "price_note": price_note(cloud.price.as_of or ""),
        "estimated_minutes": round(minutes, 2),
        "startup_minutes": startup_minutes,
        "estimated_usd": round(cloud.usd_per_hour * minutes / 60.0, 4),
    }


def _print_dryrun(plan: dict[str, Any]) -> None:
    print("# SkyPilot task (built with sky.Task and sky.Resources; SkyPilot's schemas pass it)")
    print(task.to_yaml(plan["task"]).rstrip())
    print(
        f"# launch: down=True (the cluster terminates when the job ends), autostop after "
        f"{plan['launch']['idle_minutes_to_autostop']} idle minutes"
    )
    price = plan["price"]
    note = f" [{plan['price_note']}]" if plan["price_note"] else ""
    dated = f", {price['as_of']}" if price["as_of"] else ""
    print(f"# price: ${plan['usd_per_hour']:,.4g}/h ({price['source']}{dated}){note}")
    run_minutes = plan["estimated_minutes"] - plan["startup_minutes"]
    print(
        f"# estimate: start-up ~{plan['startup_minutes']:g} min + run ~{run_minutes:.1f} min = "
        f"{plan['estimated_minutes']:.1f} min, about ${plan['estimated_usd']:.2f}"
    )


def _run(args: argparse.Namespace) -> int:
    cloud, sky_task, mapping = _prepare(args)
    plan = dryrun(cloud, mapping, args.startup_minutes)
    if args.dryrun:
        print_json(plan) if args.json else _print_dryrun(plan)
        return EXIT_OK
    if args.out is not None:
        check_out_path(args.out)
    _confirm(args, plan)
    folder = paths.home() / "cloud-logs"
    folder.mkdir(parents=True, exist_ok=True)
    progress = Progress(label=f"{cloud.instance.label} {cloud.config.model}")
    outcome = launch.run(
        cloud,
        sky_task,
        connect(),
        folder,
        lambda line: print(line, file=sys.stderr),
        progress,
    )
    progress.done()
    if outcome.result is None:
        print(f"epochcost: error: {outcome.message}", file=sys.stderr)
        return EXIT_RUN_FAILED
    code = _keep(args, outcome.result)
    if outcome.message:
        print(f"epochcost: {outcome.message}", file=sys.stderr)
        return EXIT_RUN_FAILED
    return code


def _confirm(args: argparse.Namespace, plan: dict[str, Any]) -> None:
    what = f"about ${plan['estimated_usd']:.2f} (${plan['usd_per_hour']:,.4g}/h)"
    if args.yes:
        return
    if not sys.stdin.isatty():
        raise UsageError("yes", f"a launch bills {what}: add --yes to launch, --dryrun to look")
    answer = input(f"Launch it? It bills {what}. [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        raise UsageError("yes", "not launched")


def _collect(args: argparse.Namespace) -> int:
    if args.out is not None:
        check_out_path(args.out)
    cat = load_reporting()
    instance = find_instance(cat, args.instance)
    if not 1 <= args.nodes <= 64:
        raise UsageError("nodes", f"{args.nodes}: give 1 to 64 nodes")
    price = task.cluster_price(instance, args.spot, args.nodes)
    job = log.read(args.log)
    result = collect.from_log(job, instance, price, args.spot, args.nodes)
    return _keep(args, result)


def _keep(args: argparse.Namespace, result: dict[str, Any]) -> int:
    kept = saving.keep(result, None if args.no_store else Store, args.out)
    if args.json or kept.lost:
        print_json(result)
    if not args.json:
        print(report.summary(result))
        print(collect.describe(result))
    if kept.problems:
        print(f"epochcost: error: {kept.message()}", file=sys.stderr)
        return EXIT_RUN_FAILED
    if result["status"] != "ok":
        print(f"epochcost: run {result['status']}: {result['error']['message']}", file=sys.stderr)
        return EXIT_RUN_FAILED
    return EXIT_OK
