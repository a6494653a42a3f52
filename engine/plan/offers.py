"""Which whole instances a plan rents for its GPUs, and the price text naming them.

Catalog prices are per instance (price_component instance_total, or a GCP VM plus its GPUs:
engine/pricing/rows.py), never per GPU: `count` GPUs on instances of `gpu_count` each are billed
ceil(count / gpu_count) instances, idle GPUs included.
"""

from __future__ import annotations

import math

from engine.pricing.catalog import dated
from engine.pricing.rows import Instance


def offer(instances: list[Instance], count: int, spot: bool) -> tuple[Instance, int, float] | None:
    """The cheapest whole instances holding `count` GPUs. Prices are per instance, so an
    instance of more GPUs than the run uses bills the idle ones too: one that leaves none idle
    comes first (else a 1-GPU spot plan took an 8-GPU p5.48xlarge, 4x the on-demand 1-GPU
    price), then one without a catalog flag, then the price."""
    priced = [i for i in instances if not spot or i.usd_per_hour_spot is not None]
    if not priced:
        return None

    def hourly(i: Instance) -> float:
        n = math.ceil(count / i.gpu_count)
        return n * (i.usd_per_hour_spot if spot else i.usd_per_hour)  # type: ignore[operator]

    def idle(i: Instance) -> bool:
        return math.ceil(count / i.gpu_count) * i.gpu_count > count

    best = min(priced, key=lambda i: (idle(i), i.flagged, hourly(i)))
    return best, math.ceil(count / best.gpu_count), hourly(best)


def billed_gpus(instance: Instance, count: int) -> int:
    """GPUs paid for when `count` run on whole instances of this kind."""
    return int(math.ceil(count / instance.gpu_count) * instance.gpu_count)


def offer_text(instance: Instance, n: int, usd: float, count: int, kind: str) -> str:
    gpus = n * instance.gpu_count
    idle = f", {gpus - count:g} of its GPUs idle" if gpus > count else ""
    flag = f" [catalog note: {instance.notes}]" if instance.flagged else ""
    return (
        f"{kind}: {n} x {instance.cloud} {instance.instance_type} "
        f"({instance.gpu_count:g} GPU{'s' if instance.gpu_count != 1 else ''}) "
        f"= ${usd:,.2f}/h{idle} ({instance.source or instance.origin}, "
        f"{dated(instance.price_date)}){flag}"
    )
