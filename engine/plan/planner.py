"""A training run of any size, planned from its FLOPs: time, GPU-hours, cost, energy and CO2.

Pure functions over frozen dataclasses; engine/plan/targets.py builds the hardware (Target) from
the catalog, engine/plan/presets.py holds the published models and run-count tables.

The arithmetic (every figure of a PlanRow):
    wall_s        = training FLOPs / (count x peak FLOP/s of one GPU x MFU)
    gpu_hours     = count x wall_s / 3600
    usd_*         = wall_s / 3600 x the hourly price of all `count` GPUs (on-demand, spot, owned)
    kwh           = count x power of one GPU (W) x wall_s / 3.6e6 x PUE
    kg_co2        = kwh x grid intensity (g/kWh) / 1000
    *_fully_loaded = the figure x the run-count multiplier (sum of runs x relative size)
kWh and CO2 are engine/pricing/cost.py's kwh_for_seconds and co2_kg, as compare prices them.
The peak is the dense rate for the precision (engine/measure/utilisation.py); MFU is measured (from
a
stored result) or assumed, and said which. Scaling over `count` GPUs is taken as perfect: MFU
measured on one GPU does not see the communication of many, so the time is a lower bound.

Units: FLOPs (not per second) for work, seconds and hours, USD, kWh, kg CO2e.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.core.errors import ConfigError
from engine.pricing.cost import OwnedHardware, co2_kg, kwh_for_seconds

SECONDS_PER_HOUR = 3600.0


# --- what the run computes -------------------------------------------------------------------


@dataclass(frozen=True)
class Compute:
    """Total training FLOPs (forward + backward over all the data) and how they were counted."""

    flops: float
    basis: str
    params: float | None = None
    tokens: float | None = None
    layers: int | None = None  # the shape, where given (for the memory check too)
    seq_len: int | None = None
    d_attn: int | None = None


def transformer_flops_per_token(
    params: float,
    n_layers: int | None = None,
    seq_len: int | None = None,
    d_attn: int | None = None,
    causal: bool = True,
) -> float:
    """Training FLOPs per token of a transformer: 6N, plus the attention over the context when
    the layers, sequence length and attention width are all given.

    Kaplan et al. 2020, "Scaling Laws for Neural Language Models" (arXiv:2001.08361), Table 1:
    a forward pass costs C_forward = 2N + 2 n_layer n_ctx d_attn FLOPs per token, N being the
    non-embedding parameters and the second term the attention scores over the context; the
    backward pass costs twice the forward (section 2.1), so training costs
        C = 6N + 6 n_layer n_ctx d_attn  per token.
    Hoffmann et al. 2022 (Chinchilla, arXiv:2203.15556, Appendix F) count the query-key logits
    and the weighted sum of values in full, 2 x 2 n_ctx d_attn per layer forward: twice Kaplan's
    term, which equals the full count when a token sees half the context on average, as under a
    causal mask. So: Kaplan's term for a decoder (causal), twice it for an encoder that attends
    over the whole sequence (BERT). Softmax, norms and element-wise work are not counted (as
    torch's FLOP counter does not count them).

    N is taken as given. A paper's total includes the embedding matrix, whose lookup does no
    product (Kaplan's N leaves it out), so 6ND on a total count overstates a small model by up
    to that share (BERT-base: 23.8M of its 110M); give the non-embedding count for Kaplan's.
    """
    per_token = 6.0 * params
    if n_layers and seq_len and d_attn:
        per_token += 6.0 * n_layers * seq_len * d_attn * (1 if causal else 2)
    return per_token


def transformer(
    params: float,
    tokens: float,
    n_layers: int | None = None,
    seq_len: int | None = None,
    d_attn: int | None = None,
    causal: bool = True,
) -> Compute:
    """Training FLOPs of a transformer with `params` parameters on `tokens` tokens (6ND + the
    attention term; see transformer_flops_per_token)."""
    _positive("params", params)
    _positive("tokens", tokens)
    for name, value in (("n_layers", n_layers), ("seq_len", seq_len), ("d_attn", d_attn)):
        if value is not None:
            _positive(name, value)
    per_token = transformer_flops_per_token(params, n_layers, seq_len, d_attn, causal)
    basis = f"6ND: 6 x {params:.4g} parameters x {tokens:.4g} tokens"
    if per_token > 6.0 * params:
        term = "6" if causal else "12"
        basis += (
            f" + {term} x {n_layers} layers x {seq_len} context x {d_attn} width per token "
            f"({'causal' if causal else 'full'} attention; Kaplan et al. 2020)"
        )
    else:
        basis += " (no attention term: give layers, sequence length and width for it)"
    return Compute(per_token * tokens, basis, params, tokens, n_layers, seq_len, d_attn)


def per_sample(flops_per_sample: float, samples: float, epochs: float = 1.0) -> Compute:
    """Training FLOPs of `epochs` passes over `samples` samples at a counted FLOPs per sample
    (forward + backward, as a stored result holds it)."""
    _positive("flops_per_sample", flops_per_sample)
    _positive("samples", samples)
    _positive("epochs", epochs)
    basis = f"{flops_per_sample:.4g} FLOPs per sample x {samples:.4g} samples x {epochs:g} epochs"
    return Compute(flops_per_sample * samples * epochs, basis)


# --- how well the hardware is used -----------------------------------------------------------


@dataclass(frozen=True)
class Utilisation:
    """Model FLOPs utilisation (a fraction of the dense peak), and where the figure comes from."""

    mfu: float
    basis: str
    measured: bool = False
    measured_on: str | None = None  # the GPU (catalog name) it was measured on
    precision: str | None = None
    run_id: str | None = None


def assumed(mfu: float) -> Utilisation:
    _fraction("mfu", mfu)
    return Utilisation(mfu, f"assumed: MFU {mfu * 100:.3g}% (stated, not measured)")


@dataclass(frozen=True)
class Power:
    """What one GPU draws while training, as a fraction of its TDP, and why."""

    fraction_of_tdp: float
    basis: str


TDP = Power(1.0, "TDP assumed (an upper bound: a GPU kept busy draws most of it)")


# --- the hardware ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """`count` GPUs of one kind and what an hour of all of them costs. Prices are None where
    there is none (no cloud sells it, no spot market, owning not priced)."""

    label: str
    gpu: str  # catalog GPU name
    count: int
    peak_tflops: float  # one GPU, dense, for the precision
    peak_basis: str
    tdp_w: float | None = None  # one GPU
    usd_per_hour: float | None = None
    billed_gpus: int | None = None  # GPUs paid for on-demand (whole instances); None: not sold
    price_basis: str = ""
    usd_per_hour_spot: float | None = None
    spot_basis: str = ""
    owned: OwnedHardware | None = None  # all `count` GPUs
    owned_basis: str = ""
    g_co2e_per_kwh: float | None = None
    grid_basis: str = ""
    pue: float = 1.0
    notes: tuple[str, ...] = ()


# --- how many runs a result takes --------------------------------------------------------------


@dataclass(frozen=True)
class RunsRow:
    """`runs` runs, each `relative_size` of the planned run's compute (0.1: a tenth)."""

    label: str
    runs: float
    relative_size: float = 1.0
    source: str = ""

    @property
    def multiplier(self) -> float:
        return self.runs * self.relative_size


def runs_multiplier(table: tuple[RunsRow, ...]) -> float:
    """Compute of all the runs over that of one planned run."""
    if not table:
        raise ConfigError("runs", "the run-count table is empty")
    for row in table:
        _positive("runs", row.runs)
        _positive("relative_size", row.relative_size)
    return sum(row.multiplier for row in table)


# --- the plan ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanRow:
    """One planned run on one target, with its fully-loaded totals. JSON-able by to_row()."""

    label: str
    gpu: str
    count: int
    flops: float
    mfu: float
    peak_tflops: float
    wall_hours: float
    gpu_hours: float
    usd_per_hour: float | None
    usd_ondemand: float | None
    usd_spot: float | None
    usd_owned: float | None
    kwh: float | None
    kg_co2: float | None
    runs_multiplier: float
    notes: tuple[str, ...] = field(default=())

    def _times(self, value: float | None) -> float | None:
        return None if value is None else value * self.runs_multiplier

    @property
    def usd_fully_loaded(self) -> float | None:
        """On-demand cost of all the runs."""
        return self._times(self.usd_ondemand)

    def to_row(self) -> dict[str, Any]:
        row = asdict(self)
        row["notes"] = list(self.notes)
        row.update(
            wall_days=self.wall_hours / 24.0,
            usd_fully_loaded=self.usd_fully_loaded,
            usd_spot_fully_loaded=self._times(self.usd_spot),
            usd_owned_fully_loaded=self._times(self.usd_owned),
            gpu_hours_fully_loaded=self.gpu_hours * self.runs_multiplier,
            kwh_fully_loaded=self._times(self.kwh),
            kg_co2_fully_loaded=self._times(self.kg_co2),
        )
        return row


def wall_seconds(flops: float, count: int, peak_tflops: float, mfu: float) -> float:
    """Seconds for `flops` on `count` GPUs of `peak_tflops` each, kept `mfu` busy."""
    _positive("count", count)
    _positive("peak_tflops", peak_tflops)
    _fraction("mfu", mfu)
    return flops / (count * peak_tflops * 1e12 * mfu)


def _hourly(usd_per_hour: float | None, hours: float) -> float | None:
    return None if usd_per_hour is None else usd_per_hour * hours


def energy_kwh(target: Target, power: Power, seconds: float) -> float | None:
    """Energy of the run's GPUs (times the data centre's PUE); None when the TDP is unknown."""
    if target.tdp_w is None:
        return None
    watts = target.count * target.tdp_w * power.fraction_of_tdp
    return kwh_for_seconds(watts, seconds) * target.pue


def plan(
    compute: Compute,
    target: Target,
    utilisation: Utilisation,
    power: Power = TDP,
    runs: tuple[RunsRow, ...] = (RunsRow("one run", 1),),
) -> PlanRow:
    """The plan of `compute` on `target` at `utilisation`."""
    seconds = wall_seconds(compute.flops, target.count, target.peak_tflops, utilisation.mfu)
    hours = seconds / SECONDS_PER_HOUR
    kwh = energy_kwh(target, power, seconds)
    co2 = None
    if kwh is not None and target.g_co2e_per_kwh is not None:
        co2 = co2_kg(kwh, target.g_co2e_per_kwh)
    owned = target.owned.usd_per_hour if target.owned is not None else None
    return PlanRow(
        label=target.label,
        gpu=target.gpu,
        count=target.count,
        flops=compute.flops,
        mfu=utilisation.mfu,
        peak_tflops=target.peak_tflops,
        wall_hours=hours,
        gpu_hours=target.count * hours,
        usd_per_hour=target.usd_per_hour,
        usd_ondemand=_hourly(target.usd_per_hour, hours),
        usd_spot=_hourly(target.usd_per_hour_spot, hours),
        usd_owned=_hourly(owned, hours),
        kwh=kwh,
        kg_co2=co2,
        runs_multiplier=runs_multiplier(runs),
        notes=target.notes,
    )


def implied_mfu(flops: float, gpu_hours: float, peak_tflops: float) -> float:
    """The MFU at which `flops` take `gpu_hours` on GPUs of `peak_tflops` (to read a published
    run's GPU-hours as a utilisation)."""
    _positive("gpu_hours", gpu_hours)
    return flops / (gpu_hours * SECONDS_PER_HOUR * peak_tflops * 1e12)


def _positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(name, f"{value!r} is not a number")
    if value <= 0:
        raise ConfigError(name, f"{value:g} must be more than 0")


def _fraction(name: str, value: float) -> None:
    _positive(name, value)
    if value > 1:
        raise ConfigError(name, f"{value:g} is a fraction of the peak: give 0.35 for 35%")
