"""epochcost accuracy: train to a target accuracy (or until it settles) for each batch size,
repeat, and price the time it took. One worker process per batch size and repeat."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from dataclasses import replace
from typing import Any, TextIO

from engine.accuracy.repeats import BatchSummary, cheapest
from engine.accuracy.study import StudyOutcome, StudyPlan, run_study
from engine.cli.common import (
    EXIT_OK,
    EXIT_RUN_FAILED,
    UsageError,
    ctrl_c_sets,
    memory_limit_bytes,
    worker_spec,
)
from engine.cli.file_options import out_file
from engine.cli.output import finite, print_json
from engine.cli.profile_options import add_profile_option, apply_profile_price
from engine.core.errors import ConfigError, StoreError
from engine.core.events import Eval, Event, Failed, Finished, Phase
from engine.core.value_lists import parse_values
from engine.measure.accuracy_config import AccuracyConfig
from engine.measure.config import PRECISIONS
from engine.measure.result import price_of
from engine.results import report
from engine.results.files import check_out_path, write_json
from engine.results.store import Store
from engine.study.axes import BATCH_SIZES
from engine.workloads import data

# Config field -> this command's option, where the names differ.
_FIELDS = {
    "target_accuracy": "target",
    "price_as_of": "price_date",
    "batch_size": "batch_sizes",
    "memory_limit_bytes": "memory_limit_mb",
}


def register(sub: argparse._SubParsersAction) -> None:
    d = AccuracyConfig()
    p = sub.add_parser(
        "accuracy",
        help="time and cost to a target accuracy, or until accuracy settles, per batch size",
    )
    p.add_argument("--model", default=d.model, help=f"workload name (default {d.model})")
    p.add_argument(
        "--model-file",
        metavar="PATH.py",
        help="not for accuracy: a model file brings no data set (use --model); accepted only "
        "to say so",
    )
    p.add_argument("--framework", default=d.framework, choices=("torch", "tensorflow"))
    p.add_argument(
        "--data",
        "--dataset",
        dest="dataset",
        default=d.dataset,
        metavar="SOURCE",
        help=f"the data to train on, in a run's --data words: cifar10[:PATH] (the CIFAR-10 "
        f"binary files; default folder: the data folder's cifar10) or a built-in set: "
        f"{', '.join(data.BUILTIN)} (default {d.dataset})",
    )
    p.add_argument("--batch-sizes", default="64", metavar="B1,B2,..", help="default 64")
    goal = p.add_mutually_exclusive_group(required=True)
    goal.add_argument("--target", type=float, metavar="ACC", help="stop at this accuracy (0.9)")
    goal.add_argument(
        "--until-stable",
        action="store_true",
        help="stop when accuracy settles (--band, --patience)",
    )
    p.add_argument("--repeats", type=int, default=3, help="runs per batch size (default 3)")
    p.add_argument("--eval-every", type=int, default=d.eval_every, metavar="N", help="iterations")
    p.add_argument(
        "--eval-samples", type=int, default=None, help="held-out images per evaluation (all)"
    )
    p.add_argument(
        "--band",
        type=float,
        default=d.band,
        help=f"settled: accuracy stays within +-band (fraction; default {d.band})",
    )
    p.add_argument(
        "--patience", type=int, default=d.patience, metavar="K", help="... for K evaluations"
    )
    p.add_argument("--max-iterations", type=int, default=d.max_iterations)
    p.add_argument(
        "--max-seconds", type=float, default=d.max_seconds, help="cap per run (training + eval)"
    )
    p.add_argument(
        "--include-eval-time", action="store_true", help="count evaluation time in time and cost"
    )
    p.add_argument("--device", default=d.device, help="auto, cpu, cuda, cuda:N or mps")
    p.add_argument("--precision", default=d.precision, choices=PRECISIONS)
    p.add_argument("--optimizer", default=d.optimizer, choices=("sgd", "adam"))
    p.add_argument("--learning-rate", type=float, default=None, help="default 0.01 SGD, 0.001 Adam")
    p.add_argument("--channels-last", action="store_true", help="NHWC memory format")
    p.add_argument(
        "--compile", action="store_true", help="torch.compile / XLA (its time is counted)"
    )
    p.add_argument("--threads", type=int, default=None, help="CPU threads for the framework")
    p.add_argument(
        "--memory-limit-mb",
        type=int,
        default=None,
        help="cap the worker's memory; going past it counts as out of memory",
    )
    p.add_argument("--seed", type=int, default=d.seed, help="repeat r uses seed + r")
    p.add_argument("--price-per-hour", type=float, default=None, metavar="USD")
    p.add_argument("--price-source", default=d.price_source)
    p.add_argument("--price-date", default=None, metavar="YYYY-MM-DD")
    add_profile_option(p)
    p.add_argument("--out", type=out_file, help="also write the JSON summary to this file")
    p.add_argument("--json", action="store_true", help="print exactly one JSON summary on stdout")
    p.add_argument("--no-store", action="store_true", help="do not add the runs to the store")
    p.add_argument("--verbose", action="store_true", help="pass the framework's own log through")
    p.set_defaults(handler=handle)


def _batch_sizes(text: str) -> tuple[int, ...]:
    """The study's batch sizes, read as every list is (engine/core/value_lists.py), in the order
    given; one given twice is refused (each is a set of repeats of its own)."""
    return parse_values(text, replace(BATCH_SIZES, repeats="refuse", sort=False))


def plan_from_args(args: argparse.Namespace) -> StudyPlan:
    apply_profile_price(args)
    sizes = _batch_sizes(args.batch_sizes)
    try:
        base = AccuracyConfig(
            model=args.model,
            framework=args.framework,
            dataset=args.dataset,
            batch_size=sizes[0] if sizes else 1,
            device=args.device,
            precision=args.precision,
            optimizer=args.optimizer,
            learning_rate=args.learning_rate,
            channels_last=args.channels_last,
            compile=args.compile,
            eval_every=args.eval_every,
            eval_samples=args.eval_samples,
            target_accuracy=args.target,
            band=args.band,
            patience=args.patience,
            max_iterations=args.max_iterations,
            max_seconds=args.max_seconds,
            include_eval_time=args.include_eval_time,
            seed=args.seed,
            threads=args.threads,
            memory_limit_bytes=memory_limit_bytes(args.memory_limit_mb),
            usd_per_hour=args.price_per_hour,
            price_source=args.price_source,
            price_as_of=args.price_date,
        )
        return StudyPlan(base, sizes, args.repeats).validated()
    except ConfigError as exc:
        raise UsageError(_FIELDS.get(exc.field, exc.field), exc.message) from None


def handle(args: argparse.Namespace) -> int:
    if args.model_file is not None:
        raise UsageError(
            "model_file",
            "a cost-to-accuracy study trains a built-in model on real data, and a model file "
            "brings no data set (its contract has no data hook); measure your file with "
            "`epochcost run --model-file` or `epochcost sweep --model-file`, and give accuracy "
            "a --model",
        )
    plan = plan_from_args(args)
    if args.out is not None:
        check_out_path(args.out)
    store = None if args.no_store else Store()
    progress = _Progress(plan)
    spec = worker_spec(args, args.framework)
    cancel = threading.Event()
    with ctrl_c_sets(cancel):
        outcome = run_study(plan, store=store, on_event=progress, spec=spec, cancel=cancel)
    progress.done()
    summary = summary_json(plan, outcome)
    unwritten = None
    if args.out is not None:
        try:
            write_json(args.out, finite(summary))
        except StoreError as exc:
            unwritten = str(exc)
    if args.json:
        print_json(summary)
    else:
        print(table(plan, outcome))
    for problem in outcome.unstored + ([unwritten] if unwritten else []):
        print(f"epochcost: error: {problem}", file=sys.stderr)
    if outcome.unstored or unwritten:
        return EXIT_RUN_FAILED
    if outcome.failed or outcome.cancelled:
        print("epochcost: some runs did not finish (see above)", file=sys.stderr)
        return EXIT_RUN_FAILED
    return EXIT_OK


def _device(result: dict[str, Any]) -> str:
    """The device a run used (as resolved in the worker), else the one asked for."""
    return str((result.get("environment") or {}).get("device") or result["config"]["device"])


def _rule_text(config: AccuracyConfig) -> str:
    if config.target_accuracy is not None:
        return f"to {config.target_accuracy:.1%} accuracy"
    return f"until stable (within +-{config.band * 100:g} points for {config.patience} evaluations)"


def summary_json(plan: StudyPlan, outcome: StudyOutcome) -> dict[str, Any]:
    """The study as JSON: per batch size the mean and std of stabilization_iteration, seconds,
    accuracy and usd at the point (and more), plus what the whole study cost."""
    c = plan.base
    devices = {_device(r) for r in outcome.results}
    return {
        "study_id": plan.study_id,
        "model": c.model,
        "framework": c.framework,
        "dataset": c.dataset,
        "devices": sorted(devices),
        "rule": {
            "mode": "stable" if c.until_stable else "target",
            "target_accuracy": c.target_accuracy,
            "band": c.band,
            "patience": c.patience,
            "eval_every": c.eval_every,
            "include_eval_time": c.include_eval_time,
        },
        "repeats": plan.repeats,
        "price": price_of(c),
        "batch_sizes": [s.to_dict() for s in outcome.summaries],
        **_verdict_json(outcome, c.usd_per_hour is not None),
        "total": outcome.total,
        "cancelled": outcome.cancelled,
    }


def _verdict_json(outcome: StudyOutcome, priced: bool) -> dict[str, Any]:
    found = cheapest(outcome.summaries, priced)
    return {
        "cheapest_batch": found.best.batch_size if found else None,
        "cheapest_basis": found.basis if found else None,
        "cheapest_rivals": list(found.rivals) if found else [],
    }


def _verdict_lines(outcome: StudyOutcome, priced: bool) -> list[str]:
    """The cheapest batch (fastest without a price), and a tie the repeats cannot settle."""
    found = cheapest(outcome.summaries, priced)
    if found is None:
        return []
    what = "cheapest" if priced else "fastest (no price)"
    tie = found.tie()
    return [f"{what} to the point: batch {found.best.batch_size}", *([tie] if tie else [])]


_COLUMNS: tuple[tuple[str, int], ...] = (
    ("batch", 6),
    ("reached", 7),
    ("iterations", 12),
    ("epochs", 12),
    ("accuracy %", 12),
    ("time to accuracy s", 18),
    ("cost", 0),  # 0: as long as it is
)


def _cells(cells: list[str]) -> str:
    return "  ".join(c.rjust(w) if w else c for c, (_, w) in zip(cells, _COLUMNS, strict=False))


def _row(s: BatchSummary, priced: bool, stable: bool) -> str:
    head = [str(s.batch_size), f"{s.reached}/{s.repeats}"]
    if s.reached == 0:
        never = "never settled" if stable else "never reached the target"
        return _cells([*head, "failed" if s.failed == s.repeats else never])
    return _cells(
        [
            *head,
            report.mean_std(s.stabilization_iteration, ".0f"),
            report.mean_std(s.epochs, ".2f"),
            report.mean_std(s.accuracy, ".1f", 100),
            report.mean_std(s.seconds, ".2f"),
            report.money_mean_std(s.usd) if priced else "no price (--price-per-hour)",
        ]
    )


def table(plan: StudyPlan, outcome: StudyOutcome) -> str:
    c = plan.base
    priced = c.usd_per_hour is not None
    devices = sorted({_device(r) for r in outcome.results})
    lines = [
        f"{c.model} on {c.dataset}, {_rule_text(c)}, {plan.repeats} repeat(s), "
        f"{', '.join(devices) or 'no device'}",
        _cells([name for name, _ in _COLUMNS]),
    ]
    lines += [_row(s, priced, c.until_stable) for s in outcome.summaries]
    for s in outcome.summaries:
        lines += [f"  batch {s.batch_size}: {message}" for message in s.failures]
    total = outcome.total
    price = f" at ${c.usd_per_hour:,.2f}/h" if priced else ""
    lines.append(
        f"whole study: {report.duration(total['seconds'])}"
        f"{', ' + report.money(total['usd']) if total['usd'] is not None else ''}{price}"
        f"{' (cancelled)' if outcome.cancelled else ''}"
    )
    lines.append("(mean ± sample std over the repeats that reached it)")
    lines += _verdict_lines(outcome, priced)
    lines.append(f"study id: {plan.study_id}")
    return "\n".join(lines)


class _Progress:
    """One line per run on stderr; the learning curve's latest point on a terminal."""

    def __init__(self, plan: StudyPlan, stream: TextIO | None = None) -> None:
        self.plan = plan
        self.stream = stream or sys.stderr  # the stderr of now, not of the module's import
        self.tty = self.stream.isatty()
        self.t0 = time.monotonic()

    def __call__(self, event: Event) -> None:
        if isinstance(event, Phase) and event.phase == "measuring":
            self._line(f"{self.plan.base.model} {event.detail}")
        elif isinstance(event, Eval) and self.tty:
            self.stream.write(
                f"\r\033[Kb{event.batch_size} r{event.repeat + 1}  iteration {event.iteration:,}"
                f"  accuracy {event.accuracy:.1%}  training {event.train_seconds:.1f} s"
            )
            self.stream.flush()
        elif isinstance(event, Finished):
            self._line(_outcome_text(event.result))
        elif isinstance(event, Failed):
            self._line(f"b{event.batch_size}: {event.kind}: {event.message}")

    def _line(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(f"[{time.monotonic() - self.t0:7.1f}s] {text}\n")
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _outcome_text(result: dict[str, Any]) -> str:
    c, acc = result["config"], result["accuracy"]
    head = f"b{c['batch_size']} repeat {c['repeat'] + 1}"
    point = acc["point"]
    if point is None:
        last = acc["curve"][-1]
        return (
            f"{head}: never {'settled' if c['target_accuracy'] is None else 'reached the target'}"
            f" ({acc['stop_reason']} at iteration {last['iteration']:,}, {last['accuracy']:.1%})"
        )
    verb = "settled" if acc["stop_reason"] == "stable" else "reached the target"
    return (
        f"{head}: {verb} at iteration {point['iteration']:,} ({point['accuracy']:.1%}) "
        f"after {point['seconds']:.2f} s"
    )
