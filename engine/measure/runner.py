"""run(config, cancel) -> events: one timed training run, as the worker executes it.

Imports the framework through its backend (so only inside the worker process), measures with
the shared loop, and ends with exactly one `finished` or `failed` event.
"""

from __future__ import annotations

import datetime as _dt
import os
import resource
import threading
import time
import traceback
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path

from engine.core.errors import RunFailed, is_out_of_memory, out_of_memory_line
from engine.core.events import Event, Failed, Finished, Flops, Phase, Started
from engine.frameworks import session as backends
from engine.measure import environment, utilisation
from engine.measure.config import RunConfig
from engine.measure.loop import Measurement, measure
from engine.measure.memcap import MemoryCap
from engine.measure.monitor import Monitor
from engine.measure.probes import open_probe
from engine.measure.result import build_result
from engine.workloads import model_file, registry
from engine.workloads.file_workload import FileWorkload, workload_of
from engine.workloads.model_file_source import normalized
from engine.workloads.registry import Workload


def new_run_id() -> str:
    """Sortable by time, unique: 20261122T031500-1a2b3c4d."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{uuid.uuid4().hex[:8]}"


def run(config: RunConfig, cancel: threading.Event, run_id: str | None = None) -> Iterator[Event]:
    """Measure one configuration. Failures are events, never exceptions."""
    run_id = run_id or new_run_id()
    env = environment.base()
    yield Started(run_id=run_id, config=config.to_dict(), environment=dict(env))
    session = None
    monitor = None
    try:
        workload = None if config.model_file else registry.get(config.model)
        yield Phase(run_id=run_id, phase="importing", detail=config.framework)
        t0 = time.perf_counter()
        backend = backends.load(config.framework)
        env["framework_import_seconds"] = time.perf_counter() - t0
        cap = MemoryCap(config.memory_limit_bytes) if config.memory_limit_bytes else None
        if cap is not None:  # after the framework's import, before the model exists
            cap.begin(config.batch_size)
        if workload is None:
            workload = yield from _model_file_workload(config, run_id)
        session = yield from backend.open_session(config, workload, run_id)
        if cap is not None:
            cap.built()
        if cancel.is_set():
            raise RunFailed("cancelled", "cancelled by the user")
        env.update(session.environment())
        yield Phase(run_id=run_id, phase="building", detail="counting FLOPs per step")
        flops_per_step = session.flops_per_step()
        peak = utilisation.run_peak(env, config.precision)
        yield Flops(
            run_id=run_id,
            per_step=flops_per_step,
            method=getattr(session, "flops_method", None),
            peak_tflops=peak.tflops,
            peak_source=peak.source,
        )
        monitor = Monitor(open_probe(session.device), run_id).start()
        if cap is not None:
            cap.start_counting()
        state_start = monitor.probe.state()
        out = Measurement()
        measuring = measure(session, config, run_id, cancel, monitor, out)
        yield from (cap.watch_steps(measuring) if cap else measuring)
        if isinstance(workload, FileWorkload):
            out.warnings += workload.epoch_warning(config.epoch_samples)
        yield Phase(run_id=run_id, phase="finishing")
        monitor.note_process_memory(_peak_rss_bytes() if session.device == "cpu" else None)
        summary = monitor.summary()
        result = build_result(
            run_id=run_id,
            config=config,
            workload=workload,
            environment=env,
            parameters=session.parameters,
            measurement=out,
            monitor=summary,
            device_memory=session.device_memory(),
            device_state={"start": state_start, "end": monitor.probe.state()},
            flops_per_step=flops_per_step,
            flops_method=getattr(session, "flops_method", None),
        )
        if cap is not None:
            result.update(cap.memory_fields())  # the cap is this run's device
        yield from monitor.drain()
        yield Finished(run_id=run_id, result=result)
    except RunFailed as exc:
        yield Failed(
            run_id=run_id,
            kind=exc.kind,
            message=exc.message,
            batch_size=config.batch_size,
            traceback=getattr(exc, "traceback", ""),  # a model file's own frames
        )
    except Exception as exc:  # a framework error: classify, never raise past the runner
        yield _failure(run_id, config, exc)
    finally:
        if monitor is not None:
            monitor.stop()
        if session is not None:
            session.close()


def _model_file_workload(config: RunConfig, run_id: str) -> Generator[Event, None, Workload]:
    """Run the user's model file (here, in the worker) and describe it as a Workload."""
    assert config.model_file is not None
    name = Path(config.model_file).name
    yield Phase(run_id=run_id, phase="building", detail=f"loading {name}")
    return workload_of(model_file.load(config.model_file, config.framework))


def _failure(run_id: str, config: RunConfig, exc: BaseException) -> Failed:
    tb = traceback.format_exc()
    if is_out_of_memory(exc):
        return Failed(
            run_id=run_id,
            kind="oom",
            batch_size=config.batch_size,
            traceback=tb,
            message=f"out of memory at batch size {config.batch_size}: {out_of_memory_line(exc)}",
        )
    if isinstance(exc, ImportError):
        return Failed(
            run_id=run_id,
            kind="framework",
            traceback=tb,
            message=f"{config.framework} is not usable here: {exc}",
        )
    where = ""
    if config.model_file:  # point at the user's line, when the error passed through it
        line = model_file.from_exception(normalized(config.model_file), "", exc).line
        where = f" ({Path(config.model_file).name}, line {line})" if line else ""
    return Failed(
        run_id=run_id,
        kind="framework",
        traceback=tb,
        batch_size=config.batch_size,
        message=f"{type(exc).__name__}: {exc}{where}",
    )


def _peak_rss_bytes() -> int:
    # ru_maxrss is in KiB on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if os.uname().sysname == "Darwin" else peak * 1024)
