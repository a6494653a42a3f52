"""The measuring loop every backend shares (docs/measuring.md).

Warm-up steps are excluded; each window starts and ends on a device synchronisation, and its
throughput is samples / wall time between them. Per-step times come from the session's timer
(device events on GPUs) for the distribution, with no sync inside a step. A window ends when
IQR/median of step times is under the threshold after min_steps, or at max_steps / max_seconds
(engine/worker/measure/stop_rule.py: stability is checked at min_steps and then every 1/256 of
the steps so far). How many windows: engine/worker/measure/windows.py (the repeats, or until
a target precision is met).
Steps go out coalesced (Pending): a `step` event at least every 100 ms and at the end of warm-up
and of each window, with the window's samples and wall time so far (docs/architecture.md).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Generator
from dataclasses import dataclass, field

from engine.core.errors import RunFailed
from engine.core.events import STEP_EVENT_EVERY_S, Event, Phase
from engine.measure.config import RunConfig
from engine.worker.measure.monitor import Monitor
from engine.worker.measure.session import ProcessGroup, Session
from engine.worker.measure.step_events import Clock, Pending
from engine.worker.measure.stop_rule import StopRule
from engine.worker.measure.windows import Windows

# A data-parallel run's ranks agree whether to stop (the stop rule, a cancel) every few steps,
# about this often at the warm-up's pace: one collective per step would cost a small model
# much of its step.
AGREE_EVERY_S = 0.02
MAX_AGREE_EVERY = 100
_REASONS = ("", "stable", "max_steps", "max_seconds")


@dataclass
class Window:
    """One measured window: `steps` optimizer steps in `seconds` between two syncs."""

    steps: int
    samples: int
    seconds: float
    stop_reason: str
    step_times_s: list[float]
    # A data-parallel run: each rank's own wall seconds; `seconds` is the slowest's, `samples`
    # every rank's together.
    rank_seconds: list[float] | None = None
    # With an input pipeline: host seconds the window's steps waited for their batches.
    input_wait_s: float | None = None

    @property
    def input_wait_fraction(self) -> float | None:
        """The share of the window's wall time spent waiting for data (0..1)."""
        if self.input_wait_s is None or self.seconds <= 0:
            return None
        return min(1.0, self.input_wait_s / self.seconds)

    @property
    def throughput_samples_per_s(self) -> float:
        return self.samples / self.seconds


@dataclass
class Measurement:
    warmup_step_times_s: list[float] = field(default_factory=list)
    warmup_seconds: float = 0.0
    compile_seconds: float | None = None
    # Peak memory during warm-up (allocator and compile caches grow here), kept apart from the
    # steady peak of the measured windows: framework view and monitor (RSS / NVML) view.
    warmup_peak_memory_bytes: int | None = None
    windows: list[Window] = field(default_factory=list)
    measuring_seconds: float = 0.0  # with a target: wall time from the first window's start
    loss: float | None = None
    warnings: list[str] = field(default_factory=list)
    group: ProcessGroup | None = None  # a data-parallel run's processes


def _check_cancel(cancel: threading.Event) -> None:
    if cancel.is_set():
        raise RunFailed("cancelled", "cancelled by the user")


def measure(
    session: Session,
    config: RunConfig,
    run_id: str,
    cancel: threading.Event,
    monitor: Monitor,
    out: Measurement,
) -> Generator[Event, None, None]:
    """Run warm-up and the measured windows, yielding events; fill `out`."""
    out.group = getattr(session, "group", None)
    world = out.group.world_size if out.group else 1
    pending = Pending(run_id, config.batch_size * world, Clock())  # samples: the global batch
    pending.waits = getattr(session, "input_waits", None)
    try:
        yield from _measure(session, config, run_id, cancel, monitor, out, pending)
    except Exception:
        # A failure or a cancel loses no step that was measured (a window collects its steps'
        # times only when it sends an event: the rest are still the timer's). A device that
        # failed may not answer: then the steps already collected go out.
        with contextlib.suppress(Exception):
            pending.times += session.timer.completed()
        if pending.times:
            yield pending.take()
        raise


