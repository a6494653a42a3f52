"""Machine profiles: a named price set-up, given once and used by every command and tab.

Rented: a catalog instance (on-demand or spot, priced from the catalog when used, so an edited
quote follows) or a $/h of your own with its source and date. Owned: a catalog GPU with its
purchase price, lifetime, hours a day, tariff, watts (default: the GPU's TDP), the rest of the
system's watts, PSU efficiency and grid region, priced by engine.pricing.owning.owned_setup (the
one owned $/h); a file written before profiles had `rest_of_system_w` reads it as 0 W. Either
way `price()` gives the one `Price` (engine/pricing/cost.py) that runs, results and comparisons
already use; its source names the profile ("profile home1080: owned GeForce GTX 1080 Ti: ...").
A field that does not apply to the profile's kind (spot on a typed $/h, watts on a rented
machine) is refused. The profiles file is engine/pricing/profile_store.py.

A profile comes from the command line, the app's form or the file, so `validated()` takes
nothing for granted: each text a str that encodes as UTF-8, each number a finite number in its
range, `spot` a real boolean (the string "false" is true to Python). `in_catalog()` checks that
the catalog holds the instance, the GPU and the grid region `profile add` is given; a profile
read from the file is checked against the catalog when it is used, for itself alone. Errors
name the field as the file spells it (`gpu`, `watts`); the CLI maps them to its options
(engine/cli/cmd_profile.py, FIELDS).
"""

from __future__ import annotations

import datetime as _dt
import math
import reprlib
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from engine.core import checks
from engine.core.errors import ConfigError
from engine.core.placeholders import ask
from engine.pricing.catalog import Catalog, normalise
from engine.pricing.cost import OwnedHardware, Price
from engine.pricing.owning import DEFAULTS, owned_setup
from engine.pricing.rows import GpuSpec, Instance

RENTED, OWNED = "rented", "owned"
MAX_NAME = 60
# Fields only owned hardware has, and only a rented machine has (with what to give instead).
OWNED_ONLY = ("gpu", "purchase_usd", "usd_per_kwh", "watts", "grid_region")
RENTED_ONLY = ("instance", "usd_per_hour")
# Owned figures with a default: a rented profile holds them at it (earlier files wrote them).
OWNED_DEFAULTED = ("lifetime_years", "hours_per_day", "psu_efficiency", "rest_of_system_w")
TEXT_FIELDS = ("kind", "instance", "source", "as_of", "gpu", "grid_region")
NUMBER_FIELDS = ("usd_per_hour", "purchase_usd", "usd_per_kwh", "watts", *OWNED_DEFAULTED)
# OwnedHardware's field -> the profile's (its range checks name their own).
_OWNED_FIELDS = {"power_w": "watts"}
_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 40


def iso_date(text: str) -> str | None:
    """`text` when it is a whole ISO date (YYYY-MM-DD), else None (the catalog's dates are
    mostly 'undated; inferred >=2025-06': those stay in the source text)."""
    try:
        return _dt.date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        return None


def instance_price(instance: Instance, spot: bool = False) -> Price:
    """An instance's on-demand (or spot) price as a result records it: which machine, which
    price, whose figure, and its date (in the source text when not a whole date)."""
    usd = instance.usd_per_hour_spot if spot else instance.usd_per_hour
    if usd is None:
        raise ConfigError("instance", f"{instance.label} has no spot price in the catalog")
    whose = "your quote" if instance.origin == "user" else "catalog"
    as_of = iso_date(instance.price_date)
    date = "" if as_of else f", {instance.price_date or 'undated'}"
    historical = " (historical)" if instance.historical else ""
    kind = "spot" if spot else "on-demand"
    source = f"{instance.cloud} {instance.instance_type}{historical} {kind}, {whose}{date}"
    return Price(usd, source, as_of)


def owned_source(hardware: str, owned: OwnedHardware) -> str:
    """An owned machine's price source as a result records it: what was bought, how it is used."""
    text = (
        f"owned {hardware}: ${owned.purchase_usd:,.0f} over {owned.lifetime_years:g} y "
        f"at {owned.hours_per_day:g} h/day"
    )
    if owned.wall_power_w is None:
        return text + "; electricity not counted (no power given)"
    return text + f" + {owned.wall_power_w:.0f} W at the wall at ${owned.usd_per_kwh:g}/kWh"


