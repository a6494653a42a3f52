"""epochcost results list|show|export|import|delete: the results store."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.cli.common import UsageError, print_json
from engine.results import report
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
    show.set_defaults(handler=_show)
    ex = rs.add_parser("export", help="write a result as a JSON file")
    ex.add_argument("run_id")
    ex.add_argument("--out", type=Path, required=True)
    ex.set_defaults(handler=_export)
    im = rs.add_parser("import", help="add a result JSON file (from any machine) to the store")
    im.add_argument("file", type=Path)
    im.set_defaults(handler=_import)
    rm = rs.add_parser("delete", help="remove a result from the store")
    rm.add_argument("run_id")
    rm.set_defaults(handler=_delete)


def _list(args: argparse.Namespace) -> int:
    frame = Store().list()
    if args.json:
        print_json(frame.astype(object).where(frame.notna(), None).to_dict(orient="records"))
        return 0
    if frame.empty:
        print("no results yet: try `epochcost run`")
        return 0
    print(
        f"{'run id':26s} {'status':9s} {'model':15s} {'fw':10s} {'batch':>5s} "
        f"{'samples/s':>10s} {'mem':>6s} {'$/epoch':>10s}  device"
    )
    for r in frame.itertuples():
        tput = (
            f"{r.throughput_samples_per_s:,.1f}"
            if r.throughput_samples_per_s == r.throughput_samples_per_s
            and r.throughput_samples_per_s is not None
            else "-"
        )  # noqa: E501
        fill = (
            f"{r.memory_fill * 100:.0f}%"
            if r.memory_fill == r.memory_fill and r.memory_fill is not None
            else "-"
        )  # noqa: E501
        usd = (
            report.money(r.usd_per_epoch)
            if r.usd_per_epoch == r.usd_per_epoch and r.usd_per_epoch is not None
            else "-"
        )  # noqa: E501
        print(
            f"{r.run_id:26s} {r.status:9s} {r.model:15s} {r.framework:10s} {r.batch_size:>5} "
            f"{tput:>10s} {fill:>6s} {usd:>10s}  {r.device}"
        )
    return 0


def _show(args: argparse.Namespace) -> int:
    result = Store().get(args.run_id)
    if args.json:
        print_json(result)
    else:
        print(report.summary(result))
    return 0


def _export(args: argparse.Namespace) -> int:
    if not args.out.parent.is_dir():
        raise UsageError("out", f"folder {args.out.parent} does not exist")
    out = Store().export(args.run_id, args.out)
    print(f"wrote {out}")
    return 0


def _import(args: argparse.Namespace) -> int:
    run_id = Store().import_file(args.file)
    print(f"imported {run_id}")
    return 0


def _delete(args: argparse.Namespace) -> int:
    Store().delete(args.run_id)
    print(f"deleted {args.run_id}")
    return 0
