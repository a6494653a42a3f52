"""A study's points priced as owned hardware: each point's $/epoch at the owned set-up's price
(engine/pricing/owning.py, the one owned $/h), its electricity from the power the point itself
drew where it was measured. What a power-limit or precision study is about: a lower limit draws
less and runs longer, and which costs less depends on the tariff and the card's price.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core.errors import ConfigError
from engine.pricing.catalog import Catalog
from engine.pricing.owning import owned_for_result


def owned_epoch_price(
    figures: dict[str, float | None], catalog: Catalog
) -> tuple[Callable[[dict[str, Any]], float | None], str]:
    """(a result -> its $/epoch owned, what that price is) for owned `figures` (owning.FIELDS;
    None: the result's machine's or the catalog's, power measured by the point). A tariff must
    be given (ConfigError naming it, before any point runs); a point whose purchase price is
    nowhere (its GPU has no launch price in the catalog) is not priced owned."""

    def price(result: dict[str, Any]) -> float | None:
        seconds = result.get("epoch_seconds")
        if not seconds:
            return None
        try:
            owned, _ = owned_for_result(result, catalog, None, **figures)
        except ConfigError:  # no launch price for this GPU in the catalog, say: not priced
            return None
        return owned.usd_per_hour * seconds / 3600

    tariff = figures.get("usd_per_kwh")
    if tariff is None:
        raise ConfigError("usd_per_kwh", "give your electricity tariff ($/kWh) to price owning")
    power = "given" if figures.get("power_w") is not None else "each point's measured power"
    return price, f"the owned price (tariff ${tariff:g}/kWh, {power})"
