"""epochcost compare RESULT_OR_ID: the measured epoch priced on cloud instances and owned."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli import numbers
from engine.cli.catalog_options import check_clouds, check_gpu, load_reporting, resolve_gpu
from engine.cli.common import UsageError
from engine.cli.output import print_json
from engine.cli.owned_options import add_owned_options
from engine.cli.profile_options import add_profile_option, compare_profile
from engine.cli.result_options import load_result
from engine.cli.tables import Footnotes, number, table, usd
from engine.pricing import cost, owning
from engine.pricing.catalog import Catalog
from engine.pricing.compare import (
    CompareOptions,
    CompareRow,
    Comparison,
    compare,
    throughput_to_beat,
)
from engine.pricing.compare_rows import BuyOptions, measured_elsewhere
from engine.pricing.device import is_cpu
from engine.pricing.rows import Machine
from engine.results.report import duration
from engine.results.scaling import efficiency_lookup
from engine.results.store import Store

# The engine's ConfigError field -> this command's option (engine/cli/numbers.py, Named).
FIELDS = {
    "rerun_fraction": "interruption_overhead",
    "g_co2e_per_kwh": "grid_g_per_kwh",
}


# The owned figures this command takes (engine/pricing/owning.py FIELDS).
OWNED = (
    *("purchase_usd", "lifetime_years", "hours_per_day", "power_w", "rest_of_system_w"),
    *("usd_per_kwh", "psu_efficiency"),
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="what the measured epoch costs on cloud instances and on the machine it ran on",
        description="Price one measured epoch on the catalog's instances (measured where a "
        "stored result ran on that GPU, else estimated from peak-rate and bandwidth ratios) "
        "and on the measured machine, cheapest first.",
    )
    p.add_argument("result", metavar="RESULT_OR_ID", help="a stored run id (or prefix) or a file")
    p.add_argument("--cloud", default=None, help="comma-separated: aws,gcp,azure,lambda,...")
    p.add_argument("--gpu", default=None, help="only instances with this GPU (V100, a100, ...)")
    p.add_argument("--spot", action="store_true", help="sort by the spot price")
    p.add_argument(
        "--interruption-overhead",
        type=numbers.number(0.001, 10, "(share of the work run again)", zero=True),
        default=0.0,
        metavar="F",
        help="spot: share of work run again after interruptions (0.1 = 10%%; default 0)",
    )
    p.add_argument(
        "--startup-minutes",
        type=numbers.number(0.01, 7 * 24 * 60, "minutes", zero=True),
        default=0.0,
        help="billed per run (rented)",
    )
    p.add_argument("--epochs", type=numbers.EPOCHS, default=1.0, help="epochs in a run, for $/run")
    p.add_argument("--historical", action="store_true", help="add the 2016-2018 study prices")
    p.add_argument(
        "--max-gpus",
        type=numbers.number(0.01, 100_000, "GPUs"),
        default=1.0,
        help="leave out bigger instances (default 1; larger ones scale by a stored scaling "
        "measurement of the model on that GPU, else assume perfect scaling)",
    )
    p.add_argument("--limit", type=numbers.LIMIT, default=30, help="rows shown (0: all; JSON: all)")
    own = p.add_argument_group("the measured machine as owned hardware")
    own.add_argument("--owned", action="store_true", help="price it as owned (launch price)")
    own.add_argument("--machine", default=None, help="a machine from your catalog's machines.csv")
    add_owned_options(own, OWNED, {"purchase_usd": "default: the GPU's launch price"})
    grid = p.add_argument_group("carbon of the measured machine's electricity")
    add_owned_options(grid, ("grid_region", "grid_g_per_kwh"))
    buy = p.add_argument_group("GPUs to buy, beside the cloud rows")
    buy.add_argument(
        "--buy",
        nargs="?",
        const="",
        default=None,
        metavar="GPU[=USD],...",
        help="price owning each GPU (at its launch price, or the USD given) with the tariff, "
        "lifetime and use above, and its break-even against the cheapest cloud epoch; without "
        "a list: the catalog's GPUs with a launch price released since 2020. Needs "
        "--usd-per-kwh (or an owned --profile)",
    )
    p.add_argument("--json", action="store_true", help="a list of rows, sorted by $/epoch")
    add_profile_option(p)
    p.set_defaults(handler=numbers.Named(handle, FIELDS))


def _owned(
    args: argparse.Namespace, cat: Catalog, result: dict[str, Any], machine: Machine | None
) -> tuple[cost.OwnedHardware | None, str]:
    if not (args.owned or machine or args.purchase_usd is not None):
        return None, ""
    given = {name: getattr(args, name) for name in owning.FIELDS}
    owned, basis = owning.owned_for_result(result, cat, machine, **given)
    return owned, _owned_text(owned, basis)


def _buy(args: argparse.Namespace, cat: Catalog) -> BuyOptions | None:
    """--buy GPU[=USD],...: the GPUs to price as owned, with the owned options' figures."""
    if args.buy is None:
        return None
    if args.usd_per_kwh is None:
        raise UsageError("buy", "give your electricity tariff (--usd-per-kwh) to price owning")
    gpus, prices = [], []
    for item in (part.strip() for part in args.buy.split(",")):
        if not item:
            continue
        name, _, price = item.partition("=")
        gpu = resolve_gpu(cat, name.strip(), "buy")
        gpus.append(gpu.name)
        if price:
            try:
                prices.append((gpu.name, numbers.PURCHASE_USD(price.strip())))
            except argparse.ArgumentTypeError as exc:
                raise UsageError("buy", f"{item!r}: the price {exc}") from None
    return BuyOptions(  # a figure left out: owning.DEFAULTS' (owning.owned_setup)
        usd_per_kwh=args.usd_per_kwh,
        gpus=tuple(gpus),
        prices=tuple(prices),
        lifetime_years=args.lifetime_years,
        hours_per_day=args.hours_per_day,
        psu_efficiency=args.psu_efficiency,
        rest_of_system_w=args.rest_of_system_w,
    )


