"""epochcost profile add|list|show|remove: named price set-ups (engine/pricing/profiles.py), and
`--profile NAME` for the commands that price (run, sweep, accuracy, results show, compare, plan)."""

from __future__ import annotations

import argparse
from dataclasses import replace

from engine.cli import numbers
from engine.cli.catalog_options import load_reporting
from engine.cli.common import UsageError
from engine.cli.output import print_json
from engine.cli.owned_options import add_owned_options
from engine.cli.profile_options import resolve
from engine.pricing import profile_store
from engine.pricing.catalog import Catalog
from engine.pricing.cost import Price
from engine.pricing.profiles import OWNED, RENTED, Profile, catalog_gpu, check_name, find_instance

# The engine's ConfigError field (as profiles.json spells it) -> this command's option; the
# name is the positional NAME, never an option --name.
FIELDS = {
    "gpu": "owned_gpu",
    "watts": "power_w",
    "as_of": "price_date",
    "source": "price_source",
    "name": "profile NAME",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("profile", help="named price set-ups: rented or owned hardware")
    ps = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = ps.add_parser(
        "add",
        help="save a price set-up under a name",
        description="Rented: --instance CLOUD:TYPE [--spot] or --price-per-hour USD "
        "[--price-source S --price-date D]. Owned: --owned-gpu NAME --purchase-usd P "
        "--usd-per-kwh T [--lifetime-years --hours-per-day --power-w --rest-of-system-w "
        "--psu-efficiency --grid-region].",
    )
    add.add_argument("name", metavar="NAME")
    rented = add.add_argument_group("rented")
    rented.add_argument("--instance", default=None, metavar="ID", help="aws:p3.2xlarge")
    rented.add_argument("--spot", action="store_true", help="the instance's spot price")
    rented.add_argument(
        "--price-per-hour", type=numbers.PRICE_PER_HOUR, default=None, metavar="USD"
    )
    rented.add_argument("--price-source", default=None, help="where the $/h comes from")
    rented.add_argument("--price-date", default=None, metavar="YYYY-MM-DD", help="default today")
    owned = add.add_argument_group("owned")
    owned.add_argument("--owned-gpu", default=None, metavar="NAME", help="a catalog GPU")
    add_owned_options(
        owned,
        ("purchase_usd", "usd_per_kwh", "lifetime_years", "hours_per_day", "power_w"),
        {"purchase_usd": "per GPU", "power_w": "GPU draw (W); default: TDP"},
    )
    owned.add_argument(  # its first name, kept for profiles scripted with it
        "--watts", dest="power_w", type=numbers.POWER_W, default=None, help=argparse.SUPPRESS
    )
    add_owned_options(owned, ("rest_of_system_w", "psu_efficiency", "grid_region"))
    add.add_argument("--replace", action="store_true", help="replace a profile of that name")
    add.set_defaults(handler=numbers.Named(_add, FIELDS))
    ls = ps.add_parser("list", help="the saved profiles")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=_list)
    show = ps.add_parser("show", help="one profile and the price it gives today")
    show.add_argument("name")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=_show)
    rm = ps.add_parser("remove", help="delete a profile")
    rm.add_argument("name")
    rm.set_defaults(handler=_remove)


def profile_from_args(args: argparse.Namespace, cat: Catalog) -> Profile:
    check_name(args.name)
    owned = args.owned_gpu is not None
    rented_given = [
        o for o in ("instance", "price_per_hour", "spot") if getattr(args, o) not in (None, False)
    ]
    if owned and rented_given:
        raise UsageError(rented_given[0], "a profile is rented or owned: leave it out")
    if not owned and (args.purchase_usd is not None or args.usd_per_kwh is not None):
        raise UsageError("owned_gpu", "give the GPU you own (a name from `epochcost catalog gpus`)")
    _only_what_applies(args, owned)
    if not owned:
        if args.instance is not None and args.price_per_hour is not None:
            raise UsageError("instance", "give --instance or --price-per-hour, not both")
        return (
            Profile(
                name=args.name,
                kind=RENTED,
                instance=args.instance,
                spot=args.spot,
                usd_per_hour=args.price_per_hour,
                source=args.price_source or "user",
                as_of=args.price_date or Price(0.0).dated().as_of,
            )
            .validated()
            .in_catalog(cat)
        )
    given = {
        k: getattr(args, k)
        for k in ("lifetime_years", "hours_per_day", "psu_efficiency", "rest_of_system_w")
        if getattr(args, k) is not None
    }
    # The GPU, the grid region and the rest are checked by the rules the file is read by.
    return (
        Profile(
            name=args.name,
            kind=OWNED,
            gpu=catalog_gpu(cat, args.owned_gpu).name,
            purchase_usd=args.purchase_usd,
            usd_per_kwh=args.usd_per_kwh,
            watts=args.power_w,
            grid_region=args.grid_region,
            as_of=args.price_date or Price(0.0).dated().as_of,
            source="owned",
            **given,
        )
        .validated()
        .in_catalog(cat)
    )


# Options a rented profile has no use for, and what each rented kind prices from.
OWNED_OPTIONS = (
    *("power_w", "rest_of_system_w", "lifetime_years", "hours_per_day", "psu_efficiency"),
    "grid_region",
)


def _only_what_applies(args: argparse.Namespace, owned: bool) -> None:
    """Refuse an option the profile would ignore (it would look set and not be)."""
    if owned:
        if args.price_source is not None:
            raise UsageError("price_source", "an owned profile's price comes from its figures")
        return
    for name in OWNED_OPTIONS:
        if getattr(args, name) is not None:
            raise UsageError(name, "applies to owned hardware (--owned-gpu), not a rented profile")
    if args.spot and args.price_per_hour is not None:
        raise UsageError(
            "spot", "applies to a catalog --instance; --price-per-hour is the price you pay"
        )
    if args.instance is not None:
        for name in ("price_source", "price_date"):
            if getattr(args, name) is not None:
                raise UsageError(name, "the catalog gives an --instance's price, source and date")


def _add(args: argparse.Namespace) -> int:
    cat = load_reporting()
    profile = profile_from_args(args, cat)
    if profile.instance is not None:  # kept as cloud:type, so it stays one machine
        found = find_instance(cat, profile.instance)
        profile = replace(profile, instance=f"{found.cloud}:{found.instance_type}")
    price = profile.price(cat)
    profile_store.save(profile, replace=args.replace)
    print(f"saved profile {profile.name!r}: {profile.describe()}\n  prices at {price.describe()}")
    return 0


def _list(args: argparse.Namespace) -> int:
    found = profile_store.load()
    if args.json:
        print_json([p.to_dict() for p in found.values()])
        return 0
    if not found:
        print("no profiles yet: `epochcost profile add NAME ...` (see --help)")
    for name in sorted(found, key=str.lower):
        print(f"{name:20s} {found[name].describe()}")
    return 0


def _show(args: argparse.Namespace) -> int:
    profile = resolve(args.name)
    price = profile.price(load_reporting())
    if args.json:
        print_json({**profile.to_dict(), "price": price.to_dict()})
        return 0
    print(f"{profile.name}: {profile.describe()}\nprice: {price.describe()}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    resolve(args.name)
    profile_store.remove(args.name)
    print(f"removed profile {args.name!r}")
    return 0


# --profile on the commands that price --------------------------------------------------------
