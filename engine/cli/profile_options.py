"""--profile NAME on the commands that price (run, sweep, accuracy, scaling, results show,
compare, plan, report): a saved price set-up (engine/pricing/profiles.py) as the options those
commands take; `epochcost profile` itself (engine/cli/cmd_profile.py) makes and lists them."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.catalog_options import check_clouds, load_reporting
from engine.cli.common import UsageError
from engine.core.errors import ConfigError
from engine.plan import targets as plan_targets
from engine.pricing import profile_store
from engine.pricing.catalog import Catalog
from engine.pricing.cost import Price
from engine.pricing.profiles import OWNED, Profile
from engine.results.repricing import repriced


def add_profile_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--profile",
        default=None,
        metavar="NAME",
        help="price with a saved profile (`epochcost profile list`)",
    )


def resolve(name: str) -> Profile:
    """The saved profile `name`; one line listing the known names when there is none."""
    try:
        return profile_store.get(name)
    except ConfigError as exc:
        raise UsageError("profile", exc.message) from None


def profile_price(args: argparse.Namespace) -> Price | None:
    """The price --profile names (None without --profile)."""
    name = getattr(args, "profile", None)
    return None if name is None else resolve(name).price(load_reporting())


def apply_profile_price(args: argparse.Namespace) -> None:
    """For run, sweep and accuracy: --profile's price as --price-per-hour, --price-source and
    --price-date, so the config takes it as it takes a typed one."""
    price = profile_price(args)
    if price is None:
        return
    if args.price_per_hour is not None:
        raise UsageError("profile", "give --profile or --price-per-hour, not both")
    args.price_per_hour, args.price_source, args.price_date = (
        price.usd_per_hour,
        price.source,
        price.as_of,
    )


def compare_profile(args: argparse.Namespace, result: dict[str, Any]) -> dict[str, Any]:
    """compare --profile: an owned one prices the measured machine as owned (its figures where
    not typed, its grid region); a rented one prices the measured epoch at its $/h."""
    if getattr(args, "profile", None) is None:
        return result
    profile = resolve(args.profile)
    if profile.kind == OWNED:
        owned_options(args, profile)
        if args.grid_region is None and args.grid_g_per_kwh is None:
            args.grid_region = profile.grid_region
        return result
    return repriced(result, profile.price(load_reporting()))


def plan_profile(args: argparse.Namespace, cat: Catalog) -> None:
    """plan --profile: an owned one plans on its GPU and prices owning with its figures; a rented
    catalog instance plans on that instance; a bare $/h has no GPU to plan on. A --gpu,
    --instance or --compare that plans on other hardware is refused: the profile's figures
    (an RTX 4090's $1,600) would price a GPU they are not for."""
    if getattr(args, "profile", None) is None:
        return
    profile = resolve(args.profile)
    chosen = args.gpu or args.instance or args.compare
    if profile.kind == OWNED:
        if chosen:
            _same_hardware(args, cat, profile, str(profile.gpu))
        else:
            args.gpu = profile.gpu
        owned_options(args, profile, power="")
        if args.grid_region is None and args.grid_g_per_kwh is None:
            args.grid_region = profile.grid_region
        args.owned_profile = profile.name
    elif profile.instance is not None:
        cloud, _, kind = profile.instance.rpartition(":")
        if chosen:
            _same_hardware(args, cat, profile, profile.instance)
        else:
            args.instance = kind
        args.cloud = args.cloud or cloud or None
        args.rented_profile = profile.name
    else:
        raise UsageError(
            "profile",
            f"{profile.name!r} is a $/h with no GPU to plan on: give --gpu or --instance, or "
            "a profile of a catalog instance or an owned GPU",
        )


def _same_hardware(args: argparse.Namespace, cat: Catalog, profile: Profile, what: str) -> None:
    """UsageError unless the --gpu or --instance given is the profile's own hardware: its GPU
    (owned), its instance (rented)."""
    owned = profile.kind == OWNED
    if args.compare or (args.gpu or "").lower() == "all":
        option, other, same = ("--compare" if args.compare else "--gpu all"), "every GPU", False
    elif args.instance:
        found = plan_targets.find_instance(cat, args.instance, check_clouds(cat, args.cloud))
        option, other = "--instance", f"{found.cloud}:{found.instance_type}"
        spec = cat.gpu_of(found)
        same = (
            spec is not None and spec == cat.gpu(what) if owned else other.lower() == what.lower()
        )
    else:
        spec = plan_targets.find_gpu(cat, args.gpu)[0]
        option, other, same = "--gpu", spec.name, owned and spec == cat.gpu(what)
    if not same:
        kind = f"owned {what}: its figures price that GPU" if owned else f"rented {what}"
        raise UsageError(
            "profile",
            f"{profile.name!r} is the {kind}, not {other} ({option}): leave out {option} to plan "
            "on the profile's, or --profile to plan without it",
        )


def owned_options(args: argparse.Namespace, profile: Profile, power: str = "power_w") -> None:
    """An owned profile's figures as the owning options of compare and plan, where not typed."""
    values: dict[str, Any] = {
        "purchase_usd": profile.purchase_usd,
        "usd_per_kwh": profile.usd_per_kwh,
        "lifetime_years": profile.lifetime_years,
        "hours_per_day": profile.hours_per_day,
        "psu_efficiency": profile.psu_efficiency,
        "rest_of_system_w": profile.rest_of_system_w,
    }
    if power:  # the same watts as the profile's price: given, else the GPU's TDP
        values[power] = profile.owned_hardware(load_reporting()).power_w
    for name, value in values.items():
        if hasattr(args, name) and getattr(args, name) is None:
            setattr(args, name, value)
    args.owned = True
