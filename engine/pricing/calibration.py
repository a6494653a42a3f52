"""What the published table says about the projection's own errors.

From every pair of GPUs that trained the same published model (engine/pricing/published.py):

- `alpha[(precision, family)]`: the weight of the compute ratio against the bandwidth ratio
  (roofline.SpecRatios.weighted) that fits the table best (least median log error), for
  estimates that rest on spec ratios alone;
- `roofline_error[precision]`: the 5th and 95th percentile of log(measured / estimated) for
  that weighted form: the range an estimate from spec ratios shows;
- `ratio_error`: the same percentiles for a published model left out of its family's mean
  ratio: how far a model that is not in the table (the user's) strays from the mean of those
  that are.

The Lambda table ran in NVIDIA's PyTorch containers, which run fp32 arithmetic as TF32 on
Ampere and newer; its spec ratios are formed that way.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from engine.pricing.published import PublishedTable
from engine.pricing.roofline import SpecRatios, spec_ratios
from engine.pricing.rows import GpuSpec

LOW_Q, HIGH_Q = 0.05, 0.95
ALPHAS = tuple(i / 20 for i in range(21))
DEFAULT_ALPHA = 0.5
# With no table, or too few pairs: v1's even weighting and a +-40% range.
DEFAULT_ERROR = (math.log(0.6), math.log(1.4))
MIN_PAIRS = 20


@dataclass(frozen=True)
class Calibration:
    alpha: dict[tuple[str, str], float] = field(default_factory=dict)
    roofline_error: dict[str, tuple[float, float]] = field(default_factory=dict)
    ratio_error: tuple[float, float] = DEFAULT_ERROR
    pairs: int = 0

    def alpha_for(self, precision: str, family: str) -> float:
        return self.alpha.get((precision, family), self.alpha.get((precision, ""), DEFAULT_ALPHA))

    def roofline_range(self, precision: str) -> tuple[float, float]:
        low, high = self.roofline_error.get(precision, DEFAULT_ERROR)
        return math.exp(low), math.exp(high)

    @property
    def ratio_range(self) -> tuple[float, float]:
        return math.exp(self.ratio_error[0]), math.exp(self.ratio_error[1])


@dataclass(frozen=True)
class _Pair:
    precision: str
    family: str
    measured: float  # target / source, published
    spec: SpecRatios


def _quantiles(values: list[float]) -> tuple[float, float]:
    if len(values) < MIN_PAIRS:
        return DEFAULT_ERROR
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[round(LOW_Q * 100) - 1], cuts[round(HIGH_Q * 100) - 1]


def _pairs(table: PublishedTable, specs: dict[str, GpuSpec]) -> list[_Pair]:
    found = []
    for _, precision, a, b, fa, fb in table.pairs():
        if a not in specs or b not in specs:
            continue
        spec = spec_ratios(specs[a], specs[b], precision, tf32=True)
        if isinstance(spec, str):
            continue
        for model in fa.keys() & fb.keys():
            family = table.family_of(model) or ""
            found.append(_Pair(precision, family, fb[model] / fa[model], spec))
    return found


def _log_error(pair: _Pair, alpha: float) -> float:
    return math.log(pair.measured / pair.spec.weighted(alpha))


def _best_alpha(pairs: list[_Pair]) -> float:
    return min(ALPHAS, key=lambda a: statistics.median(abs(_log_error(p, a)) for p in pairs))


def _ratio_residuals(table: PublishedTable) -> list[float]:
    """log(model's ratio) - mean log ratio of the other models of its family, same GPU pair."""
    out = []
    for _, _, _, _, fa, fb in table.pairs():
        by_family: dict[str, list[float]] = {}
        for model in fa.keys() & fb.keys():
            by_family.setdefault(table.family_of(model) or "", []).append(
                math.log(fb[model] / fa[model])
            )
        for logs in by_family.values():
            for i, value in enumerate(logs):
                others = logs[:i] + logs[i + 1 :]
                if others:
                    out.append(value - statistics.fmean(others))
    return out


def calibrate(table: PublishedTable, gpus: Iterable[GpuSpec]) -> Calibration:
    """The calibration the table supports for the GPUs `gpus` (their specs)."""
    pairs = _pairs(table, {g.name: g for g in gpus})
    if len(pairs) < MIN_PAIRS:
        return Calibration(pairs=len(pairs))
    alpha: dict[tuple[str, str], float] = {}
    errors: dict[str, tuple[float, float]] = {}
    for precision in ("fp32", "fp16"):
        of_precision = [p for p in pairs if p.precision == precision]
        if len(of_precision) < MIN_PAIRS:
            continue
        alpha[(precision, "")] = _best_alpha(of_precision)
        residuals = []
        for family in sorted({p.family for p in of_precision}):
            of_family = [p for p in of_precision if p.family == family]
            best = _best_alpha(of_family) if len(of_family) >= MIN_PAIRS else alpha[(precision, "")]
            alpha[(precision, family)] = best
            residuals += [_log_error(p, best) for p in of_family]
        errors[precision] = _quantiles(residuals)
    return Calibration(alpha, errors, _quantiles(_ratio_residuals(table)), len(pairs))


@lru_cache(maxsize=8)
def cached(table: PublishedTable, gpus: tuple[GpuSpec, ...]) -> Calibration:
    return calibrate(table, gpus)
