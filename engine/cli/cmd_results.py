"""epochcost results list|show|export|import|delete: the results store."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from numbers import Real
from pathlib import Path
from typing import Any

from engine.cli import numbers
from engine.cli.common import UsageError
from engine.cli.file_options import out_file
from engine.cli.output import print_json
from engine.cli.profile_options import add_profile_option, profile_price
from engine.core.interval import interval_text
from engine.core.precision import MARK
from engine.core.text import printable
from engine.pricing.cost import Price
from engine.results import data_cost, report
from engine.results.files import check_out_path, write_json
from engine.results.repricing import repriced
from engine.results.store import Store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("results", help="stored results: list, show, export, import, delete")
    rs = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    ls = rs.add_parser("list", help="one line per stored result, newest first")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=_list)
    show = rs.add_parser("show", help="one result")
    show.add_argument("run_id")
    show.add_argument("--json", action="store_true")
    show.add_argument(
        "--price-per-hour",
        type=numbers.PRICE_PER_HOUR,
        default=None,
        metavar="USD",
        help="price it at this $/h (the stored result is not changed)",
    )
    show.add_argument("--price-source", default=None, help="with --price-per-hour (default user)")
    show.add_argument("--price-date", default=None, metavar="YYYY-MM-DD", help="default today")
    add_profile_option(show)
    show.set_defaults(handler=_show)
    ex = rs.add_parser("export", help="write a result as a JSON file")
    ex.add_argument("run_id")
    ex.add_argument("--out", type=out_file, required=True)
    ex.set_defaults(handler=_export)
    im = rs.add_parser("import", help="add a result JSON file (from any machine) to the store")
    im.add_argument("file", type=Path)
    im.add_argument(
        "--new-id",
        action="store_true",
        help="when a different result has the file's run id, keep this one under a new id",
    )
    im.set_defaults(handler=_import)
    rm = rs.add_parser("delete", help="remove a result from the store")
    rm.add_argument("run_id")
    rm.set_defaults(handler=_delete)


def _list(args: argparse.Namespace) -> int:
    store = Store(readonly=True)
    frame = store.list()
    for run_id, why in store.damaged().items():  # the rest is listed; this row is said alone
        print(
            f"epochcost: warning: stored result {run_id} cannot be read ({printable(why)}); "
            f"`epochcost results delete {run_id}` removes it",
            file=sys.stderr,
        )
    if args.json:
        print_json(frame.astype(object).where(frame.notna(), None).to_dict(orient="records"))
        return 0
    if frame.empty:
        print("no results yet: try `epochcost run`")
        return 0
    print(
        f"{'run id':26s} {'status':9s} {'model':15s} {'fw':10s} {'batch':>5s} "
        f"{'samples/s':>10s} {'95% interval':>16s} {'mem':>6s} {'$/epoch':>10s}  device"
    )
    rough = 0
    for r in frame.itertuples():
        tput = _cell(r.throughput_samples_per_s, lambda v: f"{v:,.1f}")
        spread = _spread(r.throughput_low, r.throughput_high, r.throughput_samples_per_s)
        if isinstance(r.imprecise, str):  # marked here, said under the table
            spread, rough = f"{spread} *", rough + 1
        fill = _cell(r.memory_fill, lambda v: f"{v * 100:.0f}%")
        usd = _cell(r.usd_per_epoch, report.money)
        batch = _cell(r.batch_size, lambda v: f"{v:.0f}")
        status, model, fw = (_text(v) for v in (r.status, r.model, r.framework))
        device = report.listed_device(_text(r.device), r.cloud_instance)
        print(
            f"{_text(r.run_id):26s} {status:9s} {model:15s} {fw:10s} {batch:>5s} "
            f"{tput:>10s} {spread:>16s} {fill:>6s} {usd:>10s}  {device}"
        )
    if rough:
        print(
            f"* {MARK}: its 95% interval is wider than ±25% "
            "(`epochcost results show RUN_ID` says why and what to do)"
        )
    return 0


def _text(value: Any) -> str:
    """A listing's text cell: empty for a missing value."""
    return "" if value is None or (isinstance(value, float) and value != value) else str(value)


def _number(value: Any) -> bool:
    """Whether a listing cell holds a number to show (numpy's count as well): not None, NaN
    (pandas' missing value), text or bytes (a damaged row's columns)."""
    return isinstance(value, Real) and not isinstance(value, bool) and value == value


def _cell(value: Any, fmt: Callable[[float], str]) -> str:
    """A listing cell: the formatted number, or '-' where there is none."""
    return fmt(float(value)) if _number(value) else "-"


def _spread(low: Any, high: Any, center: Any) -> str:
    """'±2.1%' or '-88% / +760%' from a listing row's interval (interval_text); '-' for a
    result stored without one."""
    if not all(_number(v) for v in (low, high, center)) or not center > 0:
        return "-"
    return interval_text([float(low), float(high)], float(center))


def _show(args: argparse.Namespace) -> int:
    store = Store(readonly=True)
    result = store.get(args.run_id)
    price = _price(args)
    if price is not None:
        result = repriced(result, price)
    twin = data_cost.synthetic_twin(store, result)  # what loading the data costs
    if twin is not None and price is not None:
        twin = repriced(twin, price)
    costs = data_cost.comparison(result, twin) if twin is not None else None
    if args.json:
        print_json(result if costs is None else {**result, "data_cost": costs})
    else:
        print(report.summary(result))
        if costs is not None:
            print(data_cost.text(costs))
    return 0


def _price(args: argparse.Namespace) -> Price | None:
    """The price to show a result at: --profile's, --price-per-hour's, else the stored one."""
    if args.profile is not None and args.price_per_hour is not None:
        raise UsageError("profile", "give --profile or --price-per-hour, not both")
    if args.price_per_hour is None:
        if args.price_source is not None or args.price_date is not None:
            raise UsageError("price_per_hour", "give the $/h the source and date are for")
        return profile_price(args)
    return Price(args.price_per_hour, args.price_source or "user", args.price_date).validated()


def _export(args: argparse.Namespace) -> int:
    out = check_out_path(args.out)
    result = Store(readonly=True).get(args.run_id)
    print(f"wrote {write_json(out, result)}")
    return 0


def _import(args: argparse.Namespace) -> int:
    added = Store().import_file(args.file, new_id=args.new_id)
    print(added.describe())
    return 0


def _delete(args: argparse.Namespace) -> int:
    print(f"deleted {Store().delete(args.run_id)}")  # the full id: a prefix may have been given
    return 0
