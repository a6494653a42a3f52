"""epochcost scaling: throughput at several data-parallel process counts, and the efficiency
against perfect scaling at each (docs/scaling.md).

Exit codes: 0 every count measured, 2 bad input, 3 a count failed (the others are kept and
stored), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys

from engine.cli import study_progress
from engine.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RUN_FAILED,
    EXIT_USAGE,
    add_run_options,
    config_from_args,
    worker_spec,
)
from engine.cli.output import print_json
from engine.cli.profile_options import add_profile_option, apply_profile_price
from engine.results.store import Store
from engine.sweep.scaling import ScalingStudy, parse_counts


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "scaling",
        help="throughput at several data-parallel process counts, and the scaling efficiency",
        description="Runs the same training at each process count (torch.distributed.run, "
        "one device per process; 1 is a plain run) and stores them as one group.",
    )
    add_run_options(p)
    add_profile_option(p)
    p.add_argument(
        "--nproc",
        required=True,
        metavar="LIST",
        help="process counts on this machine, as 1,2,4,8",
    )
    p.add_argument("--json", action="store_true", help="print exactly one JSON summary on stdout")
    p.add_argument("--no-store", action="store_true", help="do not add the results to the store")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    apply_profile_price(args)
    counts = parse_counts(args.nproc)
    config = config_from_args(args)
    store = None if args.no_store else Store()
    on_stderr = (lambda line: print(line, file=sys.stderr)) if args.verbose else None
    study = ScalingStudy(
        config, counts, store=store, spec=worker_spec(args, config.framework), on_stderr=on_stderr
    )
    study_progress.follow(study.study)
    summary = study.summary()
    if args.json:
        print_json(summary)
    else:
        print(text(summary))
    for problem in study.unstored:
        print(f"epochcost: error: {problem}", file=sys.stderr)
    if summary["status"] == "cancelled":
        return EXIT_INTERRUPTED
    if study.error:
        print(f"epochcost: error: {study.error['message']}", file=sys.stderr)
        return EXIT_USAGE
    if summary["status"] != "completed" or study.unstored:
        return EXIT_RUN_FAILED
    return EXIT_OK


def text(summary: dict) -> str:
    """The study as a small table: processes, throughput, efficiency."""
    lines = [
        f"{summary['model']} | {summary['framework']} | {summary['device']} | batch "
        f"{summary['batch_size_per_process']} per process | {summary['precision']} | "
        f"{summary['status']} | group {summary['group_id']}",
        f"{'processes':>9s}  {'samples/s':>12s}  {'efficiency':>10s}",
    ]
    for p in summary["points"]:
        rate = f"{p['samples_per_s']:,.1f}" if p["samples_per_s"] else p["status"]
        eff = f"{p['efficiency']:.0%}" if p["efficiency"] is not None else "-"
        lines.append(f"{p['nproc']:>9d}  {rate:>12s}  {eff:>10s}")
    lines.append("efficiency: throughput / (the smallest count's x processes / its count)")
    return "\n".join(lines)
