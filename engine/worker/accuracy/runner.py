"""run(config, cancel) -> events: one training-to-accuracy run, as the worker executes it.

The skeleton (engine/worker/measure/pipeline.py) imports the framework, builds the trainer under the
memory cap and turns failures into events; this module adds what a run to an accuracy does:
load the data set (numpy), train and evaluate with the shared loop, and build the result.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Iterator
from types import ModuleType
from typing import Any

from engine.core.events import Event, Phase
from engine.measure import busy
from engine.measure.accuracy_config import AccuracyConfig
from engine.worker.accuracy.loop import LoopOutcome, train_to_accuracy
from engine.worker.accuracy.result import build_result
from engine.worker.measure import input_wait
from engine.worker.measure.monitor import Monitor, MonitorSummary
from engine.worker.measure.pipeline import Pipeline, run_pipeline
from engine.worker.measure.session import Trainer
from engine.workloads import data, registry
from engine.workloads.data import Dataset


def run(
    config: AccuracyConfig, cancel: threading.Event, run_id: str | None = None
) -> Iterator[Event]:
    """Train one configuration to accuracy. Failures are events, never exceptions."""
    return run_pipeline(AccuracyRun(config), cancel, run_id)


class AccuracyRun(Pipeline[AccuracyConfig]):
    def __init__(self, config: AccuracyConfig) -> None:
        self.config = config
        self.t_start = time.perf_counter()
        self.workload = registry.get(config.model)
        self.dataset: Dataset | None = None
        self.setup_seconds = 0.0
        self.outcome = LoopOutcome()

    def before_build(self, run_id: str, env: dict[str, Any]) -> Generator[Event, None, None]:
        yield Phase(
            run_id=run_id, phase="building", detail=f"loading data set {self.config.dataset}"
        )
        t0 = time.perf_counter()
        with input_wait.bounded(  # a data set on a disk that hangs: the study's limit holds
            self.config.max_seconds,
            f"--dataset {self.config.dataset}",
            "was not read",
            "a study cannot wait for its data longer than it may train. Put the data set on "
            "a faster disk, or raise the limit",
        ):
            self.dataset = data.load(self.config.dataset)
        env["data_load_seconds"] = time.perf_counter() - t0

    def build(self, backend: ModuleType, run_id: str) -> Generator[Event, None, Trainer]:
        trainer: Trainer = yield from backend.open_trainer(
            self.config, self.workload, self.dataset, run_id
        )
        return trainer

    def train(
        self, handle: Trainer, run_id: str, cancel: threading.Event, monitor: Monitor
    ) -> Generator[Event, None, None]:
        self.setup_seconds = time.perf_counter() - self.t_start
        yield from train_to_accuracy(handle, self.config, run_id, cancel, monitor, self.outcome)

    def result(
        self,
        handle: Trainer,
        run_id: str,
        env: dict[str, Any],
        monitor: MonitorSummary,
        device_state: dict[str, Any],
    ) -> dict[str, Any]:
        assert self.dataset is not None
        info = self.dataset.info
        return build_result(
            run_id=run_id,
            config=self.config,
            workload=self.workload,
            info=info,
            environment=env,
            parameters=handle.parameters,
            outcome=self.outcome,
            setup_seconds=self.setup_seconds,
            monitor=monitor,
            device_memory=handle.device_memory(),
            warnings=handle.warnings()
            + _warnings(self.outcome, info.classes, self.config)
            + busy.warnings(monitor.other_cpu_fraction, device_state),
        )


def _warnings(outcome: LoopOutcome, classes: int, config: AccuracyConfig) -> list[str]:
    out = []
    point = outcome.point
    if point is not None and outcome.stop_reason == "stable":
        chance = 1.0 / classes
        if abs(point.accuracy - chance) <= max(config.band, 0.02):
            out.append(
                f"accuracy settled at chance level ({point.accuracy:.1%}): the model is not "
                "learning; try another learning rate or optimizer"
            )
    return out
