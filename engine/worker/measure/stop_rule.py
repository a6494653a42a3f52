"""When a measured window ends (engine/worker/measure/loop.py runs the window): when its step
times have settled (IQR/median under the stability threshold, after min_steps), or at
max_steps or max_seconds (docs/measuring.md, "Stop rules")."""

from __future__ import annotations

from engine.core.stats import relative_iqr_of_sorted
from engine.measure.config import RunConfig

# After min_steps the stop rule's stability is checked again once the window has grown by this
# share of its steps (StopRule).
STABILITY_CHECK_SHARE = 1 / 256


class StopRule:
    """A window's stop rule over its step times so far (`times`, which the loop extends).

    Stability is checked at min_steps and then each time the window has grown by
    STABILITY_CHECK_SHARE of its steps, on the times put in order at that check (the new ones
    appended and the list sorted: Timsort merges the short new run into the sorted one). The
    limits are checked at every step. So the rule costs a step the same however long the window
    is: keeping every time in order by a sorted insert cost a millisecond step 0.4% at 8,000
    steps (py-spy, tiny-mlp) and grew with the window. A window may end up to 1/256 of its steps
    after the first step at which it was stable."""

    def __init__(self, config: RunConfig, times: list[float]) -> None:
        self._config = config
        self._times = times
        self._ordered: list[float] = []
        self._check_at = max(1, config.min_steps)  # steps at which stability is next checked

    def next_check(self) -> int:
        """The least step count at which reason() may end the window other than by its time
        limit: before it, and under max_seconds, reason() is "" (the loop skips asking)."""
        if self._config.stability_threshold <= 0:
            return self._config.max_steps
        return min(self._check_at, self._config.max_steps)

    def reason(self, steps: int, seconds: float) -> str:
        """Why the window ends after `steps` steps and `seconds`, or ""."""
        if steps < self._check_at or self._config.stability_threshold <= 0:
            return stop_reason(self._config, steps, None, seconds)
        self._ordered += self._times[len(self._ordered) :]
        self._ordered.sort()
        self._check_at = steps + max(1, int(steps * STABILITY_CHECK_SHARE))
        return stop_reason(self._config, steps, self._ordered, seconds)


def stop_reason(config: RunConfig, steps: int, ordered: list[float] | None, seconds: float) -> str:
    """Why the window ends now, or "". `ordered`: the step times so far, in order; None when
    stability is not checked at this step."""
    threshold = config.stability_threshold
    if (
        ordered
        and threshold > 0
        and len(ordered) >= config.min_steps
        and relative_iqr_of_sorted(ordered) < threshold
    ):
        return "stable"
    if steps >= config.max_steps:
        return "max_steps"
    if seconds >= config.max_seconds:
        return "max_seconds"
    return ""
