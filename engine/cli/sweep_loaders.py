"""epochcost sweep --loader-workers 0,1,2,4: the loader-workers sweep's command line (one
batch size, from --batch-sizes or the default); engine/sweep/loaders.py measures it."""

from __future__ import annotations

import argparse
import sys

from engine.cli import study_progress
from engine.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RUN_FAILED,
    EXIT_USAGE,
    config_from_args,
    worker_spec,
)
from engine.cli.data_options import worker_counts
from engine.cli.output import print_json
from engine.core.errors import ConfigError
from engine.results.store import Store
from engine.sweep.batch_sizes import parse_batch_sizes
from engine.sweep.loaders import LoaderSweep, loader_summary, text


def handle(args: argparse.Namespace) -> int:
    sizes = parse_batch_sizes(args.batch_sizes) if args.batch_sizes else ()
    if len(sizes) > 1 or args.max_fit:
        raise ConfigError(
            "loader_workers", "a loader-workers sweep measures one batch: give --batch-sizes N"
        )
    overrides = {"batch_size": sizes[0]} if sizes else {}
    config = config_from_args(args, **overrides)
    store = None if args.no_store else Store()
    on_stderr = (lambda line: print(line, file=sys.stderr)) if args.verbose else None
    sweep = LoaderSweep(
        config,
        worker_counts(args.loader_workers),
        store=store,
        spec=worker_spec(args, config.framework),
        on_stderr=on_stderr,
    )
    summary = loader_summary(study_progress.follow(sweep.study), sweep.config)
    if args.json:
        print_json(summary.to_dict())
    else:
        print(text(summary))
    failed = [p for p in summary.points if p.status == "config"]
    if failed:
        print(f"epochcost: error: {failed[0].message}", file=sys.stderr)
        return EXIT_USAGE
    if summary.status == "cancelled":
        return EXIT_INTERRUPTED
    ok = any(p.status == "ok" for p in summary.points)
    return EXIT_OK if ok and not sweep.unstored else EXIT_RUN_FAILED
