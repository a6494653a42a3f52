"""What the published table says about the projection: how to weigh spec ratios, and the
projection's own errors.

From every pair of GPUs that trained the same published model (engine/pricing/published.py):

- `alpha[(precision, family)]`: the weight of the compute ratio against the bandwidth ratio
  (roofline.SpecRatios.weighted) that fits the table best (least median log error), for
  estimates that rest on spec ratios alone, per table precision (published.PRECISIONS: amp,
  half, tf32, fp32 apart; a precision of too few pairs takes every precision's);
- `family_weights[model]`: how much each published model counts in its family's mean
  (engine/pricing/family_mean.py);
- `ranges[(kind, family, model, precision)]`: the 80% range of each kind of estimate, from its
  errors checked against the table (engine/pricing/projection_errors.py: leave one GPU out,
  leave one model out, one benchmark version against the other, the fitted spec form against every
  pair).

Where the table holds Lambda's PyTorch tables they alone calibrate (the other sources answer
only pairs Lambda lacks: engine/pricing/published.py); the between-source range
(projection_errors.between_sources) comes from every source that shares a model and two GPUs
with another.

The Lambda table ran in NVIDIA's PyTorch containers, which run fp32 arithmetic as TF32 on
Ampere and newer: those figures are the table's `tf32`, and their spec ratios are formed with
the TF32 rate (the FP32 rate of a GPU without TF32); `fp32` pairs (two GPUs without TF32) with
the FP32 rate.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from engine.pricing import family_mean, projection_errors, published
from engine.pricing.projection_errors import ErrorRange, Residuals
from engine.pricing.published import PublishedTable
from engine.pricing.roofline import SpecRatios, spec_ratios
from engine.pricing.rows import GpuSpec

ALPHAS = tuple(i / 20 for i in range(21))
DEFAULT_ALPHA = 0.5
MIN_PAIRS = 20
# The rates a table precision's spec ratios compare (roofline.run_rate: "tf32" is the TF32 rate,
# the FP32 rate on a GPU without it; pure fp16 runs on the tensor cores as AMP does).
SPEC_PRECISION = {"amp": "fp16", "half": "fp16", "tf32": "tf32", "fp32": "fp32"}


@dataclass(frozen=True)
class Calibration:
    alpha: dict[tuple[str, str], float] = field(default_factory=dict)
    ranges: dict[projection_errors.Key, ErrorRange] = field(default_factory=dict)
    pairs: int = 0
    # {published model: its weight in its family's mean} (engine/pricing/family_mean.py)
    family_weights: dict[str, float] = field(default_factory=dict)
    # How far one source's ratio missed another's (projection_errors.between_sources); None:
    # too few.
    between: ErrorRange | None = None

    def alpha_for(self, precision: str, family: str) -> float:
        """The weight for the table's `precision` (a run's: published.table_precision) and
        `family`: the family's, else the precision's, else every precision's pooled."""
        wanted = published.table_precision(precision) or precision
        pooled = self.alpha.get(("", ""), DEFAULT_ALPHA)
        return self.alpha.get((wanted, family), self.alpha.get((wanted, ""), pooled))

    def range_for(self, kind: str, family: str, model: str = "", precision: str = "") -> ErrorRange:
        """The 80% range of an estimate of `kind` (projection_errors.KINDS) for a model of
        `family` in the table's `precision` (amp, tf32, fp32; a run's: published.table_precision);
        `model`: the published model whose own ratio it rests on."""
        wanted = (published.table_precision(precision) or precision) if precision else ""
        return projection_errors.range_for(self.ranges, kind, family, model, wanted)


@dataclass(frozen=True)
class _Pair:
    precision: str
    family: str
    measured: float  # target / source, published
    spec: SpecRatios
    gpus: tuple[str, str]  # (source, target)


def _pairs(table: PublishedTable, specs: dict[str, GpuSpec]) -> list[_Pair]:
    found = []
    for _, precision, a, b, fa, fb in table.pairs():
        if a not in specs or b not in specs:
            continue
        spec = spec_ratios(specs[a], specs[b], SPEC_PRECISION.get(precision, precision))
        if isinstance(spec, str):
            continue
        for model in fa.keys() & fb.keys():
            family = table.family_of(model) or ""
            found.append(_Pair(precision, family, fb[model] / fa[model], spec, (a, b)))
    return found


def _log_error(pair: _Pair, alpha: float) -> float:
    return math.log(pair.measured / pair.spec.weighted(alpha))


def _best_alpha(pairs: list[_Pair]) -> float:
    return min(ALPHAS, key=lambda a: statistics.median(abs(_log_error(p, a)) for p in pairs))


def _fit_alpha(pairs: list[_Pair]) -> tuple[dict[tuple[str, str], float], Residuals]:
    """The weights per (precision, family), over every precision (("", "")), and the spec
    form's residuals ("spec", family), both ways round, each in the group of its target GPU."""
    runs = [p for p in pairs if p.precision in published.RUN_PRECISIONS]
    alpha: dict[tuple[str, str], float] = {("", ""): _best_alpha(runs or pairs)}
    residuals: Residuals = defaultdict(list)
    for precision in published.PRECISIONS:
        of_precision = [p for p in pairs if p.precision == precision]
        if len(of_precision) < MIN_PAIRS:
            continue
        alpha[(precision, "")] = _best_alpha(of_precision)
        for family in sorted({p.family for p in of_precision}):
            of_family = [p for p in of_precision if p.family == family]
            best = _best_alpha(of_family) if len(of_family) >= MIN_PAIRS else alpha[(precision, "")]
            alpha[(precision, family)] = best
            for p in of_family:
                miss = _log_error(p, best)
                key = ("spec", family, "", precision)
                residuals[key] += [(miss, p.gpus[1]), (-miss, p.gpus[0])]
    return alpha, residuals


def calibrate(table: PublishedTable, gpus: Iterable[GpuSpec]) -> Calibration:
    """The calibration the table supports for the GPUs `gpus` (their specs)."""
    specs = {g.name: g for g in gpus}
    whole = table
    if any(published.is_lambda(v) for v in table.versions):
        # Lambda's tables alone calibrate where the table holds them: the other sources' few
        # GPUs made every check narrower and none better (benchmarks/RESULTS.md, issue 40).
        table = table.without(versions=[v for v in table.versions if not published.is_lambda(v)])
    pairs = _pairs(table, specs)
    if len(pairs) < MIN_PAIRS:
        return Calibration(pairs=len(pairs))
    alpha, residuals = _fit_alpha(pairs)

    def alpha_for(precision: str, family: str) -> float:
        return alpha.get((precision, family), alpha.get((precision, ""), DEFAULT_ALPHA))

    weights = family_mean.family_weights(table)
    for found in (
        projection_errors.model_out(table, weights),
        projection_errors.version_to_version(table),
        projection_errors.gpu_out(table, specs, alpha_for, weights),
    ):
        for key, values in found.items():
            residuals[key] += values
    return Calibration(
        alpha,
        projection_errors.ranges(residuals),
        len(pairs),
        weights.get("", {}),
        projection_errors.between_sources(whole),
    )


@lru_cache(maxsize=8)
def cached(table: PublishedTable, gpus: tuple[GpuSpec, ...]) -> Calibration:
    return calibrate(table, gpus)
