"""Is a result precise enough to price? One rule, decided here for the app, the command line
and the report (docs/measuring.md, "Precise enough to price").

A timed result whose 95% throughput interval (engine/core/interval.py) reaches more than
PRICE_TOLERANCE (25%) from its figure on either side is "not precise enough to price": a cost
per epoch from it, and every comparison that rests on it, could be off by more than a quarter,
which is more than most of the differences between the machines it would be compared with.
The result says why, from what it records (the busy share that widened the interval, the
windows' own spread, else the step times' noise), and what to do about it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from engine.core.interval import WIDENED_FOR_OTHERS, interval_text, t975

PRICE_TOLERANCE = 0.25  # the farthest end of the 95% interval from the figure, relative
MARK = "not precise enough to price"
# How to measure again, each cause naming its own; Imprecise.todo says each once.
QUIET = "on a quiet machine"
QUIET_CLOSED = "on a quiet machine (close other programs)"
MORE_WINDOWS = "with more windows (three or more)"
LONGER_WINDOWS = "with longer windows (more steps)"


@dataclass(frozen=True)
class Imprecise:
    """Why a result is not precise enough to price: its interval's sides as interval_text
    writes them, the causes found in what it recorded, and what to do about each."""

    interval: str
    causes: tuple[str, ...]
    remedies: tuple[str, ...]  # how to measure again: QUIET, MORE_WINDOWS, ...

    @property
    def why(self) -> str:
        """'its 95% interval (-88% / +760%) is wider than ±25%: other processes used 48% of
        the CPU while it was measured'."""
        return (
            f"its 95% interval ({self.interval}) is wider than ±{PRICE_TOLERANCE:.0%}: "
            + "; ".join(self.causes)
        )

    @property
    def todo(self) -> str:
        """One sentence, each way to measure named once: 'measure again on a quiet machine
        (close other programs), with more windows (three or more)'."""
        ways = list(dict.fromkeys(self.remedies))
        if QUIET_CLOSED in ways and QUIET in ways:
            ways.remove(QUIET)  # said already, with what to do about it
        return "measure again " + ", ".join(ways)

    def text(self) -> str:
        """The whole verdict in one line: the mark, the cause, what to do."""
        return f"{MARK}: {self.why}. To price it, {self.todo}"


def imprecise(result: Mapping[str, Any]) -> Imprecise | None:
    """The verdict on a stored result (a dict of schema epochcost.result/1): None where it is
    precise enough (its interval within ±25% of its figure), did not end ok, or has no
    interval to judge (stored before intervals were recorded)."""
    figure, ci = result.get("throughput_samples_per_s"), result.get("throughput_ci95")
    if result.get("status", "ok") != "ok" or not ci or not _number(figure) or not figure > 0:
        return None
    low, high = ci
    if not (_number(low) and _number(high)):
        return None
    center = float(figure)
    if max(center - low, high - center) <= PRICE_TOLERANCE * center:
        return None
    found = [*_busy(result), *_windows(result, center)] or [_steps(result)]
    return Imprecise(
        interval_text(ci, center),
        tuple(cause for cause, _ in found),
        tuple(way for _, ways in found for way in ways),
    )


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _busy(result: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """Other processes' share of the CPU, where it widened the interval."""
    share = result.get("other_cpu_fraction")
    if not _number(share) or WIDENED_FOR_OTHERS not in (result.get("interval_method") or ""):
        return []
    return [
        (
            f"other processes used {share:.0%} of the CPU while it was measured",
            (QUIET_CLOSED,),
        )
    ]


def _windows(result: Mapping[str, Any], center: float) -> list[tuple[str, tuple[str, ...]]]:
    """The windows' own spread (Student's t over them), where it alone passes the tolerance."""
    rates = [r for r in result.get("throughput_repeats") or () if _number(r)]
    n = len(rates)
    if n < 2 or t975(n - 1) * statistics.stdev(rates) / math.sqrt(n) <= PRICE_TOLERANCE * center:
        return []
    return [
        (
            f"its {n} windows disagree ({min(rates):,.1f} to {max(rates):,.1f} samples/s): "
            "the machine's speed changed during the run",
            (QUIET, MORE_WINDOWS),
        )
    ]


def _steps(result: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    """Otherwise the step times' noise inside the windows (or too few windows to tell)."""
    steps = result.get("steps_measured")
    n = len(result.get("throughput_repeats") or ()) or 1
    counted = f"{steps:,} steps" if _number(steps) else "its steps"
    if n < 3:
        return (
            f"{counted} in {n} window{'s' if n > 1 else ''}: too few windows to tell the "
            "machine's speed apart from its noise",
            (MORE_WINDOWS,),
        )
    return (
        f"its step times vary too much ({counted} over {n} windows)",
        (LONGER_WINDOWS, QUIET),
    )
