"""epochcost models: the built-in workloads, or what a model file holds (checked in a worker)."""

from __future__ import annotations

import argparse
import sys

from engine.cli import numbers
from engine.cli.common import EXIT_OK, EXIT_RUN_FAILED, UsageError, chosen_python
from engine.cli.output import print_json
from engine.core.errors import ConfigError
from engine.process.launcher import WorkerSpec
from engine.process.model_check import CHECK_TIMEOUT_S, ModelCheck, check_model_file
from engine.workloads import family, model_file_source, registry


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="list the built-in workloads, or check a model file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--model-file",
        metavar="PATH.py",
        help="check your own model file: load and build it in a worker, try one step",
    )
    p.add_argument("--framework", choices=("torch", "tensorflow"), help="for --model-file")
    p.add_argument(
        "--timeout",
        type=numbers.number(1, 86_400, "seconds"),
        default=CHECK_TIMEOUT_S,
        metavar="S",
        help=f"time the file may take to load and build (default {CHECK_TIMEOUT_S:g} s)",
    )
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if args.model_file is not None:
        return _check(args)
    if args.json:
        print_json([w.to_dict() for w in registry.WORKLOADS])
        return 0
    print(f"{'model':16s} {'input':13s} {'epoch':>11s}  {'frameworks':18s} description")
    for w in registry.WORKLOADS:
        shape = "x".join(str(d) for d in w.input_shape)
        print(
            f"{w.name:16s} {shape:13s} {w.epoch_samples:>11,d}  {','.join(w.frameworks):18s} "
            f"{w.description}"
        )
    return 0


def _check(args: argparse.Namespace) -> int:
    check = check_model_file(
        args.model_file, args.framework, spec=_spec(args), timeout_s=args.timeout
    )
    if args.json:
        print_json(check.to_dict())
    elif check.ok:
        print(describe(check))
    if check.ok:
        return EXIT_OK
    if check.kind != "config":  # not the file's fault as far as we can tell: say so, exit 3
        if not args.json:
            print(f"epochcost: check failed ({check.kind}): {check.message}", file=sys.stderr)
            if check.traceback:
                print(check.traceback, file=sys.stderr)
        return EXIT_RUN_FAILED
    if args.json:
        return 2
    code = f"\n    {check.code}" if check.code else ""
    raise UsageError("model_file", check.message + code)


def _spec(args: argparse.Namespace) -> WorkerSpec | None:
    """The worker of the file's framework, in the Python chosen for it (environments.json) as a
    run of the file would be; None (this Python) for a path the check itself will refuse."""
    try:
        path = model_file_source.check_path(args.model_file)
    except ConfigError:
        return None
    python = chosen_python(args.framework or model_file_source.guess_framework(path))
    return None if python is None else WorkerSpec(python=python)


def describe(check: ModelCheck) -> str:
    """A few aligned lines: what the file holds, as the worker found it."""
    info = check.info or {}
    target = info.get("target")
    shape = info.get("input_shape")
    given = "your make_batch" if info.get("custom_batch") else ""
    input_text = (
        f"{'x'.join(map(str, shape))} {info.get('input_dtype') or ''} per sample".replace("  ", " ")
        if shape
        else given
    )
    if info.get("input_vocab"):
        input_text += f", values 0..{info['input_vocab'] - 1}"
    target_text = f"{target['kind']}: {target['size']:,}" if target else "from make_batch"
    loss_text = "your loss()" if info.get("custom_loss") else "default"
    epoch = f"{info.get('epoch_samples', 0):,} {info.get('epoch_unit', 'samples')}"
    if not info.get("epoch_samples_declared"):
        epoch += " (EPOCH_SAMPLES not set: assumed; set it for your data set)"
    output = "x".join(map(str, info.get("output_shape") or [])) or "n/a"
    chosen = info.get("family") or {}
    family_text = (
        f"{chosen.get('name') or 'none'} ({chosen.get('why') or 'not known'}), for projections "
        "to other GPUs" + ("" if chosen.get("name") else ": every family's published models")
    )
    if chosen.get("source") != "stated":
        family_text += "; FAMILY in the file chooses another"
    return "\n".join(
        [
            f"{info.get('name')}  ({info.get('framework')}, {info.get('path')})",
            f"{'parameters':11s} {info.get('parameters', 0):,}",
            f"{'input':11s} {input_text}",
            f"{'target':11s} {target_text}  (loss: {loss_text})",
            f"{'epoch':11s} {epoch}",
            f"{'made of':11s} {family.described(info.get('composition'))}",
            f"{'family':11s} {family_text}",
            f"{'checked':11s} one step on a batch of {info.get('check_batch_size')} on "
            f"the CPU: outputs {output}, loss {info.get('loss', float('nan')):.4g} "
            f"({info.get('framework_version')}, {info.get('check_seconds', 0):.1f} s)",
            f"{'sha256':11s} {info.get('sha256')}",
        ]
    )
