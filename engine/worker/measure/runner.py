"""run(config, cancel) -> events: one timed training run, as the worker executes it.

The skeleton (engine/worker/measure/pipeline.py) imports the framework, builds the session under the
memory cap and turns failures into events; this module adds what a timed run does: a model
file's workload, the FLOPs per step, the measuring loop, and the result.
"""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from engine.core.events import Event, Flops, Phase
from engine.measure import utilisation
from engine.measure.config import RunConfig
from engine.worker.measure.loop import Measurement, measure
from engine.worker.measure.monitor import Monitor, MonitorSummary
from engine.worker.measure.pipeline import Pipeline, run_pipeline
from engine.worker.measure.result import build_result, family_of
from engine.worker.measure.session import Session
from engine.worker.workloads import model_file, model_file_errors
from engine.worker.workloads.file_workload import FileWorkload, workload_of
from engine.workloads import registry
from engine.workloads.model_file_source import normalized
from engine.workloads.registry import Workload


def run(config: RunConfig, cancel: threading.Event, run_id: str | None = None) -> Iterator[Event]:
    """Measure one configuration. Failures are events, never exceptions."""
    return run_pipeline(TimedRun(config), cancel, run_id)


class TimedRun(Pipeline[RunConfig]):
    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.workload: Workload | None = None
        self.flops_per_step: float | None = None
        self.composition: dict[str, Any] | None = None
        self.out = Measurement()

    def build(self, backend: ModuleType, run_id: str) -> Generator[Event, None, Session]:
        config = self.config
        if config.model_file:  # run the user's file (here, in the worker): a Workload
            name = Path(config.model_file).name
            yield Phase(run_id=run_id, phase="building", detail=f"loading {name}")
            self.workload = workload_of(model_file.load(config.model_file, config.framework))
        else:
            self.workload = registry.get(config.model)
        handle: Session = yield from backend.open_session(config, self.workload, run_id)
        return handle

    def after_build(
        self, handle: Session, run_id: str, env: dict[str, Any]
    ) -> Generator[Event, None, None]:
        yield Phase(run_id=run_id, phase="building", detail="counting FLOPs per step")
        self.flops_per_step = handle.flops_per_step()
        # What the model is made of (engine/workloads/family.py), counted with its FLOPs.
        self.composition = getattr(handle, "composition", None)
        assert self.workload is not None
        family = family_of(self.workload, self.composition).name
        peak = utilisation.run_peak(env, self.config.precision, family=family)
        yield Flops(
            run_id=run_id,
            per_step=self.flops_per_step,
            method=getattr(handle, "flops_method", None),
            peak_tflops=peak.tflops,
            peak_source=peak.source,
        )

    def train(
        self, handle: Session, run_id: str, cancel: threading.Event, monitor: Monitor
    ) -> Generator[Event, None, None]:
        yield from measure(handle, self.config, run_id, cancel, monitor, self.out)
        if isinstance(self.workload, FileWorkload):
            given = self.config.epoch_samples or getattr(handle, "data_samples", None)
            self.out.warnings += self.workload.epoch_warning(given)

    def result(
        self,
        handle: Session,
        run_id: str,
        env: dict[str, Any],
        monitor: MonitorSummary,
        device_state: dict[str, Any],
    ) -> dict[str, Any]:
        assert self.workload is not None
        return build_result(
            run_id=run_id,
            config=self.config,
            workload=self.workload,
            environment=env,
            parameters=handle.parameters,
            measurement=self.out,
            monitor=monitor,
            device_memory=handle.device_memory(),
            device_state=device_state,
            flops_per_step=self.flops_per_step,
            flops_method=getattr(handle, "flops_method", None),
            data=getattr(handle, "data_record", None),
            composition=self.composition,
        )

    def where(self, exc: BaseException) -> str:
        """Point at the user's line, when the error passed through their model file."""
        if not self.config.model_file:
            return ""
        line = model_file_errors.from_exception(normalized(self.config.model_file), "", exc).line
        return f" ({Path(self.config.model_file).name}, line {line})" if line else ""
