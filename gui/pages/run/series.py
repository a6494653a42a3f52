"""The numbers the live plots draw for one run, kept in growable numpy buffers (no Qt here).

The headline figure is the result's own statistic: each measured window's samples over its
wall time so far (engine/core/events.py, Step; the result stores the median of the windows'
final figures). Per-step rates (samples / step time) are kept as well, lighter: they leave out
the time between steps, so they run above the window's figure. Step events arrive coalesced,
about one per 100 ms: each appends in O(its steps). Times in seconds since warm-up began,
memory in bytes, money in USD.

With an input pipeline, each step's share spent waiting for its batch (engine Step events'
input_wait_s over the step's time) and the window's share so far (its waits over its wall
time, the result's input_wait_fraction per window) are kept too, as fractions 0..1.

The projection's band is the steps' share of the result's 95% interval, found by the engine's
own function (engine/core/interval.py, throughput_interval) over the window's steps so far.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from engine.core.events import Flops, Precision, Sample, Step
from engine.core.interval import throughput_interval
from engine.pricing import cost

# The engine's interval reads every step time (pure Python, about 1 ms a thousand steps) and a
# step event comes every 100 ms: past EXACT_STEPS steps it is found again only once the window
# has REFRESH_GROWTH times the steps it was last found for (and at the window's end). Its width
# goes as 1/sqrt(steps), so between two finds it is at most about 5% stale.
EXACT_STEPS = 1000
REFRESH_GROWTH = 1.1


class Buffer:
    """A growable float64 column with amortised O(1) append."""

    def __init__(self, capacity: int = 1024) -> None:
        self._data = np.empty(capacity)
        self.n = 0

    def append(self, value: float) -> None:
        if self.n == len(self._data):
            self._grow(self.n + 1)
        self._data[self.n] = value
        self.n += 1

    def extend(self, values: np.ndarray) -> None:
        need = self.n + len(values)
        if need > len(self._data):
            self._grow(need)
        self._data[self.n : need] = values
        self.n = need

    def _grow(self, need: int) -> None:
        size = max(need, 2 * len(self._data))
        self._data = np.concatenate([self._data[: self.n], np.empty(size - self.n)])

    @property
    def values(self) -> np.ndarray:
        """A view of what was appended; later appends never change it."""
        return self._data[: self.n]

    def __len__(self) -> int:
        return self.n


@dataclass(frozen=True)
class WindowSoFar:
    """The running window: its throughput so far (samples / wall time, the result's statistic)
    and the epoch time and cost it projects, low/high from the steps' 95 % interval."""

    repeat: int
    steps: int
    throughput_samples_per_s: float
    epoch_s: tuple[float, float, float]  # low, mid, high
    usd_per_epoch: tuple[float, float, float] | None  # None without a price
    done: bool


def steps_relative(step_times_s: np.ndarray) -> float:
    """The steps' half-width of the result's 95% interval (engine/core/interval.py) over the
    throughput, from the window's finite step times (seconds); inf below two steps."""
    if len(step_times_s) < 2:
        return math.inf
    # With no window figures the engine's interval is the steps' one; its high end is not
    # clipped at zero, as its low end is, so it gives the half-width whole.
    interval = throughput_interval(1.0, (), step_times_s.tolist())
    return interval.high - interval.center


def project(
    throughput: float, relative: float, epoch_samples: int, usd_per_hour: float | None
) -> tuple[tuple[float, float, float], tuple[float, float, float] | None]:
    """(epoch seconds, USD per epoch), each (low, mid, high), at `throughput` +- `relative`."""
    fast = throughput * (1 + relative)
    slow = throughput * (1 - relative)
    epoch = (
        epoch_samples / fast,
        epoch_samples / throughput,
        epoch_samples / slow if slow > 0 else math.inf,
    )
    if usd_per_hour is None:
        return epoch, None
    usd = tuple(cost.usd_per_epoch(s, usd_per_hour) for s in epoch)
    return epoch, usd  # type: ignore[return-value]


class RunSeries:
    """Buffers for one run: steps (warm-up and measured), the windows' figures, monitor
    samples, projections."""

    def __init__(self, batch_size: int, epoch_samples: int, usd_per_hour: float | None) -> None:
        self.batch_size = batch_size
        self.epoch_samples = epoch_samples
        self.usd_per_hour = usd_per_hour
        self.warm_t, self.warm_rate = Buffer(), Buffer()
        self.meas_t, self.meas_rate, self.meas_step_s = Buffer(), Buffer(), Buffer()
        # The result's statistic, a point per event; NaN between windows breaks the line.
        self.window_t, self.window_rate = Buffer(), Buffer()
        self.ends_t, self.ends_rate = Buffer(), Buffer()  # each finished window's own figure
        self.window: WindowSoFar | None = None
        self.proj_t = Buffer()
        # What the cost plot draws (USD per epoch, or seconds without a price), and the epoch
        # seconds it is drawn from: a new price recomputes the first from the second.
        self.proj_low, self.proj_mid, self.proj_high = Buffer(), Buffer(), Buffer()
        self.epoch_low, self.epoch_mid, self.epoch_high = Buffer(), Buffer(), Buffer()
        self.mem_t, self.mem_process, self.mem_device = Buffer(), Buffer(), Buffer()
        self.memory_total_bytes: int | None = None
        self.peak_memory: tuple[float, float] | None = None  # (t, bytes) of this run's peak
        self.latest_t = 0.0
        self._last_event_t = 0.0
        self._repeat: int | None = None
        self._window_start = 0  # where this window's steps start in meas_step_s
        self._relative = (0, math.inf)  # the steps' relative half-width, and for how many steps
        # FLOPs of one step and the device's peak (the worker's Flops event; None: unknown).
        self.flops_per_step: float | None = None
        self.peak_tflops: float | None = None
        self.peak_source = ""
        # The input wait (None in the events: synthetic batches, nothing drawn).
        self.has_waits = False
        self.wait_t, self.wait_share = Buffer(), Buffer()  # each step's wait / step time
        self.wait_window_t, self.wait_window = Buffer(), Buffer()  # waits / wall time so far
        self._wait_repeat: int | None = None
        self._window_wait_s = 0.0
        # A run with a target precision: its 95% interval after each window (the worker's
        # `precision` events), and the last of them.
        self.ci_t, self.ci_figure, self.ci_low, self.ci_high = (
            Buffer(),
            Buffer(),
            Buffer(),
            Buffer(),
        )
        self.precision: Precision | None = None

    def add_precision(self, event: Precision) -> None:
        """The run's interval after a window, as the result would store it."""
        self.precision = event
        self.latest_t = max(self.latest_t, event.elapsed_s)
        for buffer, value in (
            (self.ci_t, event.elapsed_s),
            (self.ci_figure, event.figure),
            (self.ci_low, event.low),
            (self.ci_high, event.high),
        ):
            buffer.append(value)

    def set_flops(self, event: Flops) -> None:
        self.flops_per_step = event.per_step or None
        self.peak_tflops = event.peak_tflops or None
        self.peak_source = event.peak_source

    @property
    def tflop_per_sample(self) -> float | None:
        """TFLOP/s per sample/s: throughput x this = achieved TFLOP/s (None: not counted)."""
        return self.flops_per_step / self.batch_size / 1e12 if self.flops_per_step else None

    @property
    def mfu(self) -> float | None:
        """The running window's FLOP rate over the device's peak (a fraction), where known."""
        per_sample = self.tflop_per_sample
        if self.window is None or per_sample is None or not self.peak_tflops:
            return None
        return self.window.throughput_samples_per_s * per_sample / self.peak_tflops

    def add_steps(self, event: Step) -> None:
        """The steps since the last event, spread evenly over the time since it; measured,
        the window's figure so far."""
        times = np.asarray(event.step_times_s, dtype=float)  # null (non-finite) -> NaN
        n = len(times)
        t = np.empty(0)
        if n:
            start = min(self._last_event_t, event.elapsed_s)
            t = start + (event.elapsed_s - start) * np.arange(1, n + 1) / n
            with np.errstate(divide="ignore", invalid="ignore"):
                rates = np.where(times > 0, event.samples / times, np.nan)
            if event.measured:
                self.meas_t.extend(t)
                self.meas_rate.extend(rates)
                self.meas_step_s.extend(times)
            else:
                self.warm_t.extend(t)
                self.warm_rate.extend(rates)
        self._last_event_t = max(self._last_event_t, event.elapsed_s)
        self.latest_t = max(self.latest_t, event.elapsed_s)
        if event.input_wait_s is not None:
            self._add_waits(event, t, times)
        if event.measured:
            self._add_window_point(event, times)

    def _add_waits(self, event: Step, t: np.ndarray, times: np.ndarray) -> None:
        """Each step's share of its time spent waiting for its batch (0..1), and, measured, the
        window's share so far: its waits over its wall time, as the result counts it."""
        self.has_waits = True
        waits = np.asarray(event.input_wait_s, dtype=float)
        n = min(len(waits), len(times))  # a GPU timer may report its steps a little later
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(times[:n] > 0, np.clip(waits[:n] / times[:n], 0.0, 1.0), np.nan)
        self.wait_t.extend(t[:n])
        self.wait_share.extend(share)
        if not event.measured:
            return
        if event.repeat != self._wait_repeat:  # each window counts its own waits
            if self._wait_repeat is not None:
                self.wait_window_t.append(event.elapsed_s)
                self.wait_window.append(math.nan)  # a break in the line between windows
            self._wait_repeat, self._window_wait_s = event.repeat, 0.0
        self._window_wait_s += float(np.nansum(waits))
        if event.window_seconds > 0:
            self.wait_window_t.append(event.elapsed_s)
            self.wait_window.append(min(1.0, self._window_wait_s / event.window_seconds))

    def _add_window_point(self, event: Step, times: np.ndarray) -> None:
        if event.repeat != self._repeat:  # a new window: its own line and interval
            if self._repeat is not None:
                self.window_t.append(event.elapsed_s)
                self.window_rate.append(math.nan)
            self._repeat = event.repeat
            self._window_start = len(self.meas_step_s) - len(times)
            self._relative = (0, math.inf)
        rate = event.window_throughput
        if rate is None or rate <= 0:
            return
        t = event.elapsed_s
        self.window_t.append(t)
        self.window_rate.append(rate)
        if event.window_done:
            self.ends_t.append(t)
            self.ends_rate.append(rate)
        relative = self._window_relative(event.window_done)
        epoch, usd = project(rate, relative, self.epoch_samples, self.usd_per_hour)
        steps = event.window_samples // max(event.samples, 1)
        self.window = WindowSoFar(event.repeat, steps, rate, epoch, usd, event.window_done)
        if math.isfinite(relative):  # from two steps on
            # Without a price the cost plot shows the projected epoch time instead.
            low, mid, high = usd if usd is not None else epoch
            self.proj_t.append(t)
            self.proj_low.append(low)
            self.proj_mid.append(mid)
            self.proj_high.append(high)
            for buffer, seconds in zip(
                (self.epoch_low, self.epoch_mid, self.epoch_high), epoch, strict=True
            ):
                buffer.append(seconds)

    def _window_relative(self, done: bool) -> float:
        """The steps' relative half-width for this window so far (steps_relative), found again
        as EXACT_STEPS and REFRESH_GROWTH say."""
        times = self.meas_step_s.values[self._window_start :]
        finite = times[np.isfinite(times)]
        steps, relative = self._relative
        if done or len(finite) <= EXACT_STEPS or len(finite) >= steps * REFRESH_GROWTH:
            relative = steps_relative(finite)
            self._relative = (len(finite), relative)
        return relative

    def reprice(self, usd_per_hour: float | None) -> None:
        """The projected costs at another price (None: the projected epoch seconds), each
        computed again from its epoch seconds, never from the figures drawn at the old price
        (a price of 0 would have lost them)."""
        self.usd_per_hour = usd_per_hour
        for shown, from_epoch in (
            (self.proj_low, self.epoch_low),
            (self.proj_mid, self.epoch_mid),
            (self.proj_high, self.epoch_high),
        ):
            seconds = from_epoch.values  # cost.usd_per_epoch's arithmetic, on the whole column
            hours = seconds / cost.SECONDS_PER_HOUR
            shown.values[:] = seconds if usd_per_hour is None else hours * usd_per_hour
        w = self.window
        if w is not None:
            epoch, usd = w.epoch_s, None
            if usd_per_hour is not None:
                usd = tuple(cost.usd_per_epoch(x, usd_per_hour) for x in epoch)
            self.window = replace(w, usd_per_epoch=usd)  # type: ignore[arg-type]

    def add_sample(self, sample: Sample) -> None:
        """This run's memory is the process's own (device or RSS); device use shows others."""
        self.latest_t = max(self.latest_t, sample.elapsed_s)
        own = sample.process_memory_bytes
        if own is None:
            own = sample.memory_used_bytes
        self.mem_t.append(sample.elapsed_s)
        self.mem_process.append(math.nan if own is None else own)
        used = sample.memory_used_bytes
        self.mem_device.append(math.nan if used is None else used)
        if sample.memory_total_bytes:
            self.memory_total_bytes = sample.memory_total_bytes
        if own is not None and (self.peak_memory is None or own > self.peak_memory[1]):
            self.peak_memory = (sample.elapsed_s, float(own))