def find_instance(catalog: Catalog, text: str) -> Instance:
    """A catalog instance by 'cloud:type' or a type only one cloud sells (current prices before
    historical ones); ConfigError naming close matches otherwise."""
    cloud, sep, kind = text.strip().rpartition(":")
    wanted = normalise(kind)
    if not wanted:  # '' or 'aws:' named no type: it matched a row whose type is no letters
        raise ConfigError(
            "instance", f"{text!r} names no instance type: give cloud:type, e.g. aws:g5.xlarge"
        )
    rows = [
        i
        for i in catalog.instances
        if normalise(i.instance_type) == wanted and (not sep or i.cloud.lower() == cloud.lower())
    ]
    rows.sort(key=lambda i: i.historical)
    if not rows:
        close = sorted(
            f"{i.cloud}:{i.instance_type}"
            for i in catalog.instances
            if wanted and wanted in normalise(i.instance_type)
        )[:5]
        hint = f" (close: {', '.join(close)})" if close else " (see `epochcost catalog instances`)"
        raise ConfigError("instance", f"no instance {text!r} in the catalog{hint}")
    clouds = sorted({i.cloud for i in rows if not i.historical} or {i.cloud for i in rows})
    if len(clouds) > 1:
        choices = ", ".join(f"{c}:{rows[0].instance_type}" for c in clouds)
        raise ConfigError("instance", f"{text!r} is sold by several clouds: give one of {choices}")
    return rows[0]


