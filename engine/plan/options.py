"""What the user chose for a plan besides the model: GPUs, precision, where prices and grid come
from, and how owning is priced, checked at the edge into ConfigError.

engine/plan/targets.py turns these options into the hardware a plan runs on.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.checks import number_range
from engine.core.errors import ConfigError
from engine.plan.memory import check_optimizer

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
MAX_G_CO2E_PER_KWH = 10_000.0  # the dirtiest grids are near 1,000
MAX_PURCHASE_USD = 1e9  # one GPU; as OwnedHardware's bound


@dataclass(frozen=True)
class PlanOptions:
    """What the user chose besides the model: GPUs, precision, where prices and grid come from,
    and how owning is priced (None: the default of owning.DEFAULTS / the catalog)."""

    count: int | None = None  # GPUs; None: 1, or the instance's GPUs
    precision: str = "fp16"  # the FP16/BF16 tensor rate (one figure); fp16 also fits a V100
    clouds: tuple[str, ...] | None = None
    region: str | None = None  # "us-east-1" or "aws:us-east-1"
    g_co2e_per_kwh: float | None = None
    pue: float | None = None
    owned: bool = False
    usd_per_kwh: float | None = None
    purchase_usd: float | None = None  # one GPU
    lifetime_years: float | None = None
    hours_per_day: float | None = None
    psu_efficiency: float | None = None
    rest_of_system_w: float | None = None  # the machine's, not scaled by `count`
    owned_profile: str | None = None  # the profile the owning figures are, named in the basis
    rented_profile: str | None = None  # the profile whose catalog instance is priced, named too
    optimizer: str = "adam"  # for the memory check (engine/plan/memory.py)
    batch_size: int | None = None  # sequences per GPU per step, for the activations

    def validated(self) -> PlanOptions:
        if self.precision not in PRECISIONS:
            raise ConfigError("precision", f"{self.precision!r} is not one of {PRECISIONS}")
        if self.count is not None and (isinstance(self.count, bool) or self.count < 1):
            raise ConfigError("count", f"{self.count} must be a whole number of GPUs, 1 or more")
        if self.pue is not None and not 1.0 <= self.pue <= 5.0:
            raise ConfigError("pue", f"{self.pue:g} must be between 1 and 5")
        if self.g_co2e_per_kwh is not None:
            number_range("g_co2e_per_kwh", self.g_co2e_per_kwh, 0.0, MAX_G_CO2E_PER_KWH)
        if self.purchase_usd is not None:  # one GPU's, as given (not `count` of them)
            number_range("purchase_usd", self.purchase_usd, 0.0, MAX_PURCHASE_USD)
        check_optimizer(self.optimizer)
        if self.batch_size is not None and (
            isinstance(self.batch_size, bool) or self.batch_size < 1
        ):
            raise ConfigError("batch_size", f"{self.batch_size} must be a whole number, 1 or more")
        if self.owned and self.usd_per_kwh is None:
            raise ConfigError("usd_per_kwh", "give your electricity tariff ($/kWh) to price owning")
        return self
