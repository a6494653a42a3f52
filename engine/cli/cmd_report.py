"""epochcost report RESULT_OR_ID... --out report.html: one self-contained HTML report."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli import numbers
from engine.cli.catalog_options import check_clouds, check_gpu, load_reporting
from engine.cli.common import UsageError
from engine.cli.file_options import out_file
from engine.cli.profile_options import add_profile_option, resolve
from engine.cli.result_options import load_result
from engine.pricing.compare_rows import CompareOptions, measured_elsewhere
from engine.pricing.profiles import OWNED
from engine.results import data_cost, html_report
from engine.results.files import check_out_path, is_stream, write_text
from engine.results.repricing import repriced
from engine.results.store import Store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="one HTML file with runs, charts, the compare table, prices and environment",
        description="Write a self-contained HTML report (inline SVG charts, nothing fetched) "
        "that opens in any browser and prints to PDF.",
    )
    p.add_argument("results", nargs="+", metavar="RESULT_OR_ID", help="stored run ids or files")
    p.add_argument("--out", type=out_file, required=True, help="the HTML file to write")
    p.add_argument("--cloud", default=None, help="comma-separated clouds to compare on")
    p.add_argument("--gpu", default=None, help="only instances with this GPU")
    p.add_argument("--spot", action="store_true", help="sort by the spot price")
    p.add_argument(
        "--max-gpus",
        type=numbers.number(0.01, 100_000, "GPUs"),
        default=1.0,
        help="leave out bigger instances (default 1)",
    )
    add_profile_option(p)
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if args.out.suffix.lower() not in (".html", ".htm") and not is_stream(args.out):
        raise UsageError("out", f"{args.out}: give a file name ending in .html")
    out = check_out_path(args.out)
    results = [load_result(text) for text in dict.fromkeys(args.results)]
    cat = load_reporting()
    clouds = check_clouds(cat, args.cloud)
    check_gpu(cat, args.gpu)
    owned = None
    if args.profile is not None:
        profile = resolve(args.profile)
        price = profile.price(cat)
        results = [repriced(r, price) for r in results]
        owned = profile.owned_hardware(cat) if profile.kind == OWNED else None
    options = CompareOptions(
        clouds=clouds, gpu=args.gpu, spot=args.spot, max_gpus=args.max_gpus, owned=owned
    )
    store = Store(readonly=True)
    listing = store.list()

    def elsewhere(result: dict[str, Any]) -> Any:
        return measured_elsewhere(listing, result)

    runs = html_report.comparisons(
        results, cat, options, elsewhere, lambda r: data_cost.synthetic_twin(store, r)
    )
    path = write_text(out, html_report.render(runs, options))
    print(f"wrote {path} ({len(runs)} run(s))")
    return 0
