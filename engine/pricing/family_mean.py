"""The ratio of a model the published table does not hold: its family's published models'
ratios, each weighed by how closely it has followed the rest of its family.

A family's published models do not scale alike: of the convolutional ones, resnet50, ssd and
maskrcnn (images) follow one another to a median 5 to 13% from one GPU to another, and waveglow
(audio) strays from them by a median 28%. A plain geometric mean lets such a model pull every
estimate of the family its way. Each model's log ratio is therefore weighed by the inverse of its
mean square miss against the mean of the family's other models, over every pair of GPUs and
benchmark version that measured them (inverse-variance weights: a model that strays counts
less, models that agree count alike). Nothing of the model being estimated takes part: the
weights a check uses are computed with the model it leaves out out of the table
(engine/pricing/projection_errors.py), and a model of yours is in no published table.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable

from engine.pricing.published import PublishedTable, Ratio

# A mean square miss below this (a log ratio within about 1% of the others') counts as this: no
# model outweighs another more than the table can tell.
FLOOR = 1e-4
# Model left out of the table ("" none) -> {published model: weight}.
Weights = dict[str, dict[str, float]]


def family_weights(table: PublishedTable) -> Weights:
    """The weight of each published model of a family of two or more, computed from the whole
    table ("") and with each model left out in turn (the checks that leave it out)."""
    misses: dict[tuple[str, str], list[float]] = defaultdict(list)
    for _, _, _, _, fa, fb in table.pairs():
        logs: dict[str, dict[str, float]] = defaultdict(dict)
        for model in sorted(fa.keys() & fb.keys()):
            logs[table.family_of(model) or ""][model] = math.log(fb[model] / fa[model])
        for values in logs.values():
            for out in ("", *values):
                kept = {m: v for m, v in values.items() if m != out}
                for model, value in kept.items():
                    rest = [v for m, v in kept.items() if m != model]
                    if rest:
                        misses[(out, model)].append(value - statistics.fmean(rest))
    weights: Weights = defaultdict(dict)
    for (out, model), missed in sorted(misses.items()):
        weights[out][model] = 1 / max(statistics.fmean(v * v for v in missed), FLOOR)
    return dict(weights)


def weighted_log_mean(values: Iterable[tuple[str, float]], weights: dict[str, float]) -> float:
    """The weighted mean of (model, log ratio) pairs; the plain mean where a model has no
    weight (a family of one, or no table)."""
    pairs = list(values)
    if any(model not in weights for model, _ in pairs):
        return statistics.fmean(v for _, v in pairs)
    total = sum(weights[model] for model, _ in pairs)
    return sum(weights[model] * v for model, v in pairs) / total


def family_ratio(ratios: list[Ratio], weights: dict[str, float]) -> float:
    """The family's ratio from its published models' `ratios` (several versions of one model
    each count)."""
    return math.exp(weighted_log_mean(((r.model, math.log(r.ratio)) for r in ratios), weights))
