"""The measuring loop's own cost per step, apart from any framework: `measure()`
(engine/worker/measure/loop.py: the step timer, the stop rule, the coalesced step events, the
monitor's samples) over a session whose step does nothing, against a bare loop of the same
no-op steps, alternating in one process. On a millisecond step, the loop's cost over the step's
time is the least the harness can cost it (benchmarks/harness_overhead.py measures the whole).

    .venv/bin/python benchmarks/loop_cost.py [--steps 3000] [--rounds 5] [--stability 1e-9]

--stability: the stop rule's threshold (default 0, a fixed step count, as harness_overhead.py).
A threshold no window meets (1e-9) keeps the rule checking stability over the whole window from
its 10th step on, as a default run's rule does until its times settle.
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time

from harness_overhead import fixed_window

from engine.measure.probes import CpuProbe
from engine.worker.frameworks.timers import WallTimer
from engine.worker.measure.loop import Measurement, measure
from engine.worker.measure.monitor import Monitor


class NoopSession:
    """A session (engine/worker/measure/session.py) whose step does nothing."""

    parameters = 0
    device = "cpu"
    compiles = False
    group = None
    input_waits = None
    data_record = None
    data_samples = None

    def __init__(self) -> None:
        self.timer = WallTimer()

    def step(self) -> None:
        pass

    def sync(self) -> None:
        pass

    def loss(self) -> None:
        return None

    def device_memory(self) -> None:
        return None

    def reset_peak_memory(self) -> None:
        pass

    def window_warnings(self) -> list[str]:
        return []


def harness_us(steps: int, stability: float = 0.0) -> float:
    """Microseconds a step through measure(), warm-up and one window of `steps`."""
    # With a threshold, the rule is checked from the 10th step on (a default run's min steps).
    rule = {"stability_threshold": stability, "min_steps": 10} if stability else {}
    config = fixed_window("tiny-mlp", 16, 10, steps, **rule).validated()
    monitor = Monitor(CpuProbe(), "loop-cost").start()
    t0 = time.perf_counter()
    for _ in measure(NoopSession(), config, "loop-cost", threading.Event(), monitor, Measurement()):
        pass
    seconds = time.perf_counter() - t0
    monitor.stop()
    return seconds / (steps + config.warmup_steps) * 1e6


def bare_us(steps: int) -> float:
    """Microseconds a no-op step called in a plain loop."""
    session = NoopSession()
    t0 = time.perf_counter()
    for _ in range(steps):
        session.step()
    return (time.perf_counter() - t0) / steps * 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=3000)  # tiny-mlp's window in harness_overhead
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--stability", type=float, default=0.0)
    args = p.parse_args()
    ours, bare = [], []
    for _ in range(args.rounds):
        ours.append(harness_us(args.steps, args.stability))
        bare.append(bare_us(args.steps))
    print(
        f"measuring loop {statistics.median(ours):.2f} us a step "
        f"({', '.join(f'{x:.2f}' for x in ours)}); a bare loop {statistics.median(bare):.3f} us"
    )
    print(json.dumps({"loop_us_per_step": ours, "bare_us_per_step": bare}))


if __name__ == "__main__":
    main()
