"""What a rental is billed: launch to teardown, at the cloud's billing granularity.

AWS, GCP and Azure bill Linux instances by the second with a one-minute minimum; Lambda,
RunPod and Paperspace by the minute (their pricing pages; a cloud not named here is counted by
the minute, the coarser rule). The launch time is when epochcost asked SkyPilot to provision,
so the figure is an upper bound: billing starts when the instance runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.pricing import cost

PER_SECOND_MINIMUM_60 = frozenset({"aws", "gcp", "azure"})


@dataclass(frozen=True)
class Rental:
    minutes: float
    usd: float


def billed_seconds(cloud: str, seconds: float) -> float:
    """The seconds a cloud bills for `seconds` of a rental."""
    seconds = max(0.0, seconds)
    if cloud in PER_SECOND_MINIMUM_60:
        return max(60.0, math.ceil(seconds))
    return 60.0 * max(1, math.ceil(seconds / 60.0))


def rental(cloud: str, launched_at: float, ended_at: float, usd_per_hour: float) -> Rental:
    """The rental from launch to teardown: billed minutes and dollars at the cluster's $/h."""
    seconds = billed_seconds(cloud, ended_at - launched_at)
    return Rental(round(seconds / 60.0, 4), cost.usd_for_seconds(seconds, usd_per_hour))
