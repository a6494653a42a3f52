"""The projection's own errors, and the 80% range they give an estimate.

An estimate's range is how far estimates of its kind missed when checked against the published
table (engine/pricing/published.py): the residuals log(published / estimated), their 10th and
90th percentiles, so that 8 in 10 such estimates fell inside it. Per kind of basis (what the
estimate rests on, engine/pricing/projection.py):

- `same model`: both GPUs in the table and the run's model is a published one: its own ratio.
  Checked by the same model's ratio in one benchmark version against the other (another
  set-up, as a run of yours is).
- `family`: both GPUs in the table, the model is not published: the weighted mean ratio of
  the published models of its family (engine/pricing/family_mean.py). Checked by leaving each
  model out of its family's mean, the weights computed without it.
- `stand-in, same model`, `stand-in, family`: a GPU the table lacks is stood in for by the
  table's GPU of the same chip, and the step between them is their spec ratio. Checked by
  leaving each GPU of the table out in turn (leave-one-GPU-out) and projecting it from every
  other, through its stand-in, with the model's own ratio or its family's weighted mean less
  the model.
- `stand-in, same model, same chip`: the same, where the measured GPU is of the target's chip
  too (its compute capability), so the estimate is a ratio and a spec step within one chip:
  their errors differ from those across chips (leaving one GPU out, bert base's fp32 checks
  span x2.06 within a chip and x1.21 across chips; resnet50's x1.23 and x1.19).
- `spec`: spec ratios weighed as fitted (engine/pricing/calibration.py). Checked against every
  published pair.

Every check also keeps the table's precision it was made in (published.PRECISIONS: amp, half,
tf32, fp32; a run's fp16 and bf16 are amp, its fp32 with TF32 tf32): one model's errors differ
between them (leaving one GPU out, gnmt's stand-in estimates miss by a median 4% in fp16 and 11%
in fp32, bert base's by 10% and 6%). A range is of one precision, but for TF32 and FP32,
whose checks make one range (RANGE_PRECISION: leaving one GPU out, ranges of their own held 78.8%
and 76.2% of the left-out GPU's figures, one of both 80.6% and 86.6%; benchmarks/RESULTS.md,
issue 40). The ranges pooled over precisions pool those a run can be (published.RUN_PRECISIONS):
pure fp16 (.half()) checks stay apart.

Each check keeps what it left out (the GPU, or the model), and the range's quantile spread
is chosen so that, computed without each of those in turn, it held 80% of the checks of the one
left out (engine/pricing/coverage.py): the 10th-90th percentile where errors do not cluster,
wider where they do. A range is taken, where there are MIN_RESIDUALS checks of it, per model
and precision for the `same model` kinds (the model is a published one, and published models
differ in how far they stray: resnet50's ratios follow the specs, waveglow's do not), else per
model, else per family and precision, else per family, else over every family of the kind,
else it is the default +-40% and says so; a range pooled over precisions says so, and which
precision had too few checks of its own.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace

from engine.pricing import coverage
from engine.pricing.coverage import Check
from engine.pricing.family_mean import Weights, weighted_log_mean
from engine.pricing.published import RUN_PRECISIONS, PublishedTable
from engine.pricing.roofline import chip_distance, chip_step
from engine.pricing.rows import GpuSpec

LEVEL = coverage.TARGET  # the share of estimates on a GPU or model left out a range holds
MIN_RESIDUALS = 20
DEFAULT = (0.6, 1.4)  # factors, with no table or too few residuals
KINDS = (
    "same model",
    "family",
    "stand-in, same model",
    "stand-in, same model, same chip",
    "stand-in, family",
    "spec",
)

# The kinds checked within one source's table (a ratio and the figure it is checked against
# from one harness): their ranges are widened by the between-source range (between_sources).
WITHIN_ONE_SOURCE = KINDS[1:]
# Cross-source checks the between-source range needs (fewer: no widening).
MIN_BETWEEN = 10
# The precision whose range a table precision's estimates take (the module's docstring): TF32
# and FP32 checks pooled; every other precision its own.
RANGE_PRECISION = {"tf32": "tf32+fp32", "fp32": "tf32+fp32"}
# Those pooled over precisions (kind, family or model, ""): the ones a run can be.
POOLED = {RANGE_PRECISION.get(p, p) for p in RUN_PRECISIONS}

# (kind, family, published model or "", precision or "") -> (log(published / estimated), what
# the check left out) of each check. The model is "" for the kinds that do not rest on the
# model's own ratio; "" for the precision: over both.
Key = tuple[str, str, str, str]
Residuals = dict[Key, list[Check]]
AlphaFor = Callable[[str, str], float]  # (table precision, family) -> weight of compute


@dataclass(frozen=True)
class ErrorRange:
    """An 80% range as factors on an estimate, and what it rests on."""

    low: float
    high: float
    kind: str
    family: str = ""  # "" over every family
    model: str = ""  # the published model it is of; "" over the family's
    precision: str = ""  # the table's precision it is of (amp, tf32+fp32); "" pooled
    asked: str = ""  # the precision asked for, where too few of its checks made it pooled
    count: int = 0  # residuals it comes from; 0: the default
    spread: float = LEVEL  # the central share of the residuals it spans (coverage.SPREADS)
    between: int = 0  # cross-source checks it is widened by (between_sources); 0: not widened

    def text(self) -> str:
        if not self.count:
            return "80% range: a default x0.6 to x1.4 (too few published checks of such estimates)"
        of = " ".join(w for w in (self.model or self.family, self.precision) if w)
        of = f"{of} " if of else ""
        tail = (1 - self.spread) / 2 * 100
        text = (
            f"80% range from {self.count:,} checks of {of}'{self.kind}' estimates against "
            f"published figures (their percentiles {tail:.3g} to {100 - tail:.3g})"
        )
        if self.asked and not self.precision:
            text += f", every precision pooled (too few {self.asked} checks)"
        elif self.asked:
            pooled = " and ".join(self.precision.upper().split("+"))
            text += (
                f" ({pooled} checks pooled: apart, their ranges held fewer than 8 in 10 of a "
                "left-out GPU's figures)"
            )
        if self.between:
            text += (
                f", widened by how far {self.between} ratios of one source missed another "
                "source's of the same model and GPUs"
            )
        return text

    def widened(self, between: ErrorRange | None) -> ErrorRange:
        """The range with the between-source range `between` added on each side in
        quadrature on a log scale (independent errors); itself for a default range, a kind
        whose checks are across sources already (WITHIN_ONE_SOURCE) or no `between`."""
        if between is None or not self.count or self.kind not in WITHIN_ONE_SOURCE:
            return self

        def side(a: float, b: float) -> float:
            return math.exp(math.copysign(math.hypot(math.log(a), math.log(b)), math.log(a)))

        low, high = side(self.low, between.low), side(self.high, between.high)
        return replace(self, low=low, high=high, between=between.count)


def quantile_range(residuals: list[float], spread: float = LEVEL) -> tuple[float, float]:
    """(low, high) factors: exp of the log residuals' quantiles that hold their central
    `spread` (0.8: the 10th and 90th percentile), linear between order statistics."""
    low, high = coverage.central(sorted(residuals), spread)
    return math.exp(low), math.exp(high)


def error_range(checks: list[Check], key: Key) -> ErrorRange:
    """The range of one (kind, family, model, precision)'s checks, its spread chosen by
    coverage.held_out_spread."""
    spread = coverage.held_out_spread(checks)
    low, high = quantile_range([v for v, _ in checks], spread)
    return ErrorRange(low, high, *key, count=len(checks), spread=spread)


def ranges(residuals: Residuals) -> dict[Key, ErrorRange]:
    """The range of every (kind, family, model, precision) with enough residuals (TF32 and
    FP32 as one: RANGE_PRECISION), of each model over the precisions a run can be, of every
    (kind, family, precision) over its models (model ""), of each family over those
    precisions, and of every kind over all (family "")."""
    own: dict[Key, list[Check]] = defaultdict(list)
    for (kind, family, model, precision), checks in sorted(residuals.items()):
        own[(kind, family, model, RANGE_PRECISION.get(precision, precision))] += checks
    pooled: dict[Key, list[Check]] = defaultdict(list)
    for (kind, family, model, precision), checks in sorted(own.items()):
        if precision not in POOLED:
            continue  # pure fp16 (.half()): its own ranges only
        pooled[(kind, "", "", "")] += checks
        pooled[(kind, family, "", "")] += checks
        if model:
            pooled[(kind, family, model, "")] += checks
            pooled[(kind, family, "", precision)] += checks
    groups = {**pooled, **own}
    return {
        key: error_range(checks, key)
        for key, checks in groups.items()
        if len(checks) >= MIN_RESIDUALS
    }


def range_for(
    found: dict[Key, ErrorRange], kind: str, family: str, model: str = "", precision: str = ""
) -> ErrorRange:
    """The range of the model (a published model, for the `same model` kinds) in `precision`
    (the table's: amp, tf32, fp32), else of the model, else of the family in `precision`,
    else of the family, else the kind's over every family, else the default. One pooled
    over precisions names `precision` as asked."""
    of = RANGE_PRECISION.get(precision, precision)
    keys = [(kind, family, model, of), (kind, family, model, "")] if model else []
    keys += [(kind, family, "", of), (kind, family, "", ""), (kind, "", "", "")]
    found_range = next((found[k] for k in keys if k in found), None)
    if found_range is None:
        return ErrorRange(*DEFAULT, kind)
    if precision and found_range.precision != precision:
        return replace(found_range, asked=precision)
    return found_range


def between_sources(table: PublishedTable) -> ErrorRange | None:
    """How far one source's ratio missed another's on the same model and two GPUs (every
    model, and every precision a run can be, pooled: version_to_version's checks), as an 80%
    range; None with fewer than MIN_BETWEEN checks. What a range checked within one source's
    table lacks: a run of yours is made in a harness of its own."""
    found = version_to_version(table)
    checks = [c for key, cs in found.items() if key[3] in RUN_PRECISIONS for c in cs]
    if len(checks) < MIN_BETWEEN:
        return None
    return error_range(checks, ("between sources", "", "", ""))


def model_out(table: PublishedTable, weights: Weights | None = None) -> Residuals:
    """`family`: each model's ratio against the weighted mean log ratio of the others of its
    family (`weights[model]`: computed without the model; plain mean without weights), same GPU
    pair and version (both ways round); the group is the model left out."""
    out: Residuals = defaultdict(list)
    for _, precision, _, _, fa, fb in table.pairs():
        logs: dict[str, list[tuple[float, str]]] = defaultdict(list)
        for model in sorted(fa.keys() & fb.keys()):
            logs[table.family_of(model) or ""].append((math.log(fb[model] / fa[model]), model))
        for family, values in logs.items():
            for i, (value, model) in enumerate(values):
                others = [(m, v) for v, m in values[:i] + values[i + 1 :]]
                if others:
                    miss = value - weighted_log_mean(others, (weights or {}).get(model, {}))
                    out[("family", family, "", precision)] += [(miss, model), (-miss, model)]
    return out


def stand_in_kind(kind: str, source: GpuSpec, target: GpuSpec) -> str:
    """`kind` (errors.KINDS), with ", same chip" for a `stand-in, same model` estimate whose
    measured GPU is of the target's chip (compute capability)."""
    chip = source.compute_capability
    same = kind == "stand-in, same model" and chip and chip == target.compute_capability
    return f"{kind}, same chip" if same else kind


def version_to_version(table: PublishedTable) -> Residuals:
    """`same model`: a model's ratio between two GPUs in one benchmark version against the
    same in another (both ways round); the group is the model."""
    out: Residuals = defaultdict(list)
    versions = table.versions
    for v, w in ((v, w) for i, v in enumerate(versions) for w in versions[i + 1 :]):
        for version, precision, a, b, fa, fb in table.pairs():
            if version != v:
                continue
            ga, gb = table.figures_of(w, precision, a), table.figures_of(w, precision, b)
            for model in sorted(fa.keys() & fb.keys() & ga.keys() & gb.keys()):
                miss = math.log(fb[model] / fa[model]) - math.log(gb[model] / ga[model])
                key = ("same model", table.family_of(model) or "", model, precision)
                out[key] += [(miss, model), (-miss, model)]
    return out


def gpu_out(
    table: PublishedTable,
    specs: dict[str, GpuSpec],
    alpha_for: AlphaFor,
    weights: Weights | None = None,
) -> Residuals:
    """`stand-in, ...`: each GPU of the table left out and projected from every other GPU of
    the same version and precision, through its nearest same-chip stand-in (family estimates
    weighed as model_out's); the group is the GPU left out."""
    out: Residuals = defaultdict(list)
    for target in sorted(g for g in table.gpus if g in specs):
        for version in table.versions:
            for precision in table.precisions:
                where = (target, version, precision)
                _gpu_out_one(table, specs, (alpha_for, weights or {}), where, out)
    return out


def _gpu_out_one(
    table: PublishedTable,
    specs: dict[str, GpuSpec],
    how: tuple[AlphaFor, Weights],
    where: tuple[str, str, str],
    out: Residuals,
) -> None:
    alpha_for, weights = how
    target, version, precision = where
    fb = table.figures_of(version, precision, target)
    stand = _stand_in(table, specs, target, version, precision) if fb else None
    if stand is None:
        return
    fs = table.figures_of(version, precision, stand)
    step = chip_step(specs[stand], specs[target])
    if isinstance(step, str):
        return
    for source in sorted(table.gpus - {target}):
        if not table.of_precision(precision, source, target):
            continue  # two GPUs without TF32: the fp32 checks hold their pair
        fa = table.figures_of(version, precision, source)
        for model in sorted(fa.keys() & fb.keys()):
            family = table.family_of(model) or ""
            # What the stand-in's ratio has to hit: the published ratio less the spec step.
            step_log = math.log(step.weighted(alpha_for(precision, family)))
            truth = math.log(fb[model] / fa[model]) - step_log
            if model in fs:
                own = math.log(fs[model] / fa[model])
                kind = stand_in_kind("stand-in, same model", specs[source], specs[target])
                key = (kind, family, model, precision)
                out[key].append((truth - own, target))
            others = [
                (m, math.log(fs[m] / fa[m]))
                for m in sorted(fa.keys() & fs.keys())
                if m != model and table.family_of(m) == family
            ]
            if others:
                miss = truth - weighted_log_mean(others, weights.get(model, {}))
                out[("stand-in, family", family, "", precision)].append((miss, target))


def _stand_in(
    table: PublishedTable, specs: dict[str, GpuSpec], target: str, version: str, precision: str
) -> str | None:
    """The table's GPU of `target`'s chip nearest to it (engine/pricing/roofline.chip_distance)
    with figures in `version` and `precision`, `target` itself left out."""
    chip = specs[target].compute_capability
    same = [
        g
        for g in table.gpus - {target}
        if chip and g in specs and specs[g].compute_capability == chip
        if table.figures_of(version, precision, g)
    ]
    return min(same, key=lambda g: (chip_distance(specs[target], specs[g]), g), default=None)
