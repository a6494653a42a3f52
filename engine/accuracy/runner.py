"""run(config, cancel) -> events: one training-to-accuracy run, as the worker executes it.

Loads the data set (numpy), imports the framework through its trainer module (so only in the
worker), trains with the shared loop, and ends with exactly one `finished` or `failed` event.
"""

from __future__ import annotations

import os
import resource
import threading
import time
import traceback
from collections.abc import Iterator

from engine.accuracy.config import AccuracyConfig
from engine.accuracy.loop import LoopOutcome, train_to_accuracy
from engine.accuracy.result import build_result
from engine.core.errors import ConfigError, RunFailed, is_out_of_memory, out_of_memory_line
from engine.core.events import Event, Failed, Finished, Phase, Started
from engine.frameworks import trainer as trainers
from engine.measure import environment
from engine.measure.memcap import MemoryCap
from engine.measure.monitor import Monitor
from engine.measure.probes import open_probe
from engine.measure.runner import new_run_id
from engine.workloads import data, registry


def run(
    config: AccuracyConfig, cancel: threading.Event, run_id: str | None = None
) -> Iterator[Event]:
    """Train one configuration to accuracy. Failures are events, never exceptions."""
    t_start = time.perf_counter()
    run_id = run_id or new_run_id()
    env = environment.base()
    yield Started(run_id=run_id, config=config.to_dict(), environment=dict(env))
    trainer = None
    monitor = None
    try:
        workload = registry.get(config.model)
        yield Phase(run_id=run_id, phase="importing", detail=config.framework)
        t0 = time.perf_counter()
        backend = trainers.load(config.framework)
        env["framework_import_seconds"] = time.perf_counter() - t0
        yield Phase(run_id=run_id, phase="building", detail=f"loading data set {config.dataset}")
        t0 = time.perf_counter()
        dataset = data.load(config.dataset)
        env["data_load_seconds"] = time.perf_counter() - t0
        # The data set in host memory is not counted: on a GPU it is not the device's.
        cap = MemoryCap(config.memory_limit_bytes) if config.memory_limit_bytes else None
        if cap is not None:
            cap.begin(config.batch_size)
        trainer = yield from backend.open_trainer(config, workload, dataset, run_id)
        if cap is not None:
            cap.built()
        if cancel.is_set():
            raise RunFailed("cancelled", "cancelled by the user")
        env.update(trainer.environment())
        monitor = Monitor(open_probe(trainer.device), run_id).start()
        if cap is not None:
            cap.start_counting()
        setup_seconds = time.perf_counter() - t_start
        outcome = LoopOutcome()
        training = train_to_accuracy(trainer, config, run_id, cancel, monitor, outcome)
        yield from (cap.watch_steps(training) if cap else training)
        yield Phase(run_id=run_id, phase="finishing")
        monitor.note_process_memory(_peak_rss_bytes() if trainer.device == "cpu" else None)
        result = build_result(
            run_id=run_id,
            config=config,
            workload=workload,
            info=dataset.info,
            environment=env,
            parameters=trainer.parameters,
            outcome=outcome,
            setup_seconds=setup_seconds,
            monitor=monitor.summary(),
            device_memory=trainer.device_memory(),
            warnings=trainer.warnings() + _warnings(outcome, dataset.info.classes, config),
        )
        if cap is not None:
            result.update(cap.memory_fields())  # the cap is this run's device
        yield from monitor.drain()
        yield Finished(run_id=run_id, result=result)
    except (RunFailed, ConfigError) as exc:
        kind = exc.kind if isinstance(exc, RunFailed) else "config"
        yield Failed(run_id=run_id, kind=kind, message=str(exc), batch_size=config.batch_size)
    except Exception as exc:  # a framework error: classify, never raise past the runner
        yield _failure(run_id, config, exc)
    finally:
        if monitor is not None:
            monitor.stop()
        if trainer is not None:
            trainer.close()


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


def _failure(run_id: str, config: AccuracyConfig, exc: BaseException) -> Failed:
    tb = traceback.format_exc()
    if is_out_of_memory(exc):
        message = f"out of memory at batch size {config.batch_size}: {out_of_memory_line(exc)}"
        kind = "oom"
    elif isinstance(exc, ImportError):
        message, kind = f"{config.framework} is not usable here: {exc}", "framework"
    else:
        message, kind = f"{type(exc).__name__}: {exc}", "framework"
    return Failed(
        run_id=run_id, kind=kind, message=message, traceback=tb, batch_size=config.batch_size
    )


def _peak_rss_bytes() -> int:
    # ru_maxrss is in KiB on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if os.uname().sysname == "Darwin" else peak * 1024)
