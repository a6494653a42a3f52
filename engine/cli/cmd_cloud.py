"""epochcost cloud run|sweep|collect: measure on rented instances through SkyPilot (docs/cloud.md).

`cloud run` builds the SkyPilot task of a run (engine/cloud/task.py), prints it with its price
and estimate (--dryrun, which needs no credentials and no network), or launches it, follows it,
brings the result home and tears the cluster down (engine/cloud/launch.py). `cloud collect`
imports a job log saved by hand. Both keep the result like a local run (engine/results/saving).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cli.catalog_options import check_clouds, check_gpu, load_reporting
from engine.cli.common import (
    EXIT_OK,
    EXIT_RUN_FAILED,
    UsageError,
    add_run_options,
    config_from_args,
)
from engine.cli.file_options import out_file
from engine.cli.output import Progress, print_json
from engine.cloud import collect, dryrun, launch, log, signals, task
from engine.cloud import sweep as cloud_sweep
from engine.cloud.resources import measurable
from engine.cloud.skypilot import SkyPilot
from engine.core import paths
from engine.pricing.catalog import Catalog
from engine.pricing.compare import CompareOptions, CompareRow, compare
from engine.pricing.compare_rows import measured_elsewhere
from engine.pricing.profiles import find_instance
from engine.pricing.rows import Instance
from engine.results import report, saving
from engine.results.files import check_out_path
from engine.results.store import Store


@dataclass(frozen=True)
class Prepared:
    """One run made ready: the run on its instance, its task, the dry run's plan."""

    cloud: task.CloudRun
    mapping: dict[str, Any]
    plan: dict[str, Any]


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
    run.add_argument(
        "--cluster",
        metavar="NAME",
        default=None,
        help="measure on this cluster, which is up (sky exec); it is not torn down",
    )
    run.add_argument("--dryrun", action="store_true", help="print the task and estimate; exit")
    run.add_argument("--yes", action="store_true", help="launch without asking")
    sweep = cs.add_parser(
        "sweep", help="one model on several instance types, each torn down when it has measured"
    )
    sweep.add_argument(
        "--instances", required=True, metavar="A,B,C", help="catalog instances (cloud:type)"
    )
    sweep.add_argument("--spot", action="store_true", help="spot instances, at their spot prices")
    add_run_options(sweep)
    sweep.add_argument(
        "--startup-minutes", type=float, default=launch.MIN_STARTUP_MINUTES, metavar="M"
    )
    sweep.add_argument(
        "--home",
        metavar="RUN_ID",
        default=None,
        help="a stored run at home: the sweep ends with its comparison against the instances",
    )
    sweep.add_argument(
        "--parallel",
        type=int,
        default=1,
        metavar="N",
        help=f"up to N clusters at a time (1 to {cloud_sweep.MAX_PARALLEL}; default 1)",
    )
    sweep.add_argument("--dryrun", action="store_true", help="print the plan and the total; exit")
    sweep.add_argument("--yes", action="store_true", help="launch without asking")
    sweep.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    sweep.add_argument("--no-store", action="store_true", help="do not add them to the store")
    sweep.set_defaults(handler=_sweep, nodes=1, cluster=None, out=None)
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
    """--instance, or the cheapest current machine with --gpu (fewest GPUs first) that a cloud
    run can measure on (engine/cloud/resources.py: a host VM with its GPUs, CUDA)."""
    if args.instance is not None:
        if args.cloud:
            raise UsageError("cloud", "--cloud goes with --gpu; --instance names its cloud")
        return find_instance(cat, args.instance)
    check_gpu(cat, args.gpu)
    clouds = check_clouds(cat, args.cloud)
    rows = [
        i
        for i in cat.select(clouds, args.gpu)
        if measurable(i) and (not args.spot or i.usd_per_hour_spot is not None)
    ]
    if not rows:
        spot = " with a spot price" if args.spot else ""
        raise UsageError("gpu", f"no machine with {args.gpu!r}{spot} to measure on in the catalog")
    key = (lambda i: (i.gpu_count, i.usd_per_hour_spot)) if args.spot else None
    return min(rows, key=key or (lambda i: (i.gpu_count, i.usd_per_hour)))


