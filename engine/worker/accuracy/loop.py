"""The training-to-accuracy loop, the same for every framework's Trainer.

Training runs in intervals of `eval_every` iterations. Each interval starts and ends on a
device synchronisation, so training time is exact at every evaluation; evaluation is timed
on its own. The loop stops at the target accuracy, at the stabilisation point (once it is
confirmed), or at a cap (iterations, or seconds of training plus evaluation): then the run
reports that accuracy was never reached or never settled.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.core.errors import RunFailed
from engine.core.events import Eval, Event, Phase
from engine.measure.accuracy_config import AccuracyConfig
from engine.worker.accuracy.stabilisation import StabilisationDetector
from engine.worker.measure.monitor import Monitor
from engine.worker.measure.session import Trainer

STOP_REASONS = ("target", "stable", "max_iterations", "max_seconds")


@dataclass(frozen=True)
class CurvePoint:
    """One evaluation. Seconds are cumulative since training began; eval_seconds includes
    this evaluation. Accuracy is a fraction; loss is the held-out mean cross-entropy."""

    iteration: int
    accuracy: float
    loss: float | None
    train_loss: float | None
    train_seconds: float
    eval_seconds: float
    elapsed_s: float

    def seconds(self, include_eval: bool) -> float:
        """Time to this point: training, plus evaluation when asked."""
        return self.train_seconds + (self.eval_seconds if include_eval else 0.0)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LoopOutcome:
    curve: list[CurvePoint] = field(default_factory=list)
    point_index: int | None = None  # the curve index where the target or stability was met
    stop_reason: str = ""
    interval_step_times_s: list[float] = field(default_factory=list)  # mean per interval

    @property
    def point(self) -> CurvePoint | None:
        return None if self.point_index is None else self.curve[self.point_index]


class _Clocks:
    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.train_s = 0.0
        self.eval_s = 0.0

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0


def train_to_accuracy(
    trainer: Trainer,
    config: AccuracyConfig,
    run_id: str,
    cancel: threading.Event,
    monitor: Monitor,
    out: LoopOutcome,
) -> Generator[Event, None, None]:
    """Train, evaluate every `eval_every` iterations, stop by the config's rule; fill `out`."""
    detector = StabilisationDetector(config.band, config.patience)
    goal = "until stable" if config.until_stable else f"to {config.target_accuracy:.1%} accuracy"
    yield Phase(
        run_id=run_id,
        phase="measuring",
        expected_steps=config.max_iterations,
        detail=f"batch {config.batch_size} repeat {config.repeat + 1}: training {goal}",
    )
    monitor.begin_window()  # energy and mean power from here: training and evaluation
    clocks = _Clocks()
    # The untrained model's accuracy starts the curve; it never counts as settled.
    yield _evaluate(trainer, config, run_id, clocks, 0, out)
    iteration = 0
    while not out.stop_reason:
        steps = _train_interval(trainer, config, cancel, clocks, iteration)
        iteration += steps
        yield from monitor.drain()
        yield _evaluate(trainer, config, run_id, clocks, iteration, out)
        out.stop_reason = _verdict(config, out, detector, iteration, clocks.elapsed())


def _train_interval(
    trainer: Trainer,
    config: AccuracyConfig,
    cancel: threading.Event,
    clocks: _Clocks,
    iteration: int,
) -> int:
    """Up to eval_every steps between two synchronisations; returns the steps taken."""
    budget = min(config.eval_every, config.max_iterations - iteration)
    trainer.sync()  # the interval starts with an idle device
    t0 = time.perf_counter()
    steps = 0
    while steps < budget:
        if cancel.is_set():
            raise RunFailed("cancelled", "cancelled by the user")
        trainer.step()
        steps += 1
        if clocks.elapsed() >= config.max_seconds:
            break
    trainer.sync()  # every queued step is done before the clock is read
    clocks.train_s += time.perf_counter() - t0
    return steps


def _evaluate(
    trainer: Trainer,
    config: AccuracyConfig,
    run_id: str,
    clocks: _Clocks,
    iteration: int,
    out: LoopOutcome,
) -> Eval:
    train_loss = trainer.loss()
    t0 = time.perf_counter()
    accuracy, loss = trainer.evaluate()
    clocks.eval_s += time.perf_counter() - t0
    if out.curve and iteration > out.curve[-1].iteration:
        previous = out.curve[-1]
        interval = clocks.train_s - previous.train_seconds
        out.interval_step_times_s.append(interval / (iteration - previous.iteration))
    point = CurvePoint(
        iteration, accuracy, loss, train_loss, clocks.train_s, clocks.eval_s, clocks.elapsed()
    )
    out.curve.append(point)
    return Eval(
        run_id=run_id,
        iteration=iteration,
        accuracy=accuracy,
        elapsed_s=point.elapsed_s,
        train_seconds=point.train_seconds,
        loss=loss,
        repeat=config.repeat,
        batch_size=config.batch_size,
    )


def _verdict(
    config: AccuracyConfig,
    out: LoopOutcome,
    detector: StabilisationDetector,
    iteration: int,
    elapsed_s: float,
) -> str:
    """The stop reason after the latest evaluation, or "" to go on."""
    latest = out.curve[-1]
    if config.target_accuracy is not None:
        if latest.accuracy >= config.target_accuracy:
            out.point_index = len(out.curve) - 1
            return "target"
    else:
        index = detector.add(latest.accuracy)  # the detector never sees the untrained model
        if index is not None:
            out.point_index = index + 1
            return "stable"
    if iteration >= config.max_iterations:
        return "max_iterations"
    if elapsed_s >= config.max_seconds:
        return "max_seconds"
    return ""
