"""The data options of the measuring commands (run, sweep, scaling, cloud run): where a timed
run's batches come from and how they are loaded (docs/measuring.md, "Input pipelines")."""

from __future__ import annotations

import argparse
from typing import Any

from engine.core.errors import ConfigError
from engine.measure.config import RunConfig
from engine.study.axes import LoaderWorkersAxis
from engine.workloads.data.source import normalized


def add(p: argparse.ArgumentParser) -> None:
    """Where a timed run's batches come from (docs/measuring.md, "Input pipelines")."""
    p.add_argument(
        "--data",
        default=RunConfig().data,
        metavar="SOURCE",
        help="synthetic | imagefolder:PATH | cifar10[:PATH] (default: synthetic, or your model "
        "file's make_dataset); a folder's images are an epoch",
    )
    p.add_argument(
        "--loader-workers",
        default=None,
        metavar="N",
        help="data loader processes (PyTorch) or parallel calls (TensorFlow); 0: load in the "
        "training loop (default: up to 4, one per core; TensorFlow: AUTOTUNE); `sweep` takes "
        "a list, 0,1,2,4",
    )
    p.add_argument(
        "--pin-memory", action="store_true", help="page-locked batches for the copy to a GPU"
    )


def fields(args: argparse.Namespace) -> dict[str, Any]:
    """The config fields of add(); a list of loader workers (a sweep's, whose parser sets
    `several_loader_workers`) gives its first."""
    counts = worker_counts(args.loader_workers)
    if len(counts) > 1 and not getattr(args, "several_loader_workers", False):
        raise ConfigError(
            "loader_workers", "one count for a run; `epochcost sweep` measures a list"
        )
    return {
        "data": normalized(args.data),
        "loader_workers": counts[0] if counts else None,
        "pin_memory": args.pin_memory,
    }


def worker_counts(text: str | None) -> tuple[int, ...]:
    """--loader-workers as whole numbers: one (a run) or a list (a sweep), read as every list
    is (engine/core/value_lists.py)."""
    if text is None:
        return ()
    return LoaderWorkersAxis().parse(text)