def _owned_text(o: cost.OwnedHardware, power_basis: str) -> str:
    head = (
        f"owned: ${o.purchase_usd:,.0f} over {o.lifetime_years:g} years at {o.hours_per_day:g} "
        f"h/day = ${o.amortisation_usd_per_hour:.4f}/h"
    )
    if o.power_w is None or o.electricity_usd_per_hour is None:
        return f"{head}; power {power_basis}: electricity not counted (give --power-w)"
    return (
        f"{head} + electricity ({o.power_w:.0f} W {power_basis} + {o.rest_of_system_w:g} W rest) "
        f"/ {o.psu_efficiency:g} PSU at ${o.usd_per_kwh:g}/kWh = "
        f"${o.electricity_usd_per_hour:.4f}/h; total ${o.usd_per_hour:.4f}/h"
    )


def _grid(
    args: argparse.Namespace, cat: Catalog, machine: Machine | None
) -> tuple[float | None, str]:
    if args.grid_g_per_kwh is not None:
        return args.grid_g_per_kwh, f"{args.grid_g_per_kwh:g} g/kWh (given)"
    region = args.grid_region or (machine.grid if machine else "")
    if region:
        provider, _, name = region.partition(":")
        grid = cat.grid_for(provider, name)
        if grid is None:
            raise UsageError("grid_region", f"{region!r} is not in the catalog (catalog grid)")
        return grid.ci_gco2e_per_kwh, f"{region} ({grid.ci_data_vintage})"
    if machine and machine.ci_gco2e_per_kwh is not None:
        return machine.ci_gco2e_per_kwh, f"{machine.name} ({machine.ci_gco2e_per_kwh:g} g/kWh)"
    return None, ""


def handle(args: argparse.Namespace) -> int:
    result = load_result(args.result)
    if result["status"] != "ok":
        raise UsageError(
            "RESULT_OR_ID " + args.result,
            f"{result['run_id']} ended {result['status']}: nothing to price",
        )
    result = compare_profile(args, result)
    cat = load_reporting()
    machine = cat.machine(args.machine) if args.machine else None
    if args.machine and machine is None:
        known = ", ".join(m.name for m in cat.machines) or "none yet"
        raise UsageError("machine", f"no machine {args.machine!r} in your catalog ({known})")
    clouds = check_clouds(cat, args.cloud)
    check_gpu(cat, args.gpu)
    if args.gpu and not cat.select(clouds, args.gpu, historical=None, full_only=False):
        where = f" on {', '.join(clouds)}" if clouds else ""
        raise UsageError("gpu", f"no instance{where} has a GPU matching {args.gpu!r}")
    owned, owned_text = _owned(args, cat, result, machine)
    g_per_kwh, grid_text = _grid(args, cat, machine)
    options = CompareOptions(
        clouds=clouds,
        gpu=args.gpu,
        spot=args.spot,
        historical=args.historical,
        max_gpus=args.max_gpus,
        epochs=args.epochs,
        startup_minutes=args.startup_minutes,
        rerun_fraction=args.interruption_overhead,
        owned=owned,
        local_power_w=args.power_w if owned is None else None,
        local_g_co2e_per_kwh=g_per_kwh,
        local_grid_label=grid_text,
        buy=_buy(args, cat),
        scaling=efficiency_lookup(result["config"]["model"], cat),
    )
    elsewhere = measured_elsewhere(Store(readonly=True).list(), result)
    comparison = compare(result, cat, options, elsewhere)
    if args.json:
        print_json([row.to_row() for row in comparison.rows])
        return 0
    print(render(comparison, options, args.limit, owned_text))
    if is_cpu(result):
        print(_to_match(comparison, cat, options, result["epoch_samples"]))
    return 0


