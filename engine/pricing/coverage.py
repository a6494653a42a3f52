"""How wide a range must be to hold 80% of the estimates it is given to, on a GPU or model it
never saw: the quantile spread chosen by cross-validation over groups of checks.

A check is one estimate compared with a published figure: its log residual log(published /
estimated), and its group, the thing it left out (a GPU for leave-one-GPU-out checks, a model
for leave-one-model-out ones). Residuals of one group share its error (a GPU whose spec ratio
misleads misleads for every model), so the 10th-90th percentile of every group's residuals
together holds fewer than 80% of a new group's. The spread used is the narrowest central one
(10th-90th, 9.5th-90.5th, ... 1st-99th percentile) that, computed without each group in turn,
holds at least 80% of that group's residuals, over all groups together (each residual counts
once, as each published pair does in benchmarks/projection_accuracy.py).

Quantiles are linear between order statistics: of n sorted values the k-th (k = 1..n) sits at
(k - 1) / (n - 1), as statistics.quantiles(method="inclusive") places them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

TARGET = 0.8  # the share of a new group's estimates a range is to hold
# Central spreads tried, narrowest first: 0.80 (10th-90th percentile) to 0.98 (1st-99th).
SPREADS = tuple(round(0.80 + 0.01 * i, 2) for i in range(19))

Check = tuple[float, str]  # (log residual, group left out)


def quantile(ordered: Sequence[float], p: float) -> float:
    """The `p` quantile (0..1) of sorted values, linear between order statistics."""
    at = (len(ordered) - 1) * p
    below = math.floor(at)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (at - below) * (ordered[above] - ordered[below])


def central(ordered: Sequence[float], spread: float) -> tuple[float, float]:
    """(low, high) log residuals holding the central `spread` (0.8: 10th and 90th percentile)
    of sorted values."""
    tail = (1 - spread) / 2
    return quantile(ordered, tail), quantile(ordered, 1 - tail)


def held_out_spread(checks: Sequence[Check]) -> float:
    """The narrowest of SPREADS whose range, computed without each group in turn, holds TARGET
    of that group's residuals (all groups pooled); TARGET itself with fewer than two groups;
    the widest of SPREADS when none does."""
    groups: dict[str, list[float]] = defaultdict(list)
    for value, group in checks:
        groups[group].append(value)
    if len(groups) < 2:
        return TARGET
    others = {g: sorted(v for v, h in checks if h != g) for g in groups}
    for spread in SPREADS:
        inside = 0
        for group, values in groups.items():
            low, high = central(others[group], spread)
            inside += sum(low <= v <= high for v in values)
        if inside >= TARGET * len(checks):
            return spread
    return SPREADS[-1]
