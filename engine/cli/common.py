"""Helpers the CLI commands share: the run options and the config they build, exit codes, usage
errors, running one worker (what a command writes is engine/cli/output.py)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.cli import data_options, numbers
from engine.cli.output import Progress
from engine.core.events import Failed, Finished
from engine.measure.compatibility import LABELS
from engine.measure.config import DEFAULT_TARGET_PRECISION_PCT, PRECISIONS, RunConfig
from engine.process import environments
from engine.process.launcher import BUILD_TIMEOUT_S, WorkerProcess, WorkerSpec
from engine.workloads import model_file_source

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_RUN_FAILED = 3
EXIT_INTERRUPTED = 130  # as a command stopped by Ctrl+C (128 + SIGINT)

# Config field -> the option a user typed, for error messages.
_OPTIONS = {
    "usd_per_hour": "--price-per-hour",
    "price_as_of": "--price-date",
    "memory_limit_bytes": "--memory-limit-mb",
    "run_id": "RUN_ID",
    "rdzv_timeout_s": "--rdzv-timeout",
    "target_precision_pct": "--target-precision",
}


class UsageError(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def usage_error(message: str) -> UsageError:
    """A worker's `config` failure, "field: what to fix", as the option the user typed."""
    field, sep, rest = message.partition(": ")
    if sep and field.isidentifier():
        return UsageError(field, rest)
    return UsageError("", message)


def option_name(field: str) -> str:
    if field in _OPTIONS:
        return _OPTIONS[field]
    if field.isidentifier():
        return "--" + field.replace("_", "-")
    return field


def add_run_options(p: argparse.ArgumentParser, batch: bool = True) -> None:
    """Options every measuring command shares (run, sweep, accuracy)."""
    d = RunConfig()
    p.add_argument("--model", default=None, help=f"workload name (default {d.model})")
    p.add_argument(
        "--model-file",
        default=None,
        metavar="PATH.py",
        help="your own model, from a Python file (see docs/own-model.md)",
    )
    p.add_argument(
        "--framework",
        default=None,
        choices=("torch", "tensorflow"),
        help=f"default {d.framework}; for a model file, the one it declares or imports",
    )
    p.add_argument(
        "--build-timeout",
        type=float,
        default=BUILD_TIMEOUT_S,
        metavar="S",
        help=f"time a model file may take to load and build (default {BUILD_TIMEOUT_S:g} s)",
    )
    if batch:
        p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--device", default=d.device, help="auto, cpu, cuda, cuda:N or mps")
    p.add_argument("--precision", default=d.precision, choices=PRECISIONS)
    p.add_argument("--optimizer", default=d.optimizer, choices=("sgd", "adam"))
    p.add_argument("--channels-last", action="store_true", help="NHWC memory format (images)")
    p.add_argument(
        "--compile", action="store_true", help="torch.compile / XLA; compile time is reported apart"
    )
    p.add_argument("--warmup-steps", type=int, default=d.warmup_steps)
    p.add_argument("--min-steps", type=int, default=d.min_steps)
    p.add_argument("--max-steps", type=int, default=d.max_steps)
    p.add_argument(
        "--target-precision",
        type=numbers.target_precision,
        default=DEFAULT_TARGET_PRECISION_PCT,
        metavar="PCT",
        help="measure windows until the figure's 95%% interval is within ±PCT%% of it, all "
        f"within --max-seconds (default {DEFAULT_TARGET_PRECISION_PCT:g}); off: --repeats "
        "windows of up to --max-seconds each (docs/measuring.md)",
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=d.max_seconds,
        help="time limit (s): of all the windows together, or of each with "
        f"--target-precision off (default {d.max_seconds:g})",
    )
    p.add_argument(
        "--epoch-samples",
        type=int,
        default=None,
        help="samples in one epoch (default: the workload's usual data set)",
    )
    p.add_argument("--repeats", type=int, default=d.repeats, help="windows (with a target: fewest)")
    data_options.add(p)
    p.add_argument("--threads", type=int, default=None, help="CPU threads for the framework")
    p.add_argument(
        "--price-per-hour",
        type=float,
        default=None,
        metavar="USD",
        help="what an hour of this machine costs",
    )
    p.add_argument(
        "--price-source",
        default=d.price_source,
        help="where the price comes from (kept with the result)",
    )
    p.add_argument(
        "--price-date",
        default=None,
        metavar="YYYY-MM-DD",
        help="when the price was quoted (default: today)",
    )
    p.add_argument(
        "--memory-limit-mb",
        type=int,
        default=None,
        help="cap the worker's memory; going past it counts as out of memory",
    )
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--verbose", action="store_true", help="pass the framework's own log through")


def add_distributed_options(p: argparse.ArgumentParser) -> None:
    """A data-parallel run's processes (docs/scaling.md): run and scaling."""
    d = RunConfig()
    p.add_argument("--nnodes", type=int, default=d.nnodes, help="machines in the run (default 1)")
    p.add_argument(
        "--node-rank", type=int, default=d.node_rank, help="this machine's number, 0 to NNODES-1"
    )
    p.add_argument(
        "--rdzv-endpoint",
        default=None,
        metavar="HOST:PORT",
        help="where the machines meet (node 0's address and a free port); with --nnodes > 1",
    )
    p.add_argument(
        "--rdzv-timeout",
        type=float,
        default=d.rdzv_timeout_s,
        metavar="S",
        help=f"how long the processes may take to meet (default {d.rdzv_timeout_s:g} s)",
    )


