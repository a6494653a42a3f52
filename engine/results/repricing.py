"""A stored result priced again: cost is the stored time (epoch seconds, an accuracy run's seconds
to its point) times a price, so any price can be put on a result without running it again.

The stored result is never changed: `repriced` returns a copy whose `price` is the new one
(with its source and date), whose costs follow from it, and whose `stored_price` keeps the price
it was measured with (None when it had none)."""

from __future__ import annotations

import copy
from typing import Any

from engine.pricing import cost
from engine.pricing.cost import Price


def repriced(result: dict[str, Any], price: Price) -> dict[str, Any]:
    """`result` at `price`: usd_per_epoch = epoch_seconds x $/h / 3600, its 95% interval from
    the throughput's, and an accuracy run's costs from their seconds."""
    out = copy.deepcopy(result)
    usd_per_hour = price.validated().usd_per_hour
    out["stored_price"] = result.get("price")
    out["price"] = price.dated().to_dict()
    epoch_s = result.get("epoch_seconds")
    if isinstance(epoch_s, int | float) and result.get("status") == "ok":
        out["usd_per_epoch"] = cost.usd_per_epoch(epoch_s, usd_per_hour)
        out["usd_per_epoch_ci95"] = _cost_interval(result, usd_per_hour)
    accuracy = out.get("accuracy")
    if isinstance(accuracy, dict):
        for key in ("point", "run"):
            part = accuracy.get(key)
            if isinstance(part, dict) and isinstance(part.get("seconds"), int | float):
                part["usd"] = cost.usd_for_seconds(part["seconds"], usd_per_hour)
    return out


def _cost_interval(result: dict[str, Any], usd_per_hour: float) -> list[float | None] | None:
    """[low, high] $/epoch from the throughput's 95% interval (cost goes as 1 / throughput)."""
    ci, samples = result.get("throughput_ci95"), result.get("epoch_samples")
    if not ci or not isinstance(samples, int | float):
        return None
    low_tput, high_tput = ci
    low = cost.usd_per_epoch(samples / high_tput, usd_per_hour) if high_tput else 0.0
    high = cost.usd_per_epoch(samples / low_tput, usd_per_hour) if low_tput else None
    return [low, high]
