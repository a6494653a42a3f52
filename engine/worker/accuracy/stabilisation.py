"""When has accuracy settled? The rule, as a function on a finished curve and as a detector
fed one evaluation at a time (the two agree on every curve).

The stabilisation point is the first evaluation i after which accuracy stays within +-band of
accuracy[i] for the next `patience` evaluations. It is known only `patience` evaluations later,
so a run that stops there has trained past the point; the time and cost to accuracy are those
at the point, the run's own cost includes the confirmation.
"""

from __future__ import annotations

from collections.abc import Sequence

# Accuracies are ratios of counts: 0.885 - 0.880 is 0.0050000000000000044 in floating point.
_TOLERANCE = 1e-9


def _holds(accuracies: Sequence[float], i: int, band: float, patience: int) -> bool:
    ref = accuracies[i]
    return all(abs(a - ref) <= band + _TOLERANCE for a in accuracies[i + 1 : i + 1 + patience])


def stabilisation_index(accuracies: Sequence[float], band: float, patience: int) -> int | None:
    """Index of the stabilisation point in a curve, or None when it never settles."""
    for i in range(len(accuracies) - patience):
        if _holds(accuracies, i, band, patience):
            return i
    return None


class StabilisationDetector:
    """Feed accuracies in order with add(); it returns the point's index once it is confirmed
    (and None before). Each add() checks only the one candidate whose window just filled:
    every earlier candidate's window was complete, and failed, at an earlier add()."""

    def __init__(self, band: float, patience: int) -> None:
        if band < 0 or patience < 1:
            raise ValueError("band must be >= 0 and patience >= 1")
        self.band = band
        self.patience = patience
        self.accuracies: list[float] = []
        self.index: int | None = None

    def add(self, accuracy: float) -> int | None:
        self.accuracies.append(accuracy)
        candidate = len(self.accuracies) - 1 - self.patience
        if (
            self.index is None
            and candidate >= 0
            and _holds(self.accuracies, candidate, self.band, self.patience)
        ):
            self.index = candidate
        return self.index