def _measure(
    session: Session,
    config: RunConfig,
    run_id: str,
    cancel: threading.Event,
    monitor: Monitor,
    out: Measurement,
    pending: Pending,
) -> Generator[Event, None, None]:
    # A compiling session always gets at least one step before the window, so that compile
    # time never lands inside it.
    warmup = max(config.warmup_steps, 1 if session.compiles else 0)
    yield Phase(run_id=run_id, phase="warmup", expected_steps=warmup)
    session.sync()  # start warm-up from an idle device
    t0 = time.perf_counter()
    pending.begin(measured=False)
    group = out.group
    session.timer.start()
    for i in range(warmup):
        if group is None:  # ranks stop together, at an agreed step
            _check_cancel(cancel)
        session.step()
        session.timer.stop()
        pending.collect(session.timer.completed(), out.warmup_step_times_s)
        if pending.due(time.perf_counter()):
            yield pending.take()
            yield from monitor.drain()  # with the steps, as in a window (below)
        if i == 0 and session.compiles:
            session.sync()  # the first call traces/compiles: time it on its own
            out.compile_seconds = time.perf_counter() - t0
    session.sync()  # warm-up ends with an idle device
    pending.collect(session.timer.flush(), out.warmup_step_times_s)
    out.warmup_seconds = time.perf_counter() - t0
    every = 1
    if group is not None:  # the ranks' first agreement: a cancel, and how often to agree
        stop, every = group.agree([int(cancel.is_set()), _agree_every(out.warmup_step_times_s)])
        if stop:
            raise RunFailed("cancelled", "cancelled by the user")
    if pending.times:
        yield pending.take()  # warm-up's last steps, before the first window's phase
    out.warmup_peak_memory_bytes = _warmup_peak(session, monitor)
    session.reset_peak_memory()
    monitor.reset_peaks()
    monitor.begin_window()  # energy and mean power cover the measured windows only
    plan = _plan(session, config, monitor, group)
    while (limits := plan.next()) is not None:
        detail = plan.detail()
        window = yield from _window(
            session, limits, run_id, cancel, monitor, plan.count, pending, group, every, detail
        )
        out.windows.append(window)
        now = pending.clock.elapsed()
        ended = plan.ended(window.throughput_samples_per_s, window.step_times_s, run_id, now)
        if ended is not None:  # with a target: the interval so far
            yield ended
        out.warnings += session.window_warnings()
        # A window a target's budget cut (never the first) is not one the limit cut short.
        limit = limit_warning(config, window) if limits is config else None
        if limit and limit not in out.warnings:
            out.warnings.append(limit)
    out.measuring_seconds = plan.seconds
    out.loss = session.loss()


def _plan(
    session: Session, config: RunConfig, monitor: Monitor, group: ProcessGroup | None
) -> Windows:
    """The run's windows (engine/worker/measure/windows.py); on a CPU, a target weighs other
    processes' share of it as the result's interval does."""
    if config.target_precision_pct is None:
        return Windows(config, lambda: None, group=group)
    on_cpu = session.device == "cpu"
    threads = int(session.environment().get("threads") or 1) if on_cpu else 1
    share = monitor.other_cpu_fraction if on_cpu else (lambda: None)
    return Windows(config, share, threads, group)


def _warmup_peak(session: Session, monitor: Monitor) -> int | None:
    framework = session.device_memory()
    sampled = monitor.summary().peak_process_memory_bytes
    peaks = [p for p in (framework and framework["peak_bytes"], sampled) if p]
    return max(peaks) if peaks else None


