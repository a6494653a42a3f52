"""The worker-side skeleton every training run goes through, timed or to an accuracy.

run_pipeline() owns what both share: the `started` event, the framework's timed import, the
memory cap, the cancel check after set-up, the monitor, the peak memory, the result's memory
fields, and turning any failure into exactly one `failed` event (never an exception past it).
A Pipeline says only what differs: what it loads before the model, how it builds its session,
how it trains, and what its result holds.
"""

from __future__ import annotations

import os
import resource
import sys
import threading
import time
import traceback
from collections.abc import Generator, Iterator
from types import ModuleType
from typing import Any, Generic, TypeVar

from engine.core.errors import ConfigError, RunFailed, is_out_of_memory, out_of_memory_line
from engine.core.events import Event, Failed, Finished, Phase, Started
from engine.core.ids import new_run_id
from engine.measure import environment
from engine.measure.config import TrainingConfig
from engine.measure.probes import open_probe
from engine.worker.measure import heap, session
from engine.worker.measure.memcap import MemoryCap, status_bytes
from engine.worker.measure.monitor import Monitor, MonitorSummary

C = TypeVar("C", bound=TrainingConfig)


class Pipeline(Generic[C]):
    """What one kind of run adds to the skeleton. Generators yield events on the way."""

    config: C

    def before_build(self, run_id: str, env: dict[str, Any]) -> Generator[Event, None, None]:
        """After the framework's import, before the memory cap counts (a data set in host
        memory is not the device's)."""
        yield from ()

    def build(self, backend: ModuleType, run_id: str) -> Generator[Event, None, Any]:
        """The framework session, under the memory cap."""
        raise NotImplementedError

    def after_build(
        self, handle: Any, run_id: str, env: dict[str, Any]
    ) -> Generator[Event, None, None]:
        """After set-up, before the monitor starts (a timed run counts its FLOPs here)."""
        yield from ()

    def train(
        self, handle: Any, run_id: str, cancel: threading.Event, monitor: Monitor
    ) -> Generator[Event, None, None]:
        raise NotImplementedError

    def result(
        self,
        handle: Any,
        run_id: str,
        env: dict[str, Any],
        monitor: MonitorSummary,
        device_state: dict[str, Any],
    ) -> dict[str, Any]:
        raise NotImplementedError

    def where(self, exc: BaseException) -> str:
        """Where an unexpected error came from, for its message (a model file's line)."""
        return ""


def run_pipeline(
    pipeline: Pipeline[Any], cancel: threading.Event, run_id: str | None = None
) -> Iterator[Event]:
    """Run one configuration. Failures are events, never exceptions."""
    config = pipeline.config
    run_id = run_id or new_run_id()
    env = environment.base()
    yield Started(run_id=run_id, config=config.to_dict(), environment=dict(env))
    handle = None
    monitor = None
    try:
        yield Phase(run_id=run_id, phase="importing", detail=config.framework)
        t0 = time.perf_counter()
        backend = session.load(config.framework)
        env["framework_import_seconds"] = time.perf_counter() - t0
        yield from pipeline.before_build(run_id, env)
        cap = MemoryCap(config.memory_limit_bytes) if config.memory_limit_bytes else None
        # After the framework's import, before the model exists: the heap behaves the same in
        # every launch (engine/worker/measure/heap.py), a cap's its own way.
        settings = cap.begin(config.batch_size) if cap is not None else heap.steady()
        if settings:
            env["heap"] = settings
        handle = yield from pipeline.build(backend, run_id)
        if cap is not None:
            cap.built()
        if cancel.is_set():
            raise RunFailed("cancelled", "cancelled by the user")
        env.update(handle.environment())
        yield from pipeline.after_build(handle, run_id, env)
        monitor = Monitor(open_probe(handle.device), run_id).start()
        if cap is not None:
            cap.start_counting()
        state_start = monitor.probe.state()
        training = pipeline.train(handle, run_id, cancel, monitor)
        yield from (cap.watch_steps(training) if cap else training)
        yield Phase(run_id=run_id, phase="finishing")
        monitor.note_process_memory(peak_rss_bytes() if handle.device == "cpu" else None)
        state = {"start": state_start, "end": monitor.probe.state()}
        result = pipeline.result(handle, run_id, env, monitor.summary(), state)
        if cap is not None:
            result.update(cap.memory_fields())  # the cap is this run's device
        yield from monitor.drain()
        yield Finished(run_id=run_id, result=result)
    except (RunFailed, ConfigError) as exc:
        yield Failed(
            run_id=run_id,
            kind=exc.kind if isinstance(exc, RunFailed) else "config",
            message=exc.message if isinstance(exc, RunFailed) else str(exc),
            batch_size=config.batch_size,
            traceback=getattr(exc, "traceback", ""),  # a model file's own frames
        )
    except Exception as exc:  # a framework error: classify, never raise past the runner
        yield failure(run_id, config, exc, pipeline.where(exc))
    finally:
        if monitor is not None:
            monitor.stop()
        if handle is not None:
            handle.close()


# The packages a framework is imported from: one of them missing means no framework at all.
_FRAMEWORK_PACKAGES = ("torch", "torchvision", "tensorflow", "keras")


def failure(run_id: str, config: TrainingConfig, exc: BaseException, where: str = "") -> Failed:
    """An unexpected error as a `failed` event: out of memory, a framework that cannot load,
    or the error itself (with `where` it came from)."""
    tb = traceback.format_exc()
    if is_out_of_memory(exc):
        message = f"out of memory at batch size {config.batch_size}: {out_of_memory_line(exc)}"
        kind = "oom"
    elif isinstance(exc, ImportError) and (exc.name or "").split(".")[0] in _FRAMEWORK_PACKAGES:
        # No framework in this Python (the slim download has none): say how to get one.
        message = (
            f"{config.framework} is not installed in {sys.executable} ({exc}): make an "
            f"environment for it with `epochcost env create --framework {config.framework}` "
            "(in the app: File > Settings, Make environment)"
        )
        kind = "framework"
    elif isinstance(exc, ImportError):
        message, kind = f"{config.framework} is not usable here: {exc}", "framework"
    else:
        message, kind = f"{type(exc).__name__}: {exc}{where}", "framework"
    return Failed(
        run_id=run_id, kind=kind, message=message, traceback=tb, batch_size=config.batch_size
    )


def peak_rss_bytes() -> int:
    """This process's peak resident memory. Linux: VmHWM, the high-water mark of this
    process's own memory since its exec (or fork); ru_maxrss also holds its parent's size
    before the exec, and a worker of a parent larger than itself read its parent's peak
    (2,261 MB for tiny-mlp started from a 2 GB test process: benchmarks/RESULTS.md)."""
    own = status_bytes("VmHWM")
    if own is not None:
        return own
    # ru_maxrss is in KiB on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if os.uname().sysname == "Darwin" else peak * 1024)