def _to_match(c: Comparison, cat: Catalog, options: CompareOptions, epoch_samples: int) -> str:
    """For a CPU result: what the cheapest GPU instances would have to reach to cost less."""
    local = next(r for r in c.rows if r.local)
    if not local.usd_per_epoch:
        return ""
    lines = [f"to cost less than ${usd(local.usd_per_epoch)} an epoch, a GPU instance must reach:"]
    for i, need in throughput_to_beat(cat, options, epoch_samples, local.usd_per_epoch):
        lines.append(
            f"  {need:10,.1f} samples/s  {i.cloud} {i.instance_type} ({i.gpu_model} "
            f"x{i.gpu_count:g}, ${i.usd_per_hour:g}/h, {i.price_date})"
        )
    lines.append("(measure the workload there and import the result to see whether it does)")
    return "\n".join(lines)


def _tput(row: CompareRow) -> tuple[str, str]:
    if row.status == "does_not_fit":
        need, there = row.memory_needed_bytes or 0, row.memory_available_bytes or 0
        return "does not fit", f"{need / 2**30:.1f} > {there / 2**30:.1f} GiB"
    if row.status == "measured":
        return number(row.throughput_samples_per_s), "measured"
    span = f"{number(row.throughput_low)}-{number(row.throughput_high)}"
    return "~" + number(row.throughput_samples_per_s), span


def render(c: Comparison, options: CompareOptions, limit: int, owned_text: str = "") -> str:
    """The comparison as text: heading, table, sources, notes, what was left out."""
    notes = Footnotes()
    shown = c.rows if limit <= 0 else c.rows[:limit]
    body = []
    for i, r in enumerate(shown, start=1):
        tput, span = _tput(r)
        model = r.gpu_model.removeprefix("NVIDIA ")
        gpu = f"{model} x{r.gpu_count:g}" if r.gpu_count else model
        cells = [
            str(i),
            r.instance_type + (" (hist.)" if r.historical else ""),
            r.cloud,
            gpu,
            tput,
            span,
            duration(r.epoch_seconds) if r.epoch_seconds else "-",
            "-" if r.usd_per_hour is None else f"{r.usd_per_hour:.5g}",
            usd(r.usd_per_epoch),
            usd(r.usd_per_epoch_spot),
            usd(r.usd_per_run),
            number(r.kwh_per_epoch, 4),
            number(None if r.co2_kg_per_epoch is None else r.co2_kg_per_epoch * 1000, 1),
        ]
        if options.owned is not None or options.buy is not None:
            cells.append(r.break_even_text or "-")  # the days and their range
        date = f"{r.price_date}, {r.price_age}" if r.price_age else r.price_date
        src = f"{r.price_source}, {date}" if date else r.price_source
        cells.append(notes.mark(src))
        body.append(cells)
    headers = ["#", "instance", "cloud", "GPU", "samples/s", "range", "epoch", "$/h"]
    headers += ["$/epoch", "spot $/ep", "$/run", "kWh/ep", "gCO2/ep"]
    if options.owned is not None or options.buy is not None:
        headers.append("break-even days")
    out = [f"measured: {c.source}"]
    if owned_text:
        out.append(owned_text)
    out += ["", table([*headers, "price"], body, right={0, 4, 7, 8, 9, 10, 11, 12, 13})]
    if len(shown) < len(c.rows):
        out.append(f"... {len(c.rows) - len(shown)} more rows (--limit 0 shows all)")
    out += [f"local: {r.notes}" for r in c.rows if r.local and r.notes]
    out += [f"{r.instance_type}: {r.notes}" for r in c.rows if r.cloud == "buy" and r.notes][:1]
    out += ["", "$/run: " + _run_text(options), "prices:", *notes.lines(), ""]
    out += [f"note: {n}" for n in c.notes]
    if c.left_out:
        out.append(f"left out: {len(c.left_out)} instances")
        for why, n in c.left_out_counts():
            examples = [label for label, w in c.left_out if w == why][:3]
            more = ", ..." if n > len(examples) else ""
            out.append(f"  {n:4d}  {why}: {', '.join(examples)}{more}")
    return "\n".join(out)


def _run_text(o: CompareOptions) -> str:
    text = f"{o.epochs:g} epoch(s)"
    if o.startup_minutes:
        text += f" + {o.startup_minutes:g} billed start-up minutes (rented)"
    if o.rerun_fraction:
        text += f"; spot re-runs {o.rerun_fraction:.0%} of the work"
    return text