@dataclass(frozen=True)
class Profile:
    """One named price set-up. Rented: `instance` ('cloud:type', with `spot`) or `usd_per_hour`
    (with `source` and `as_of`). Owned: `gpu` and its figures; `as_of` is when they were given."""

    name: str
    kind: str = RENTED
    instance: str | None = None
    spot: bool = False
    usd_per_hour: float | None = None
    source: str = "user"
    as_of: str | None = None
    gpu: str | None = None
    purchase_usd: float | None = None
    usd_per_kwh: float | None = None
    lifetime_years: float = DEFAULTS["lifetime_years"]
    hours_per_day: float = DEFAULTS["hours_per_day"]
    watts: float | None = None
    psu_efficiency: float = DEFAULTS["psu_efficiency"]
    rest_of_system_w: float = DEFAULTS["rest_of_system_w"]  # CPU, board, disks, fans (W)
    grid_region: str | None = None

    def validated(self) -> Profile:
        check_name(self.name)
        for field in TEXT_FIELDS:
            value = getattr(self, field)
            if value is not None or field in ("kind", "source"):
                _text(field, value)
        checks.choice("kind", self.kind, (RENTED, OWNED))
        if not isinstance(self.spot, bool):
            raise ConfigError("spot", f"{_SHOWN.repr(self.spot)} is not true or false")
        if self.as_of is not None:
            checks.iso_date("as_of", self.as_of)
        self._only_what_applies()
        for field in NUMBER_FIELDS:
            if getattr(self, field) is not None or field in OWNED_DEFAULTED:
                _number(field, getattr(self, field))
        if self.kind == RENTED:
            if (self.instance is None) == (self.usd_per_hour is None):
                raise ConfigError("instance", f"give {ask('instance')} or {ask('usd_per_hour')}")
            if self.instance is not None and not self.instance.strip():
                raise ConfigError("instance", "is blank: give one as CLOUD:TYPE (aws:p3.2xlarge)")
            if self.usd_per_hour is not None:
                Price(self.usd_per_hour, self.source, self.as_of).validated()
            return self
        if not self.gpu or not self.gpu.strip():
            raise ConfigError("gpu", "give the GPU (a name from `epochcost catalog gpus`)")
        for field, missing in (
            ("purchase_usd", "the purchase price ($)"),
            ("usd_per_kwh", "your electricity tariff ($/kWh)"),
        ):
            if getattr(self, field) is None:
                raise ConfigError(field, f"give {missing} to price owning")
        try:
            self._owned(self.watts)
        except ConfigError as exc:
            raise ConfigError(_OWNED_FIELDS.get(exc.field, exc.field), exc.message) from None
        if self.grid_region is not None and ":" not in self.grid_region:
            raise ConfigError("grid_region", "give it as PROVIDER:REGION (aws:us-east-1)")
        return self

    def in_catalog(self, catalog: Catalog) -> Profile:
        """The profile, when the catalog holds the instance (and its spot price), the GPU and
        the grid region it names: the rules `profile add` checks its options by, applied to
        the file too (an unknown GPU would price owning with no electricity, unsaid)."""
        if self.instance is not None:
            found = find_instance(catalog, self.instance)
            if self.spot and found.usd_per_hour_spot is None:
                raise ConfigError("spot", f"{found.label} has no spot price in the catalog")
        if self.gpu is not None:
            catalog_gpu(catalog, self.gpu)
        if self.grid_region is not None:
            check_grid_region(catalog, self.grid_region)
        return self

    def _only_what_applies(self) -> None:
        """ConfigError naming a field the profile's kind does not use (it would be ignored)."""
        if self.kind == RENTED:
            for field in OWNED_ONLY:
                if getattr(self, field) is not None:
                    raise ConfigError(field, "applies to owned hardware, not to a rented profile")
            for field in OWNED_DEFAULTED:  # != compares any type safely: "x", null, 10**400
                if getattr(self, field) != DEFAULTS[field]:
                    raise ConfigError(field, "applies to owned hardware, not to a rented profile")
            if self.spot and self.usd_per_hour is not None:
                raise ConfigError(
                    "spot", "applies to a catalog instance; a $/h of your own is the price paid"
                )
        elif self.kind == OWNED:
            for field in RENTED_ONLY:
                if getattr(self, field) is not None:
                    raise ConfigError(field, "applies to a rented profile, not to owned hardware")
            if self.spot:
                raise ConfigError("spot", "applies to a rented instance, not to owned hardware")

    def _owned(self, power_w: float | None) -> OwnedHardware:
        return owned_setup(
            purchase_usd=self.purchase_usd,
            usd_per_kwh=self.usd_per_kwh,
            power_w=power_w,
            rest_of_system_w=self.rest_of_system_w,
            lifetime_years=self.lifetime_years,
            hours_per_day=self.hours_per_day,
            psu_efficiency=self.psu_efficiency,
        )

    def gpu_spec(self, catalog: Catalog) -> GpuSpec | None:
        return catalog.gpu(self.gpu) if self.gpu else None

    def owned_hardware(self, catalog: Catalog) -> OwnedHardware:
        """The owned machine: the given watts, else the catalog GPU's TDP. A GPU the catalog
        does not hold (hardware of your own, or a row since removed) needs its watts: without
        them the electricity could not be priced, and a price without it would be too low."""
        if self.kind != OWNED:
            raise ConfigError("profile", f"{self.name!r} is rented, not owned hardware")
        spec = self.gpu_spec(catalog)
        if spec is None and self.watts is None:
            raise ConfigError(
                "profile",
                f"{self.name!r}: its GPU {self.gpu!r} is not in the catalog and it gives no watts, "
                "so its electricity cannot be priced; add it again with its draw (profile add "
                f"{self.name} --replace ... --power-w W)",
            )
        power = self.watts if self.watts is not None else (spec.tdp_w if spec else None)
        return self._owned(power)

    def price(self, catalog: Catalog) -> Price:
        """The profile's $/h, source and date: the Price a run, a result or a comparison uses.
        Its source names the profile: 'profile home1080: owned GeForce GTX 1080 Ti: ...'."""
        price = self._price(catalog)
        return replace(price, source=f"profile {self.name}: {price.source}")

    def _price(self, catalog: Catalog) -> Price:
        if self.kind == OWNED:
            owned = self.owned_hardware(catalog)
            spec = self.gpu_spec(catalog)
            return Price(
                owned.usd_per_hour,
                owned_source(spec.name if spec else str(self.gpu), owned),
                self.as_of,
            )
        if self.instance is not None:
            return instance_price(find_instance(catalog, self.instance), self.spot)
        assert self.usd_per_hour is not None  # validated
        return Price(self.usd_per_hour, self.source, self.as_of)

    def describe(self) -> str:
        """One line: 'rented: aws:p3.2xlarge on-demand', 'owned: GTX 1080 Ti, $699, ...'."""
        if self.kind == OWNED:
            watts = f"{self.watts:g} W" if self.watts is not None else "TDP"
            if self.rest_of_system_w:
                watts += f" + {self.rest_of_system_w:g} W rest of system"
            region = f", grid {self.grid_region}" if self.grid_region else ""
            return (
                f"owned: {self.gpu}, ${self.purchase_usd:,.0f} over {self.lifetime_years:g} y at "
                f"{self.hours_per_day:g} h/day, ${self.usd_per_kwh:g}/kWh, {watts} / "
                f"{self.psu_efficiency:g} PSU{region}"
            )
        if self.instance is not None:
            return f"rented: {self.instance} {'spot' if self.spot else 'on-demand'} (catalog)"
        return f"rented: {Price(self.usd_per_hour or 0.0, self.source, self.as_of).describe()}"

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, data: Any) -> Profile:
        """A profile read from the file; ConfigError when it is not one."""
        if not isinstance(data, dict):
            raise ConfigError("profile", "is not an object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(unknown[0], "is not a profile field")
        if "name" not in data:
            raise ConfigError("name", "is missing: give the profile a name")
        try:
            profile = cls(**data)
        except TypeError as exc:
            raise ConfigError("profile", str(exc)) from None
        return profile.validated()

    def renamed(self, name: str) -> Profile:
        return replace(self, name=name).validated()


def check_name(name: Any) -> str:
    """`name` when it can name a profile; ConfigError('name') saying why not, the name shown."""
    if not isinstance(name, str):
        raise ConfigError("name", f"{_SHOWN.repr(name)} is not text: give the profile a name")
    if not name.strip():
        raise ConfigError("name", f"{name!r} is blank: give the profile a name")
    if name != name.strip() or len(name) > MAX_NAME or not name.isprintable():
        raise ConfigError(
            "name", f"{name!r}: use up to {MAX_NAME} printable characters, no spaces at the ends"
        )
    return name


def catalog_gpu(catalog: Catalog, name: str) -> GpuSpec:
    """The catalog GPU `name` names (any spelling catalog.gpu reads); ConfigError('gpu')
    naming close ones otherwise."""
    spec = catalog.gpu(name)
    if spec is None:
        close = ", ".join(g.name for g in catalog.find_gpus(name)[:5])
        hint = f" (close: {close})" if close else " (see `epochcost catalog gpus`)"
        raise ConfigError("gpu", f"no GPU {name!r} in the catalog{hint}")
    return spec


def check_grid_region(catalog: Catalog, region: str) -> None:
    """ConfigError('grid_region') when `region` (PROVIDER:REGION) is not in the catalog grid."""
    provider, _, name = region.partition(":")
    if catalog.grid_for(provider, name) is None:
        raise ConfigError(
            "grid_region", f"{region!r} is not in the catalog grid (see `epochcost catalog grid`)"
        )


def _text(field: str, value: Any) -> None:
    """ConfigError unless `value` is one line of text that can be written as UTF-8."""
    if not isinstance(value, str):
        raise ConfigError(field, f"{_SHOWN.repr(value)} is not text: give it in quotes")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(
            field, "holds a character that is not text (a lone surrogate): type it again"
        ) from None
    if "\n" in value or "\r" in value:
        raise ConfigError(field, "must be one line of text")


def _number(field: str, value: Any) -> None:
    """ConfigError unless `value` is a finite number (the ranges are checked after: an integer
    of 400 digits would overflow them, and True is no number)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(field, f"{_SHOWN.repr(value)} is not a number")
    try:
        finite = math.isfinite(value)
    except OverflowError:
        finite = False
    if not finite:
        raise ConfigError(field, "is not a finite number of a size it can have")
