"""epochcost run: one timed training run in a worker process, stored and summarised."""

from __future__ import annotations

import argparse
import sys

from engine.cli.common import (
    EXIT_OK,
    EXIT_RUN_FAILED,
    add_distributed_options,
    add_run_options,
    config_from_args,
    distributed_fields,
    run_worker,
    usage_error,
    worker_spec,
)
from engine.cli.file_options import out_file
from engine.cli.output import Progress, print_json
from engine.cli.profile_options import add_profile_option, apply_profile_price
from engine.measure.result import failed_result
from engine.results import report, saving
from engine.results.files import check_out_path
from engine.results.store import Store
from engine.workloads.data import source as data_source


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="measure throughput, memory fill and cost of one config")
    add_run_options(p)
    p.add_argument(
        "--nproc",
        type=int,
        default=1,
        help="data-parallel processes on this machine, one device each (docs/scaling.md)",
    )
    add_distributed_options(p)
    add_profile_option(p)
    p.add_argument("--out", type=out_file, help="also write the result to this JSON file")
    p.add_argument("--json", action="store_true", help="print exactly one JSON result on stdout")
    p.add_argument("--no-store", action="store_true", help="do not add the result to the store")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    apply_profile_price(args)
    config = config_from_args(args, nproc=args.nproc, **distributed_fields(args))
    data_source.samples(config.data_spec)  # a folder's every class and image, before a worker
    if args.out is not None:
        check_out_path(args.out)
    store = None if args.no_store else Store()
    progress = Progress(label=f"{config.model} b{config.batch_size}")
    result, failure, env = run_worker(
        config, verbose=args.verbose, progress=progress, spec=worker_spec(args, config.framework)
    )
    if result is None:
        assert failure is not None
        if failure.kind == "config":
            if failure.traceback and args.verbose:
                print(failure.traceback, file=sys.stderr)
            raise usage_error(failure.message)
        result = failed_result(failure, config, env)
    kept = saving.keep(result, store, args.out)
    if args.json or kept.lost:  # with nowhere to keep it, the result itself is printed
        print_json(result)
    if not args.json:
        print(report.summary(result))
    if kept.problems:
        print(f"epochcost: error: {kept.message()}", file=sys.stderr)
        return EXIT_RUN_FAILED
    if result["status"] != "ok":
        if failure is not None and failure.traceback and args.verbose:
            print(failure.traceback, file=sys.stderr)
        print(f"epochcost: run {result['status']}: {result['error']['message']}", file=sys.stderr)
        return EXIT_RUN_FAILED
    return EXIT_OK