def _window(
    session: Session,
    config: RunConfig,
    run_id: str,
    cancel: threading.Event,
    monitor: Monitor,
    repeat: int,
    pending: Pending,
    group: ProcessGroup | None = None,
    every: int = 1,
    detail: str = "",
) -> Generator[Event, None, Window]:
    batch = config.batch_size * (group.world_size if group else 1)  # every rank's samples
    yield Phase(
        run_id=run_id,
        phase="measuring",
        expected_steps=config.max_steps,
        detail=detail or f"repeat {repeat + 1} of {config.repeats}",
    )
    times: list[float] = []
    rule = StopRule(config, times)
    steps = 0
    # Per step only what must be (between two of tiny-mlp's steps 5-7 us went by, 3 now, a
    # hand loop's 1): bound methods looked up once, the timer's chain started once (one call
    # a step), its times collected only when an event is due or the rule is asked, the rule
    # asked only at a step count or a time at which it can end the window
    # (StopRule.next_check), events due checked inline.
    timer, step, clock, cancelled = session.timer, session.step, time.perf_counter, cancel.is_set
    stop, completed = timer.stop, timer.completed
    max_seconds, check_at = config.max_seconds, rule.next_check()
    session.sync()  # window start: nothing queued from before
    if group is not None and group.agree([int(cancel.is_set())])[0]:  # ranks start together
        raise RunFailed("cancelled", "cancelled by the user")
    t0 = clock()
    pending.begin(measured=True, repeat=repeat, window_t0=t0)
    timer.start()
    while True:
        if group is None and cancelled():
            raise RunFailed("cancelled", "cancelled by the user")
        step()
        stop()
        steps += 1
        now = clock()
        if now - pending.sent >= STEP_EVENT_EVERY_S:
            pending.collect(completed(), times)
            yield pending.take()
            # The monitor's samples (about two a second) go out with the steps, every 100 ms:
            # asking its queue at every step cost a millisecond step 0.3%.
            yield from monitor.drain()
        reason = ""
        if steps >= check_at or now - t0 >= max_seconds:
            pending.collect(completed(), times)
            reason = rule.reason(steps, now - t0)
            check_at = rule.next_check()
        if group is not None:
            reason = _agreed(group, reason, steps, every, config, cancel)
        if reason:
            break
    session.sync()  # window end: every step's work is done before the clock is read
    seconds = time.perf_counter() - t0
    rank_seconds = None
    if group is not None:  # the window is the slowest rank's (and ends on a barrier)
        rank_seconds = group.gather(seconds)
        seconds = max(rank_seconds)
    pending.collect(session.timer.flush(), times)
    waited = sum(pending.waits) if pending.waits is not None else None
    yield pending.take(window=(steps * batch, seconds))  # the window's own figures
    return Window(steps, steps * batch, seconds, reason, times, rank_seconds, waited)


def _agree_every(warmup_times: list[float]) -> int:
    """Steps between two agreements, from this rank's warm-up pace (the ranks take the most)."""
    if not warmup_times:
        return 1
    per_step = sorted(warmup_times)[len(warmup_times) // 2]
    return int(min(MAX_AGREE_EVERY, max(1, AGREE_EVERY_S // max(per_step, 1e-9))))


def _agreed(
    group: ProcessGroup,
    reason: str,
    steps: int,
    every: int,
    config: RunConfig,
    cancel: threading.Event,
) -> str:
    """The ranks' common decision: stop when any rank's rule says so, at an agreed step (every
    `every` steps, and at max_steps, which every rank reaches at once); "" between them."""
    if steps % every and steps < config.max_steps:
        return ""
    stop, cancelled = group.agree([_REASONS.index(reason), int(cancel.is_set())])
    if cancelled:
        raise RunFailed("cancelled", "cancelled by the user")
    return _REASONS[stop]


def limit_warning(config: RunConfig, window: Window) -> str | None:
    """Said in words when a limit ended a window before the figure could settle."""
    if window.stop_reason == "max_seconds" and window.steps < config.min_steps:
        return (
            f"a measuring window ended at the {config.max_seconds:g} s time limit after "
            f"{window.steps} steps, fewer than the {config.min_steps} asked for: the figure rests "
            f"on few steps; raise the time limit (--max-seconds, or Max. time (s) in the "
            f"app) to at least {_seconds_for(config.min_steps, window):g} s, or lower min steps"
        )
    return None


def _seconds_for(steps: int, window: Window) -> float:
    """A time limit that would fit `steps` at this window's pace, rounded up generously."""
    per_step = window.seconds / max(window.steps, 1)
    return float(max(1, round(per_step * steps * 1.5 + 0.5)))
