"""epochcost sweep --axis processes|precision|power-limit --values LIST: a study on that axis
(engine/study), followed and printed by engine/cli/study_progress.py. The owned-price options
price each point as owned hardware, its electricity at the power the point drew."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TypeVar

from engine.cli import study_progress
from engine.cli.catalog_options import load_reporting
from engine.cli.common import UsageError, config_from_args, worker_spec
from engine.core.errors import ConfigError
from engine.pricing.owning import FIELDS
from engine.results.store import Store
from engine.study.axes import AXES
from engine.study.owned import owned_epoch_price
from engine.study.study import Study
from engine.sweep.batch_sizes import parse_batch_sizes

T = TypeVar("T")


def handle(args: argparse.Namespace) -> int:
    if args.values is None:
        raise UsageError("values", f"give the {args.axis} values to measure, as --values LIST")
    sizes = parse_batch_sizes(args.batch_sizes) if args.batch_sizes is not None else ()
    if args.max_fit or len(sizes) > 1:
        raise UsageError("batch_sizes", f"one batch size when the axis is {args.axis}")
    axis = AXES[args.axis]()
    values = _as_values(lambda: axis.parse(args.values), axis.values.field)
    overrides = {"batch_size": sizes[0]} if sizes else {}
    config = config_from_args(args, **overrides)
    price, basis = None, ""
    figures = {name: getattr(args, name, None) for name in FIELDS}
    if figures["usd_per_kwh"] is not None or figures["purchase_usd"] is not None:
        price, basis = owned_epoch_price(figures, load_reporting())
    on_stderr = (lambda line: print(line, file=sys.stderr)) if args.verbose else None
    study = _as_values(
        lambda: Study(
            config,
            axis,
            values,
            store=None if args.no_store else Store(),
            spec=worker_spec(args, config.framework),
            on_stderr=on_stderr,
            price_point=price,
            price_basis=basis,
        ),
        axis.values.field,
    )
    summary = study_progress.follow(study)
    return study_progress.finish(study, summary, args.json)


def _as_values(make: Callable[[], T], field: str) -> T:
    """`make()`, a mistake in the axis's values said as --values (the option typed)."""
    try:
        return make()
    except ConfigError as error:
        if error.field == field:
            raise UsageError("values", error.message) from None
        raise
