"""How much of a run's time went to waiting for data: the input-wait share and its warning.

A step with an input pipeline first waits on the host for its batch (loaded, decoded and
augmented by the loader) and for the batch's copy to the device; the share of the window's wall
time spent so is the input-wait fraction. TensorFlow's profiler calls a step that waits 5% or
more "moderately input-bound" and 20% or more "highly input-bound"; so do these warnings.
"""

from __future__ import annotations

from typing import Any

from engine.worker.measure.loop import Window

INPUT_BOUND = 0.20
PARTLY_INPUT_BOUND = 0.05
ADVICE = (
    "more loader workers (--loader-workers), pinned memory for a GPU (--pin-memory), "
    "faster storage, or images stored at the size the model takes"
)


def record(windows: list[Window]) -> dict[str, Any]:
    """The result's fields: the overall share (the windows' waits over their wall time) and
    each window's; None for synthetic batches (nothing to wait for)."""
    if not windows or any(w.input_wait_s is None for w in windows):
        return {"input_wait_fraction": None, "input_wait_repeats": None}
    waited = sum(w.input_wait_s or 0.0 for w in windows)
    seconds = sum(w.seconds for w in windows)
    return {
        "input_wait_fraction": min(1.0, waited / seconds) if seconds > 0 else None,
        "input_wait_repeats": [w.input_wait_fraction for w in windows],
    }


def warning(fraction: float | None) -> str | None:
    """The words a result carries when its steps waited for data, with what to try."""
    if fraction is None or fraction < PARTLY_INPUT_BOUND:
        return None
    share = f"{int(fraction * 100)}% of each step waited for data"  # 19.9% is not "20%"
    if fraction >= INPUT_BOUND:
        return f"input-bound: {share}; the device idles meanwhile. Try {ADVICE}"
    return f"partly input-bound: {share}. Try {ADVICE}"
