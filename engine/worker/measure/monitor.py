"""A background sampler of a device probe during a run.

It keeps the peaks (process memory, device memory used), integrates power into energy where
the device has no energy counter, and queues Sample events for the runner to emit between steps
(so only one thread ever writes events).
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

from engine.core.events import Sample
from engine.measure.busy import CpuShare
from engine.measure.probes import Probe, Reading


@dataclass
class MonitorSummary:
    peak_process_memory_bytes: int | None
    peak_device_used_bytes: int | None
    memory_total_bytes: int | None
    energy_j: float | None
    energy_method: str | None  # "counter" | "power-integral" | "power-reading" | None
    mean_power_w: float | None
    mean_utilization_percent: float | None
    seconds: float
    # The share of the machine's CPU other processes used in the window (engine/measure/busy.py).
    other_cpu_fraction: float | None = None


class Monitor:
    def __init__(self, probe: Probe, run_id: str, interval_s: float = 0.5) -> None:
        self.probe = probe
        self.run_id = run_id
        self.interval_s = interval_s
        self.samples: queue.SimpleQueue[Sample] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="epochcost-monitor", daemon=True)
        self._t0 = time.perf_counter()
        self._lock = threading.Lock()
        self._reset_window()
        self._peak_process: int | None = None
        self._peak_device: int | None = None
        self._total: int | None = None

    def _reset_window(self) -> None:
        self._window_t0 = time.perf_counter()
        self._cpu_share = CpuShare.begin()
        self._energy0 = self.probe.energy_j()
        self._power_integral_j = 0.0
        self._last_power: tuple[float, float] | None = None
        self._power_sum = 0.0
        self._util_sum = 0.0
        self._util_n = 0
        self._power_n = 0

    def start(self) -> Monitor:
        self._record(self.probe.read())
        self._thread.start()
        return self

    def begin_window(self) -> None:
        """Start energy and mean figures afresh (at the start of the measurement window)."""
        with self._lock:
            self._reset_window()

    def reset_peaks(self) -> None:
        """Forget the peaks so far and take a fresh reading at once (a short window may see
        no timed sample)."""
        with self._lock:
            self._peak_process = None
            self._peak_device = None
        self._record(self.probe.read())

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self._record(self.probe.read())
            except Exception:  # a flaky reading must never end a run
                continue

    def _record(self, r: Reading) -> None:
        t = time.perf_counter()
        with self._lock:
            self._peak_process = _max(self._peak_process, r.process_memory_bytes)
            self._peak_device = _max(self._peak_device, r.memory_used_bytes)
            self._total = r.memory_total_bytes or self._total
            if r.utilization_percent is not None:
                self._util_sum += r.utilization_percent
                self._util_n += 1
            if r.power_w is not None:
                self._power_sum += r.power_w
                self._power_n += 1
                if self._last_power is not None:  # trapezoid between two readings
                    t_prev, p_prev = self._last_power
                    self._power_integral_j += (t - t_prev) * (p_prev + r.power_w) / 2
                self._last_power = (t, r.power_w)
        self.samples.put(
            Sample(
                run_id=self.run_id,
                elapsed_s=t - self._t0,
                memory_used_bytes=r.memory_used_bytes,
                memory_total_bytes=r.memory_total_bytes,
                process_memory_bytes=r.process_memory_bytes,
                utilization_percent=r.utilization_percent,
                power_w=r.power_w,
            )
        )

    def drain(self) -> list[Sample]:
        out = []
        while True:
            try:
                out.append(self.samples.get_nowait())
            except queue.Empty:
                return out

    def other_cpu_fraction(self) -> float | None:
        """Other processes' share of the CPU since the measured windows began, so far
        (engine/measure/busy.py; None: too short to tell)."""
        with self._lock:
            share = self._cpu_share
        return share.fraction()

    def note_process_memory(self, value: int | None) -> None:
        """Fold in a peak the framework knows better than the sampler (e.g. ru_maxrss)."""
        with self._lock:
            self._peak_process = _max(self._peak_process, value)

    def summary(self) -> MonitorSummary:
        """The window's figures. Mean power: the energy counter over the window where the
        device has one (exact, however short the window), else the mean of the readings;
        a window shorter than the sampling interval gets one reading taken now, so a fast
        GPU's short window still has a power figure (seen on an H200: 0.15 s windows had
        none)."""
        if not self._power_n and self._energy0 is None:
            with contextlib.suppress(Exception):  # a flaky reading must never end a run
                self._record(self.probe.read())
        with self._lock:
            seconds = time.perf_counter() - self._window_t0
            energy1 = self.probe.energy_j()
            mean_power = self._power_sum / self._power_n if self._power_n else None
            if self._energy0 is not None and energy1 is not None and energy1 >= self._energy0:
                energy, method = energy1 - self._energy0, "counter"
                if seconds > 0:
                    mean_power = energy / seconds
            elif self._power_n > 1:
                energy, method = self._power_integral_j, "power-integral"
            elif mean_power is not None:  # one reading: its power held over the window
                energy, method = mean_power * seconds, "power-reading"
            else:
                energy, method = None, None
            return MonitorSummary(
                peak_process_memory_bytes=self._peak_process,
                peak_device_used_bytes=self._peak_device,
                memory_total_bytes=self._total,
                energy_j=energy,
                energy_method=method,
                mean_power_w=mean_power,
                mean_utilization_percent=self._util_sum / self._util_n if self._util_n else None,
                seconds=seconds,
                other_cpu_fraction=self._cpu_share.fraction(),
            )

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2 * self.interval_s + 1)
        self.probe.close()


def _max(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def summary_dict(s: MonitorSummary) -> dict[str, Any]:
    return {
        "energy_j": s.energy_j,
        "energy_method": s.energy_method,
        "mean_power_w": s.mean_power_w,
        "mean_utilization_percent": s.mean_utilization_percent,
    }
