"""What a comparison is made of: its options, its rows, the whole (engine/pricing/compare.py
builds it), and the stored runs of the same workload measured on other GPUs.

Rows are frozen dataclasses a table model or a chart shows as they are; `to_row()` gives the
flat dict of the JSON output. Money in USD, time in seconds, energy in kWh, CO2 in kg.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from engine.pricing import cost

if TYPE_CHECKING:  # a frame is made on demand; comparing needs no pandas
    import pandas as pd


@dataclass(frozen=True)
class BuyOptions:
    """GPUs to price as bought. Money in USD, power in watts. Each is priced by
    engine.pricing.owning.owned_setup with its TDP and these figures (None: owning.DEFAULTS')."""

    usd_per_kwh: float
    gpus: tuple[str, ...] = ()  # catalog names; () the default candidates
    prices: tuple[tuple[str, float], ...] = ()  # (catalog name, USD) given; else launch price
    lifetime_years: float | None = None
    hours_per_day: float | None = None
    psu_efficiency: float | None = None
    rest_of_system_w: float | None = None

    def price_of(self, name: str) -> float | None:
        return dict(self.prices).get(name)


@dataclass(frozen=True)
class CompareOptions:
    clouds: tuple[str, ...] | None = None  # None: every cloud
    gpu: str | None = None  # only instances with this GPU (name as in Catalog.find_gpus)
    spot: bool = False  # sort by the spot price (rows without one go last)
    historical: bool = False  # include the historical rows of the published studies
    max_gpus: float | None = 1.0  # leave out bigger instances (None: keep all)
    epochs: float = 1.0  # for $/run
    startup_minutes: float = 0.0  # billed per run on rented machines
    rerun_fraction: float = 0.0  # spot: share of work redone after interruptions
    owned: cost.OwnedHardware | None = None  # the measured machine as owned hardware
    local_power_w: float | None = None  # its draw when not owned (default: measured, else TDP)
    local_g_co2e_per_kwh: float | None = None  # grid of the measured machine
    local_grid_label: str = ""
    buy: BuyOptions | None = None  # GPUs to price as bought (engine/pricing/buying.py)
    # (catalog GPU name, GPU count) -> (measured data-parallel efficiency, where it is from), or
    # None: perfect scaling assumed (engine/results/scaling.py measures it; the caller asks).
    scaling: Callable[[str, float], tuple[float, str] | None] | None = None


@dataclass(frozen=True)
class MeasuredRun:
    """A stored result of the same workload measured on another device."""

    run_id: str
    device_name: str
    samples_per_s: float
    low: float | None = None  # its 95% interval; None: stored before intervals were
    high: float | None = None


@dataclass(frozen=True)
class CompareRow:
    instance_type: str
    cloud: str
    gpu_model: str
    gpu_count: float
    status: str  # measured | estimated | does_not_fit
    throughput_samples_per_s: float | None
    throughput_low: float | None
    throughput_high: float | None
    epoch_seconds: float | None
    usd_per_hour: float | None
    usd_per_hour_spot: float | None
    usd_per_epoch: float | None
    usd_per_epoch_low: float | None  # at the high end of the throughput range
    usd_per_epoch_high: float | None
    usd_per_epoch_spot: float | None  # with the re-run overhead
    usd_per_run: float | None  # epochs plus billed start-up
    usd_per_run_spot: float | None
    kwh_per_epoch: float | None
    co2_kg_per_epoch: float | None
    break_even_days: float | None  # owning the measured machine against renting this one
    # The range of break_even_days from both throughputs' ranges (engine/pricing/breakeven.py):
    # fewest and most days (None: never at those ends), and the three said as text ('' none).
    break_even_days_low: float | None = None
    break_even_days_high: float | None = None
    break_even_text: str = ""
    fits: bool | None = None  # the batch in the target's memory (None: not known)
    memory_needed_bytes: int | None = None
    memory_available_bytes: int | None = None
    region: str = ""
    local: bool = False
    historical: bool = False
    price_source: str = ""
    price_date: str = ""
    # "N days old" for a catalog price older than catalog.STALE_AFTER_DAYS, else "".
    price_age: str = ""
    basis: str = ""  # where the throughput comes from
    notes: str = ""
    # What share of such figures the low-high range holds: 0.8 for an estimate (its 80% range
    # from the projection's checked errors), 0.95 for a measurement (its interval).
    range_level: float | None = None

    @property
    def estimated(self) -> bool:
        return self.status == "estimated"

    def to_row(self) -> dict[str, Any]:
        return {**asdict(self), "estimated": self.estimated}


@dataclass(frozen=True)
class Comparison:
    rows: tuple[CompareRow, ...]
    source: str  # what was measured, for a heading
    notes: tuple[str, ...] = ()
    left_out: tuple[tuple[str, str], ...] = field(default=())  # (instance, why)

    def to_frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame([r.to_row() for r in self.rows])

    def left_out_counts(self) -> list[tuple[str, int]]:
        """Why rows were left out, most common first, with how many each."""
        counts: dict[str, int] = {}
        for _, why in self.left_out:
            counts[why] = counts.get(why, 0) + 1
        return sorted(counts.items(), key=lambda kv: -kv[1])


def measured_elsewhere(listing: pd.DataFrame, result: dict[str, Any]) -> list[MeasuredRun]:
    """Stored ok results (Store.list()) of the same model, framework, batch and precision measured
    on another device, newest first."""
    c = result["config"]
    if listing.empty:
        return []
    same = listing[
        (listing["status"] == "ok")
        & (listing["model"] == c["model"])
        & (listing["framework"] == c["framework"])
        & (listing["batch_size"] == c["batch_size"])
        & (listing["precision"] == c["precision"])
        & (listing["run_id"] != result["run_id"])
        & listing["throughput_samples_per_s"].notna()
    ]
    if "world_size" in same:  # a data-parallel run's figure is several devices': not one GPU's
        same = same[same["world_size"].isna() | (same["world_size"] <= 1)]
    return [
        MeasuredRun(
            r.run_id,
            str(r.device),
            float(r.throughput_samples_per_s),
            _finite(getattr(r, "throughput_low", None)),
            _finite(getattr(r, "throughput_high", None)),
        )
        for r in same.itertuples()
        if r.device and r.device != "cpu"
    ]


def _finite(value: Any) -> float | None:
    """A listing cell as a number: None for a missing one (NaN in the frame)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
