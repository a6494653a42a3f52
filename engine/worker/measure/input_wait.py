"""How much of a run's time went to waiting for data: the input-wait share and its warning.

A step with an input pipeline first waits on the host for its batch (loaded, decoded and
augmented by the loader) and for the batch's copy to the device; the share of the window's wall
time spent so is the input-wait fraction. TensorFlow's profiler calls a step that waits 5% or
more "moderately input-bound" and 20% or more "highly input-bound"; so do these warnings.

The run's time limit (max_seconds) holds for the wait too (`bounded`): a batch that takes longer
than a whole window may last fails the run naming the data, instead of a worker that waits on a
data set's sleeping or blocked items for ever (the window's own limit is checked between steps).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

from engine.core.errors import RunFailed
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


@contextlib.contextmanager
def bounded(limit_s: float, what: str) -> Iterator[None]:
    """Wait for one batch at most `limit_s` seconds, else RunFailed("config") naming `what`.

    A timer signal (SIGALRM) interrupts the main thread wherever it waits in Python or in a
    system call (a data set's time.sleep, a DataLoader's queue, an open that blocks); where
    there is none (Windows) or not on the main thread, the wait is not bounded."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def too_slow(_signum: int, _frame: object) -> None:
        raise RunFailed(
            "config",
            f"data: {what} gave no batch in {limit_s:g} s, the run's time limit "
            "(max_seconds): a step cannot wait for its data longer than a window may last. "
            f"Make the data faster ({ADVICE}), or raise the limit",
        )

    before = signal.signal(signal.SIGALRM, too_slow)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def source_name(data: str, model_file: str | None) -> str:
    """The data a run waits on, as `bounded` names it: the --data spec, or the model file's
    make_dataset."""
    if data in ("auto", "") and model_file:
        return f"make_dataset in {model_file}"
    return f"--data {data}"
