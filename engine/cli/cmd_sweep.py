"""epochcost sweep: throughput, memory fill and $/epoch across batch sizes (the max fit, too),
or across any axis of engine/study (--axis loader-workers|processes|precision|power-limit).

Exit codes: 0 the sweep completed (a batch that does not fit is data), 2 bad input, 3 no trial
trained (or the search stopped on an error that is not an out-of-memory), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
import time

from engine.cli import sweep_axes, sweep_loaders
from engine.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RUN_FAILED,
    EXIT_USAGE,
    UsageError,
    add_run_options,
    config_from_args,
    option_name,
    worker_spec,
)
from engine.cli.data_options import worker_counts
from engine.cli.output import Progress, print_json
from engine.cli.owned_options import add_owned_options
from engine.cli.profile_options import add_profile_option, apply_profile_price
from engine.core.events import Event, Phase, Step
from engine.core.placeholders import worded, worded_data
from engine.results.store import Store
from engine.study.axes import AXES
from engine.sweep import report as sweep_report
from engine.sweep.batch_sizes import parse_batch_sizes
from engine.sweep.events import (
    SearchFinished,
    SweepEvent,
    SweepFinished,
    TrialFinished,
    TrialProgress,
    TrialStarted,
)
from engine.sweep.plan import SweepPlan
from engine.sweep.runner import Sweep
from engine.sweep.summary import SweepSummary


def register(sub: argparse._SubParsersAction) -> None:
    d = SweepPlan()
    p = sub.add_parser(
        "sweep",
        help="measure across batch sizes; find the largest batch that fits and the cheapest",
        description="Without --batch-sizes or --max-fit: the max-fit search, then powers of "
        "two from --start up to the largest batch that fits.",
    )
    add_run_options(p, batch=False)
    add_profile_option(p)
    p.add_argument(
        "--axis",
        choices=tuple(AXES),
        default="batch",
        help="what to vary (default batch): batch, loader-workers, processes (data-parallel), "
        "precision (fp32, tf32, fp16, bf16: what the device can run), power-limit (watts, "
        "NVIDIA GPUs, as root)",
    )
    p.add_argument(
        "--values",
        metavar="LIST",
        help="the axis's values: 16,32,64 or 16:256 (batch); 0,1,2,4 (loader-workers); 1,2,4 "
        "(processes); fp32,bf16 (precision); 150,200,250 (power-limit)",
    )
    owned = p.add_argument_group(
        "owned price", "price each point as owned hardware, its electricity at its own power"
    )
    add_owned_options(
        owned,
        (
            "purchase_usd",
            "usd_per_kwh",
            "power_w",
            "rest_of_system_w",
            "lifetime_years",
            "hours_per_day",
            "psu_efficiency",
        ),
    )
    what = p.add_mutually_exclusive_group()
    what.add_argument(
        "--batch-sizes",
        metavar="LIST",
        help="batch sizes to measure: 16,32,64; 16:256 (doubling); 16:128:16 (steps of 16)",
    )
    what.add_argument(
        "--max-fit",
        action="store_true",
        help="find the largest batch that fits, and a recommended one with a margin",
    )
    p.add_argument("--start", type=int, default=d.start, help=f"first batch (default {d.start})")
    p.add_argument(
        "--multiple",
        type=int,
        default=d.multiple,
        help=f"the search's resolution: batches are multiples of this (default {d.multiple})",
    )
    p.add_argument(
        "--margin",
        type=float,
        default=d.margin,
        help=f"recommended = max fit less this fraction (default {d.margin:g})",
    )
    p.add_argument("--max-batch", type=int, default=None, help="never try a larger batch")
    p.add_argument("--json", action="store_true", help="print exactly one JSON summary on stdout")
    p.add_argument("--no-store", action="store_true", help="do not add the results to the store")
    p.set_defaults(handler=handle, several_loader_workers=True)  # --loader-workers 0,1,2,4


def handle(args: argparse.Namespace) -> int:
    apply_profile_price(args)
    _axis_spellings(args)
    if args.axis == "loader-workers":
        return sweep_loaders.handle(args)
    if args.axis != "batch":
        return sweep_axes.handle(args)
    config = config_from_args(args)
    plan = SweepPlan(
        batch_sizes=parse_batch_sizes(args.batch_sizes) if args.batch_sizes is not None else (),
        max_fit=args.max_fit,
        start=args.start,
        multiple=args.multiple,
        margin=args.margin,
        max_batch=args.max_batch,
    ).validated()
    store = None if args.no_store else Store()
    on_stderr = (lambda line: print(line, file=sys.stderr)) if args.verbose else None
    spec = worker_spec(args, config.framework)
    sweep = Sweep(config, plan, store=store, spec=spec, on_stderr=on_stderr)
    summary = _follow(sweep, _Progress())
    # The notes ask for values by field ("{max_batch}"): here they name the options.
    if args.json:
        print_json(worded_data(summary.to_dict(), option_name))
    else:
        print(worded(sweep_report.text(summary), option_name))
    if sweep.unstored:
        for problem in sweep.unstored:
            print(f"epochcost: error: {problem}", file=sys.stderr)
        return EXIT_RUN_FAILED
    return _exit_code(summary)


def _axis_spellings(args: argparse.Namespace) -> None:
    """--batch-sizes and --loader-workers LIST are spellings of --axis with --values."""
    if args.loader_workers is not None and args.axis == "batch" and args.values is None:
        args.axis = "loader-workers"
    if args.values is None:
        return
    if args.axis == "batch":
        if args.batch_sizes is not None or args.max_fit:
            raise UsageError("values", "give the batch sizes once: --values or --batch-sizes")
        args.batch_sizes = args.values
    elif args.axis == "loader-workers":
        if args.loader_workers is not None:
            raise UsageError("values", "give the counts once: --values or --loader-workers")
        args.loader_workers = args.values
    elif args.loader_workers is not None and len(worker_counts(args.loader_workers)) > 1:
        raise UsageError("loader_workers", f"one count when the axis is {args.axis}")


def _follow(sweep: Sweep, progress: _Progress) -> SweepSummary:
    try:
        for event in sweep.events():
            progress(event)
            if isinstance(event, SweepFinished):
                return event.summary
    except KeyboardInterrupt:
        sweep.cancel()  # the generator has closed its worker; finished trials are stored
        progress.done()
        print("epochcost: interrupted; keeping the finished trials", file=sys.stderr)
    return sweep.summary()


def _exit_code(summary: SweepSummary) -> int:
    if summary.status == "cancelled":
        return EXIT_INTERRUPTED
    if summary.error and summary.error["kind"] == "config":
        print(f"epochcost: error: {summary.error['message']}", file=sys.stderr)
        return EXIT_USAGE
    if not summary.any_fit:
        print("epochcost: sweep: no batch size trained", file=sys.stderr)
        return EXIT_RUN_FAILED
    if summary.status == "failed":
        return EXIT_RUN_FAILED
    return EXIT_OK


class _Progress:
    """One line per trial on stderr; a step bar for the running trial on a terminal."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.bar: Progress | None = None

    def __call__(self, event: SweepEvent) -> None:
        if isinstance(event, TrialStarted) and sys.stderr.isatty():
            self.bar = Progress(label=f"trial {event.index} b{event.batch_size} {event.role}")
        elif isinstance(event, TrialProgress) and self.bar is not None:
            self._bar(self.bar, event.event)
        elif isinstance(event, TrialFinished) and event.trial is not None:
            self.done()
            self._line(sweep_report.trial_line(event.trial))
        elif isinstance(event, SearchFinished):
            self._line(
                f"max-fit search done: max fit {event.max_fit_batch}, recommended "
                f"{event.recommended_batch} ({event.trials} trials)"
            )

    @staticmethod
    def _bar(bar: Progress, event: Event | None) -> None:
        if isinstance(event, Phase):  # the bar only: one line per trial is enough
            bar.phase, bar.expected = event.phase, event.expected_steps or 0
            bar.measured, bar.rate = 0, 0.0
        elif isinstance(event, Step):
            bar(event)

    def _line(self, text: str) -> None:
        print(f"[{time.monotonic() - self.t0:7.1f}s] {text}", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.bar is not None:
            self.bar.done()
            self.bar = None
