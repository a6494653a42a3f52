"""Step events are coalesced: about one every 100 ms, one at each window's end with the window's
own figures, and no step lost (not on a cancel, nor on a failure)."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

from engine.core.errors import RunFailed
from engine.core.events import STEP_EVENT_EVERY_S, Finished, Phase, Step
from engine.measure.config import RunConfig
from engine.worker.frameworks.timers import WallTimer
from engine.worker.measure.loop import Measurement, measure
from tests.engine.helpers import TINY, run_events

STEP_S = 0.0005


class Session:
    """Steps of about half a millisecond; `on_step(n)` runs inside step n (1-based)."""

    parameters, device, compiles = 1, "cpu", False

    def __init__(self, on_step=None) -> None:
        self.timer = WallTimer()
        self.steps = 0
        self.on_step = on_step

    def step(self) -> None:
        self.steps += 1
        if self.on_step:
            self.on_step(self.steps)
        end = time.perf_counter() + STEP_S
        while time.perf_counter() < end:
            pass

    def sync(self) -> None: ...
    def loss(self) -> float | None:
        return 0.0

    def device_memory(self):
        return None

    def reset_peak_memory(self) -> None: ...
    def window_warnings(self) -> list[str]:
        return []


class Monitor:
    def drain(self):
        return []

    def reset_peaks(self) -> None: ...
    def begin_window(self) -> None: ...
    def summary(self):
        return SimpleNamespace(peak_process_memory_bytes=None)


def config(steps: int, repeats: int = 2) -> RunConfig:
    return RunConfig(
        model="tiny-mlp",
        batch_size=8,
        warmup_steps=5,
        min_steps=steps,
        max_steps=steps,
        max_seconds=60.0,
        stability_threshold=0.0,
        repeats=repeats,
    )


def run(session: Session, cfg: RunConfig, cancel: threading.Event | None = None):
    out = Measurement()
    events = []
    gen = measure(session, cfg, "r", cancel or threading.Event(), Monitor(), out)
    try:
        for event in gen:
            events.append(event)
    except RunFailed as exc:
        return events, out, exc
    return events, out, None


def steps_of(events, measured: bool) -> int:
    return sum(e.steps for e in events if isinstance(e, Step) and e.measured == measured)


def test_steps_come_coalesced_and_every_one_arrives():
    session = Session()
    events, out, failure = run(session, config(400))
    assert failure is None
    step_events = [e for e in events if isinstance(e, Step)]
    assert steps_of(events, True) == sum(w.steps for w in out.windows) == 800
    assert steps_of(events, False) == len(out.warmup_step_times_s) == 5
    assert len(step_events) < 800 / 10  # far fewer events than steps
    # Indices run on within a window, and the times are the loop's own.
    for repeat, window in enumerate(out.windows):
        mine = [e for e in step_events if e.measured and e.repeat == repeat]
        assert [t for e in mine for t in e.step_times_s] == window.step_times_s
        assert [e.index for e in mine] == [sum(e.steps for e in mine[:i]) for i in range(len(mine))]
        # The window's last event has the window's own figure, as the result keeps it.
        assert [e.window_done for e in mine] == [False] * (len(mine) - 1) + [True]
        assert mine[-1].window_throughput == window.throughput_samples_per_s
        # Before it, the window so far: the steps done over the wall time since its start.
        for e in mine[:-1]:
            assert e.window_samples == (e.index + e.steps) * 8
            assert 0 < e.window_seconds < window.seconds
    # An event mid-window only once STEP_EVENT_EVERY_S has passed since the one before.
    measured = [e for e in step_events if e.measured]
    for before, after in zip(measured, measured[1:], strict=False):
        if not after.window_done and after.repeat == before.repeat:
            assert after.elapsed_s - before.elapsed_s >= STEP_EVENT_EVERY_S


def test_warm_up_ends_with_its_steps_before_the_first_window_begins():
    events, _, _ = run(Session(), config(20, repeats=1))
    first_window = next(
        i for i, e in enumerate(events) if isinstance(e, Phase) and e.phase == "measuring"
    )
    assert steps_of(events[:first_window], False) == 5
    assert steps_of(events[first_window:], False) == 0


def test_a_cancel_mid_window_loses_no_step():
    cancel = threading.Event()
    session = Session(on_step=lambda n: cancel.set() if n == 5 + 150 else None)
    events, out, failure = run(session, config(100_000), cancel)
    assert failure is not None and failure.kind == "cancelled"
    assert steps_of(events, False) + steps_of(events, True) == session.steps == 155


def test_a_failing_step_loses_none_before_it():
    def fail(n: int) -> None:
        if n == 5 + 120:
            raise RunFailed("framework", "boom")

    session = Session(on_step=fail)
    events, _, failure = run(session, config(100_000))
    assert failure is not None and failure.message == "boom"
    assert steps_of(events, True) == 119  # the 120th never finished


def test_a_tiny_model_sends_far_fewer_events_than_steps():
    cfg = TINY.with_changes(min_steps=600, max_steps=600, stability_threshold=0.0, repeats=1)
    events = run_events(cfg)
    result = events[-1]
    assert isinstance(result, Finished)
    step_events = [e for e in events if isinstance(e, Step) and e.measured]
    assert sum(e.steps for e in step_events) == result.result["steps_measured"] == 600
    assert len(step_events) < 600 / 5
    assert step_events[-1].window_throughput == result.result["throughput_samples_per_s"]