def distributed_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The config fields of add_distributed_options (and --nproc, which each command adds)."""
    return {
        "nnodes": args.nnodes,
        "node_rank": args.node_rank,
        "rdzv_endpoint": args.rdzv_endpoint,
        "rdzv_timeout_s": args.rdzv_timeout,
    }


def _model_and_framework(args: argparse.Namespace) -> dict[str, Any]:
    """--model or --model-file (whose name and framework are read from it, not run)."""
    d = RunConfig()
    if args.model_file is None:
        model = d.model if args.model is None else args.model.strip()
        if not model:
            raise UsageError("model", "give a model name (see `epochcost models`)")
        return {"model": model, "framework": args.framework or d.framework}
    if args.model is not None:
        raise UsageError("model_file", "give --model or --model-file, not both")
    path = model_file_source.check_path(args.model_file)
    return {
        "model": model_file_source.default_name(path),
        "model_file": model_file_source.normalized(path),
        "framework": args.framework or model_file_source.guess_framework(path),
    }


def worker_spec(args: argparse.Namespace, framework: str) -> WorkerSpec:
    """How the run options ask for workers of `framework` to be started: with the Python chosen
    for it (environments.json: File > Settings, `epochcost env create`), else this one."""
    build_timeout = getattr(args, "build_timeout", BUILD_TIMEOUT_S)
    if not 0 < build_timeout <= 86_400:
        raise UsageError("build_timeout", f"{build_timeout:g}: give 1 to 86400 seconds")
    spec = WorkerSpec(verbose=args.verbose, build_timeout_s=build_timeout)
    chosen = chosen_python(framework)
    return spec if chosen is None else dataclasses.replace(spec, python=chosen)


def chosen_python(framework: str) -> str | None:
    """The Python chosen for `framework`'s workers (environments.json), None for this one; a
    UsageError (one line, with the fix) when the chosen one is gone."""
    chosen = environments.load().get(framework)
    if chosen is None or Path(chosen).expanduser().exists():
        return chosen
    label = LABELS.get(framework, framework)
    fix = f"run `epochcost env create --framework {framework}` again, or "
    raise UsageError(
        "",
        f"the {label} environment set in {environments.path()} is gone: {chosen}; {fix}"
        f"clear it in the app's File > Settings (or delete its line in that file)",
    )


def config_from_args(args: argparse.Namespace, **overrides: Any) -> RunConfig:
    values: dict[str, Any] = dict(
        **_model_and_framework(args),
        device=args.device,
        precision=args.precision,
        optimizer=args.optimizer,
        channels_last=args.channels_last,
        compile=args.compile,
        warmup_steps=args.warmup_steps,
        min_steps=args.min_steps,
        max_steps=args.max_steps,
        max_seconds=args.max_seconds,
        epoch_samples=args.epoch_samples,
        repeats=args.repeats,
        target_precision_pct=args.target_precision,
        threads=args.threads,
        usd_per_hour=args.price_per_hour,
        price_source=args.price_source,
        price_as_of=args.price_date,
        seed=args.seed,
        memory_limit_bytes=memory_limit_bytes(args.memory_limit_mb),
        **data_options.fields(args),
    )
    if hasattr(args, "batch_size"):
        values["batch_size"] = args.batch_size
    values.update(overrides)
    return RunConfig(**values).validated()


MAX_MEMORY_LIMIT_MB = 2**30  # a PiB: more than any machine has


def memory_limit_bytes(mb: int | None) -> int | None:
    """--memory-limit-mb as bytes; None when not given (0 is not "no limit": it is refused)."""
    if mb is None:
        return None
    if not 1 <= mb <= MAX_MEMORY_LIMIT_MB:
        raise UsageError(
            "memory_limit_mb", f"{mb}: give a limit of 1 MB or more (leave it out for no limit)"
        )
    return int(mb) * 2**20


@contextlib.contextmanager
def ctrl_c_sets(cancel: threading.Event) -> Iterator[None]:
    """Within: Ctrl-C (SIGINT) sets `cancel` instead of raising KeyboardInterrupt, so a study
    stops as the GUI's Cancel stops it (its running worker cancelled, the run kept)."""
    previous = signal.signal(signal.SIGINT, lambda _sig, _frame: cancel.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_worker(
    config: RunConfig,
    *,
    verbose: bool = False,
    progress: Progress | None = None,
    spec: WorkerSpec | None = None,
) -> tuple[dict[str, Any] | None, Failed | None, dict[str, Any]]:
    """Run one config in a worker. Returns (result, failure, environment seen at start)."""
    spec = spec or WorkerSpec(verbose=verbose)
    on_stderr = (lambda line: print(line, file=sys.stderr)) if verbose else None
    worker = WorkerProcess(config, spec, on_stderr=on_stderr).start()
    env: dict[str, Any] = {}
    result: dict[str, Any] | None = None
    failure: Failed | None = None
    try:
        for event in worker.events():
            if progress:
                progress(event)
            if event.type == "started":
                env = dict(getattr(event, "environment", {}))
            elif isinstance(event, Finished):
                result = event.result
            elif isinstance(event, Failed):
                failure = event
    except KeyboardInterrupt:
        worker.cancel()
        for event in worker.events():
            if isinstance(event, Failed):
                failure = event
    finally:
        worker.close()
        if progress:
            progress.done()
    return result, failure, env
