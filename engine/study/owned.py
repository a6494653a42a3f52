"""A study's points priced as owned hardware: each point's $/epoch at the owned set-up's price
(engine/pricing/owning.py, the one owned $/h), its electricity from the power the point itself
drew where it was measured. What a power-limit or precision study is about: a lower limit draws
less and runs longer, and which costs less depends on the tariff and the card's price.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.pricing.catalog import Catalog
from engine.pricing.owning import owned_for_result


def owned_epoch_price(
    figures: dict[str, float | None], catalog: Catalog
) -> tuple[Callable[[dict[str, Any]], float | None], str]:
    """(a result -> its $/epoch owned, what that price is) for owned `figures` (owning.FIELDS;
    None: the result's machine's or the catalog's, power measured by the point)."""

    def price(result: dict[str, Any]) -> float | None:
        seconds = result.get("epoch_seconds")
        if not seconds:
            return None
        owned, _ = owned_for_result(result, catalog, None, **figures)
        return owned.usd_per_hour * seconds / 3600

    power = "given" if figures.get("power_w") is not None else "each point's measured power"
    return price, f"the owned price (tariff ${figures.get('usd_per_kwh'):g}/kWh, {power})"
