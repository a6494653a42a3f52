"""run(config, cancel) -> events: one timed training run, as the worker executes it.

Imports the framework through its backend (so only inside the worker process), measures with
the shared loop, and ends with exactly one `finished` or `failed` event.
"""

from __future__ import annotations

import datetime as _dt
import os
import resource
import threading
import traceback
import uuid
from collections.abc import Iterator

from engine import backends, environment
from engine.config import RunConfig
from engine.errors import RunFailed, is_out_of_memory, out_of_memory_line
from engine.events import Event, Failed, Finished, Phase, Started
from engine.measure import Measurement, measure
from engine.monitor import Monitor
from engine.probes import open_probe
from engine.result import build_result
from engine.workloads import registry


def new_run_id() -> str:
    """Sortable by time, unique: 20261122T031500-1a2b3c4d."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{uuid.uuid4().hex[:8]}"


def run(config: RunConfig, cancel: threading.Event, run_id: str | None = None) -> Iterator[Event]:
    """Measure one configuration. Failures are events, never exceptions."""
    run_id = run_id or new_run_id()
    env = environment.base()
    yield Started(run_id=run_id, config=config.to_dict(), environment=env)
    session = None
    monitor = None
    try:
        workload = registry.get(config.model)
        yield Phase(run_id=run_id, phase="importing", detail=config.framework)
        backend = backends.load(config.framework)
        session = yield from backend.open_session(config, workload, run_id)
        if cancel.is_set():
            raise RunFailed("cancelled", "cancelled by the user")
        if config.memory_limit_bytes:
            _limit_address_space(config.memory_limit_bytes)
        env.update(session.environment())
        monitor = Monitor(open_probe(session.device), run_id).start()
        state_start = monitor.probe.state()
        out = Measurement()
        yield from measure(session, config, run_id, cancel, monitor, out)
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
        )
        yield from monitor.drain()
        yield Finished(run_id=run_id, result=result)
    except RunFailed as exc:
        yield Failed(
            run_id=run_id, kind=exc.kind, message=exc.message, batch_size=config.batch_size
        )
    except Exception as exc:  # a framework error: classify, never raise past the runner
        yield _failure(run_id, config, exc)
    finally:
        if monitor is not None:
            monitor.stop()
        if session is not None:
            session.close()


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
    return Failed(
        run_id=run_id,
        kind="framework",
        traceback=tb,
        batch_size=config.batch_size,
        message=f"{type(exc).__name__}: {exc}",
    )


def _limit_address_space(extra_bytes: int) -> None:
    """Cap this process's address space at what it maps now plus `extra_bytes`, so that an
    allocation past the cap fails as the host's out-of-memory would (tests, CPU max-fit)."""
    import psutil

    current = psutil.Process(os.getpid()).memory_info().vms
    limit = current + extra_bytes
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _peak_rss_bytes() -> int:
    # ru_maxrss is in KiB on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if os.uname().sysname == "Darwin" else peak * 1024)
