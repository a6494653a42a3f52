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
import time
from collections.abc import Callable, Iterator
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


STEP_WAIT = (
    "a step cannot wait for its data longer than a window may last. "
    f"Make the data faster ({ADVICE}), or raise the limit"
)


@contextlib.contextmanager
def bounded(
    limit_s: float,
    what: str,
    waits_for: str = "gave no batch",
    why: str = "",
) -> Iterator[None]:
    """Wait for `what` at most `limit_s` seconds, else RunFailed("config") naming it, what it
    did not do in time (`waits_for`), and why the limit holds and what to do (`why`; by
    default a training step's).

    A timer signal (SIGALRM) interrupts the main thread wherever it waits in Python or in a
    system call (a data set's time.sleep, a DataLoader's queue, an open that blocks). A wait
    inside a framework's own threads (tf.data's iterator waits in C++, where no Python signal
    handler runs) is not interrupted by it: the watchdog (when_stuck) ends the process
    GRACE_S later, after its handler reported the same failure. Where there is no SIGALRM
    (Windows) or not on the main thread, the wait is not bounded."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return
    failure = RunFailed(
        "config",
        f"data: {what} {waits_for} in {limit_s:g} s, the run's time limit (max_seconds): "
        + (why or STEP_WAIT),
    )

    def too_slow(_signum: int, _frame: object) -> None:
        raise failure

    before = signal.signal(signal.SIGALRM, too_slow)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    _WATCH.arm(limit_s + GRACE_S, failure)
    try:
        yield
    finally:
        _WATCH.disarm()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


GRACE_S = 2.0  # after the limit, for the signal's handler to run before the watchdog acts


class _Watchdog:
    """One thread for the process, started by when_stuck: while a bounded wait is armed past
    its deadline, it hands the failure to the handler (which reports it and ends the process).
    Arming and disarming are two assignments: nothing is started per step.

    The thread sleeps until the first wait is armed: a run on a synthetic batch (no bounded
    waits: the default timed run) never wakes it. Once armed (a run with an input pipeline, a
    data set's load), it polls four times a second for the rest of the process: arming and
    disarming stay two assignments in every step (benchmarks/RESULTS.md, issue 42)."""

    def __init__(self) -> None:
        self.deadline: float | None = None
        self.failure: RunFailed | None = None
        self.handler: Callable[[RunFailed], None] | None = None
        self._used = threading.Event()  # set by the first arm()

    def arm(self, after_s: float, failure: RunFailed) -> None:
        self.failure = failure
        self.deadline = time.monotonic() + after_s
        if not self._used.is_set():  # an attribute read on every later step
            self._used.set()

    def disarm(self) -> None:
        self.deadline = None

    def watch(self) -> None:
        self._used.wait()
        while True:
            deadline, failure = self.deadline, self.failure
            if deadline is not None and failure is not None and time.monotonic() > deadline:
                if self.handler is not None:
                    self.handler(failure)
                return
            time.sleep(0.25)


_WATCH = _Watchdog()


def when_stuck(handler: Callable[[RunFailed], None]) -> None:
    """Set what happens when a bounded wait outlives its limit and its signal (the worker:
    report the failure as the run's end and exit); starts the watchdog's thread once."""
    started = _WATCH.handler is not None
    _WATCH.handler = handler
    if not started:
        threading.Thread(target=_WATCH.watch, name="epochcost-data-watchdog", daemon=True).start()


def source_name(data: str, model_file: str | None) -> str:
    """The data a run waits on, as `bounded` names it: the --data spec, or the model file's
    make_dataset."""
    if data in ("auto", "") and model_file:
        return f"make_dataset in {model_file}"
    return f"--data {data}"