def _prepare(args: argparse.Namespace, instances: list[Instance] | None = None) -> list[Prepared]:
    """The run on each instance (--instance or --gpu where none are given), its task, and
    SkyPilot's verdict on it, asked once for all of them (refused: ConfigError)."""
    if args.price_per_hour is not None:
        raise UsageError("price_per_hour", "a cloud run is priced at its instance's catalog price")
    if not 0 <= args.startup_minutes <= 24 * 60:
        raise UsageError("startup_minutes", f"{args.startup_minutes:g}: give 0 to 1440 minutes")
    cat = load_reporting()
    config = config_from_args(args)
    task.check_device(config)
    runs = []
    for instance in instances or [choose_instance(cat, args)]:
        cloud = task.prepare(cat, instance, config, args.spot, args.nodes, time.time())
        runs.append((cloud, task.task_mapping(cloud)))
    verdicts = dryrun.all_accepted(cat, runs)
    return [
        Prepared(cloud, mapping, dryrun.plan(cloud, mapping, verdict, args.startup_minutes))
        for (cloud, mapping), verdict in zip(runs, verdicts, strict=True)
    ]


def _print_dryrun(plan: dict[str, Any]) -> None:
    print("# SkyPilot task (SkyPilot's own loader, Resources validation and optimizer accept it)")
    print(plan["yaml"].rstrip())
    chosen = plan["skypilot"]
    if chosen.get("chosen"):
        sky_price = chosen.get("usd_per_hour")
        priced = f" at ${sky_price:,.4g}/h" if sky_price is not None else ""
        print(f"# SkyPilot's optimizer chooses: {chosen['chosen']}{priced}")
    print(
        f"# launch: down=True (the cluster terminates when the job ends), autostop (down) after "
        f"{plan['launch']['idle_minutes_to_autostop']} idle minutes, set at provisioning"
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
    (prepared,) = _prepare(args)
    plan = prepared.plan
    if args.dryrun:
        print_json(plan) if args.json else _print_dryrun(plan)
        return EXIT_OK
    if args.out is not None:
        check_out_path(args.out)
    _confirm(args, plan)
    outcome = _launch(args, prepared)
    if outcome.result is None:
        print(f"epochcost: error: {outcome.message}", file=sys.stderr)
        return EXIT_RUN_FAILED
    code = _keep(args, outcome.result)
    if outcome.message:
        print(f"epochcost: {outcome.message}", file=sys.stderr)
        return EXIT_RUN_FAILED
    return code


def _launch(args: argparse.Namespace, prepared: Prepared) -> launch.Outcome:
    """Launch to teardown, SkyPilot's lines on stderr (stdout stays the result's)."""
    cloud = prepared.cloud
    folder = paths.home() / "cloud-logs"
    folder.mkdir(parents=True, exist_ok=True)
    progress = Progress(label=f"{cloud.instance.label} {cloud.config.model}")
    with signals.stopping():
        outcome = launch.run(
            cloud,
            prepared.mapping,
            connect(),
            folder,
            lambda line: print(line, file=sys.stderr),
            progress,
            cluster=args.cluster,
            existing=args.cluster is not None,
        )
    progress.done()
    return outcome


def _sweep(args: argparse.Namespace) -> int:
    """Each instance's dry run (SkyPilot's verdict), the total; then, unless --dryrun, one
    launch after another, each torn down when it has measured, and the table of results."""
    cat = load_reporting()
    names = [n.strip() for n in args.instances.split(",")]
    if not names or any(not n for n in names) or len(set(names)) != len(names):
        raise UsageError("instances", f"{args.instances!r}: give distinct instances, A,B,C")
    if not 1 <= args.parallel <= cloud_sweep.MAX_PARALLEL:
        raise UsageError("parallel", f"{args.parallel}: give 1 to {cloud_sweep.MAX_PARALLEL}")
    args.instance, args.gpu, args.cloud = None, None, None
    home = Store(readonly=True).get(args.home) if args.home is not None else None
    prepared = _prepare(args, [find_instance(cat, name) for name in names])
    total = sum(p.plan["estimated_usd"] for p in prepared)
    minutes = sum(p.plan["estimated_minutes"] for p in prepared)
    if args.dryrun or not args.json:
        _print_sweep(prepared, total, minutes, args.json)
    if args.dryrun:
        return EXIT_OK
    _confirm(
        args, {"estimated_usd": total, "usd_per_hour": max(p.cloud.usd_per_hour for p in prepared)}
    )
    folder = paths.home() / "cloud-logs"
    folder.mkdir(parents=True, exist_ok=True)
    outcomes = cloud_sweep.run_all(
        [(p.cloud, p.mapping) for p in prepared],
        connect,
        folder,
        lambda line: print(line, file=sys.stderr),
        Progress(label=f"{len(prepared)} instances"),
        args.parallel,
    )
    results: list[dict[str, Any]] = []
    code = EXIT_OK if len(outcomes) == len(prepared) else EXIT_RUN_FAILED
    for one, outcome in zip(prepared, outcomes, strict=False):
        if outcome.message:
            print(f"epochcost: {one.cloud.instance.label}: {outcome.message}", file=sys.stderr)
            code = EXIT_RUN_FAILED
        if outcome.result is not None:
            saving.keep(outcome.result, None if args.no_store else Store, None)
            results.append(outcome.result)
    if len(outcomes) < len(prepared):
        left = ", ".join(p.cloud.instance.label for p in prepared[len(outcomes) :])
        print(f"epochcost: stopped: not launched: {left}", file=sys.stderr)
    rows = _against_home(cat, home, [p.cloud.instance for p in prepared]) if home else []
    if args.json:
        print_json({"results": results, "against_home": [r.to_row() for r in rows]})
    else:
        for result in results:
            print(report.summary(result))
            print(collect.describe(result))
        if home is not None:
            _print_against_home(home, rows)
    return code


def _against_home(
    cat: Catalog, home: dict[str, Any], instances: list[Instance]
) -> list[CompareRow]:
    """The home run's comparison (engine/pricing/compare.py, as `epochcost compare` makes it,
    measured where a stored run ran on that GPU), its own row and the swept instances'."""
    elsewhere = measured_elsewhere(Store(readonly=True).list(), home)
    comparison = compare(home, cat, CompareOptions(), elsewhere)
    keys = {(i.cloud, i.instance_type, i.region) for i in instances}
    return [r for r in comparison.rows if r.local or (r.cloud, r.instance_type, r.region) in keys]


def _print_against_home(home: dict[str, Any], rows: list[CompareRow]) -> None:
    print(f"against the home run {home['run_id']} (epochcost compare {home['run_id']}):")
    print(f"{'machine':34} {'samples/s':>10} {'$/h':>8} {'$/epoch':>9}  basis")
    for r in rows:
        name = "this machine" if r.local else f"{r.cloud} {r.instance_type}"
        rate = "-" if r.throughput_samples_per_s is None else f"{r.throughput_samples_per_s:,.1f}"
        per_h = "-" if r.usd_per_hour is None else f"{r.usd_per_hour:.4g}"
        epoch = "-" if r.usd_per_epoch is None else f"{r.usd_per_epoch:.4g}"
        print(f"{name:34} {rate:>10} {per_h:>8} {epoch:>9}  {r.status}")


def _print_sweep(prepared: list[Prepared], total: float, minutes: float, as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "instances": [p.plan for p in prepared],
                "estimated_usd": round(total, 4),
                "estimated_minutes": round(minutes, 2),
            }
        )
        return
    print(f"{'instance':34} {'$/h':>9} {'SkyPilot':>9} {'minutes':>8} {'about $':>8}")
    for p in prepared:
        plan = p.plan
        sky_price = plan["skypilot"].get("usd_per_hour")
        sky = f"{sky_price:9.4g}" if sky_price is not None else f"{'-':>9}"
        print(
            f"{p.cloud.instance.label:34} {plan['usd_per_hour']:9.4g} {sky} "
            f"{plan['estimated_minutes']:8.1f} {plan['estimated_usd']:8.2f}"
        )
    print(f"{'total':34} {'':9} {'':9} {minutes:8.1f} {total:8.2f}")
    print("each cluster is launched when the one before it is torn down (or --parallel N)")


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
    result = collect.from_log(job, instance, price, args.spot, args.nodes, catalog=cat)
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
