"""The numbers the live plots draw for one run, kept in growable numpy buffers (no Qt here).

Events append in O(1); the running statistics (median step time and its confidence interval,
projected epoch time and cost) are recomputed on the plot timer, not per event, so a run with a
million steps stays cheap. Times in seconds since warm-up began, memory in bytes, money in USD.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.core.events import Flops, Sample, Step
from engine.pricing import cost

# z for a two-sided 95 % interval.
Z_95 = 1.96
# Up to this many points per redraw for steps that arrived together, while the run is short
# enough (in measured steps) for it to cost nothing.
INTERMEDIATE_POINTS = 25
INTERMEDIATE_MAX_STEPS = 2_000


class Buffer:
    """A growable float64 column with amortised O(1) append."""

    def __init__(self, capacity: int = 1024) -> None:
        self._data = np.empty(capacity)
        self.n = 0

    def append(self, value: float) -> None:
        if self.n == len(self._data):
            self._data = np.concatenate([self._data, np.empty(len(self._data))])
        self._data[self.n] = value
        self.n += 1

    @property
    def values(self) -> np.ndarray:
        """A view of what was appended; later appends never change it."""
        return self._data[: self.n]

    def __len__(self) -> int:
        return self.n


def median_interval(values: np.ndarray, z: float = Z_95) -> tuple[float, float, float]:
    """(low, median, high): the median with a distribution-free confidence interval.

    The bounds are the order statistics at (1-based) ranks n/2 - z*sqrt(n)/2 and
    1 + n/2 + z*sqrt(n)/2, so the interval narrows as 1/sqrt(n) while the window settles
    (p10/p90 of the steps would not).
    """
    n = len(values)
    half = z * math.sqrt(n) / 2
    low = max(0, math.floor(n / 2 - half) - 1)
    high = min(n - 1, math.ceil(1 + n / 2 + half) - 1)
    ranked = np.partition(values, [low, high])
    return float(ranked[low]), float(np.median(values)), float(ranked[high])


@dataclass(frozen=True)
class Projection:
    """Where the run is heading, from the measured steps so far (low/high: 95 % interval)."""

    steps: int
    median_step_s: float
    throughput_samples_per_s: float
    epoch_s: tuple[float, float, float]  # low, mid, high
    usd_per_epoch: tuple[float, float, float] | None  # None without a price


def project(
    step_times_s: np.ndarray, batch_size: int, epoch_samples: int, usd_per_hour: float | None
) -> Projection:
    """Epoch time and cost per epoch from the per-step times measured so far."""
    fast, mid, slow = median_interval(step_times_s)
    epoch = tuple(epoch_samples * t / batch_size for t in (fast, mid, slow))
    usd = None
    if usd_per_hour is not None:
        usd = tuple(cost.usd_per_epoch(s, usd_per_hour) for s in epoch)
    return Projection(len(step_times_s), mid, batch_size / mid, epoch, usd)  # type: ignore[arg-type]


class RunSeries:
    """Buffers for one run: steps (warm-up and measured), monitor samples, projections."""

    def __init__(self, batch_size: int, epoch_samples: int, usd_per_hour: float | None) -> None:
        self.batch_size = batch_size
        self.epoch_samples = epoch_samples
        self.usd_per_hour = usd_per_hour
        self.warm_t, self.warm_rate = Buffer(), Buffer()
        self.meas_t, self.meas_rate, self.meas_step_s = Buffer(), Buffer(), Buffer()
        self.median_t, self.median_rate = Buffer(), Buffer()
        self.proj_t = Buffer()
        self.proj_low, self.proj_mid, self.proj_high = Buffer(), Buffer(), Buffer()
        self.mem_t, self.mem_process, self.mem_device = Buffer(), Buffer(), Buffer()
        self.memory_total_bytes: int | None = None
        self.peak_memory: tuple[float, float] | None = None  # (t, bytes) of this run's peak
        self.latest_t = 0.0
        self.projection: Projection | None = None
        self._projected_steps = 0
        # FLOPs of one step and the device's peak (the worker's Flops event; None: unknown).
        self.flops_per_step: float | None = None
        self.peak_tflops: float | None = None
        self.peak_source = ""

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
        """The running median's FLOP rate over the device's peak (a fraction), where known."""
        p, per_sample = self.projection, self.tflop_per_sample
        if p is None or per_sample is None or not self.peak_tflops:
            return None
        return p.throughput_samples_per_s * per_sample / self.peak_tflops

    def add_step(self, step: Step) -> None:
        rate = step.samples / step.step_time_s if step.step_time_s > 0 else math.nan
        self.latest_t = max(self.latest_t, step.elapsed_s)
        if step.measured:
            self.meas_t.append(step.elapsed_s)
            self.meas_rate.append(rate)
            self.meas_step_s.append(step.step_time_s)
        else:
            self.warm_t.append(step.elapsed_s)
            self.warm_rate.append(rate)

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

    def update_projection(self) -> bool:
        """Recompute the running statistics if steps were measured since; True if it did.

        Steps that arrived together (a fast model between two redraws) get intermediate points,
        so the curves show how the figures settled; long runs get one point per redraw.
        """
        n = len(self.meas_step_s)
        if n == self._projected_steps:
            return False
        first = self._projected_steps + 1
        self._projected_steps = n
        count = min(n - first + 1, INTERMEDIATE_POINTS if n <= INTERMEDIATE_MAX_STEPS else 1)
        for k in np.unique(np.linspace(first, n, count).round().astype(int)):
            self._project_at(int(k))
        return True

    def _project_at(self, k: int) -> None:
        """Append the projection from the first k measured steps."""
        times = self.meas_step_s.values[:k]
        p = project(times, self.batch_size, self.epoch_samples, self.usd_per_hour)
        self.projection = p
        t = self.meas_t.values[k - 1]
        self.median_t.append(t)
        self.median_rate.append(p.throughput_samples_per_s)
        # Without a price the cost plot shows the projected epoch time instead.
        low, mid, high = p.usd_per_epoch if p.usd_per_epoch is not None else p.epoch_s
        self.proj_t.append(t)
        self.proj_low.append(low)
        self.proj_mid.append(mid)
        self.proj_high.append(high)
