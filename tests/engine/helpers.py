"""Shared helpers for engine tests."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import psutil

from engine.cloud import check_server
from engine.core.events import Event
from engine.measure.config import RunConfig
from engine.process import forked
from engine.process.launcher import WorkerProcess, _engine_root

# A run short enough for tests: the tiny model, few steps.
TINY = RunConfig(
    model="tiny-mlp",
    batch_size=16,
    warmup_steps=2,
    min_steps=5,
    max_steps=20,
    max_seconds=5.0,
    usd_per_hour=1.0,
    threads=1,
)


# The test process's own fork servers while a test runs without them (servers_set_aside).
_SET_ASIDE: list = []


@contextlib.contextmanager
def servers_set_aside() -> Iterator[None]:
    """No fork server in this process while the block runs, none of the block's left after it,
    and the test process's own back as they were: started again instead, they cost about 3 s
    of CPU each (benchmarks/RESULTS.md, issue 42). Set aside, they run and serve nothing."""
    with forked._lock:
        aside = dict(forked._servers)
        forked._servers.clear()
    _SET_ASIDE.extend(aside.values())
    try:
        yield
    finally:
        forked.shutdown()
        for server in aside.values():
            _SET_ASIDE.remove(server)
        with forked._lock:
            for framework, server in aside.items():
                if server.alive():
                    forked._servers[framework] = server
                else:
                    server.stop()


def kept_processes() -> set[int]:
    """The processes that outlive every run by design: the fork servers of workers
    (engine/process/forked.py; the workers they fork do not), set aside or not, and the warm
    cloud program of SkyPilot's checks (engine/cloud/check_server.py) with what it started."""
    found = forked.server_pids() | {server.proc.pid for server in _SET_ASIDE}
    found |= check_server.server_pids()
    for pid in check_server.server_pids():
        with contextlib.suppress(psutil.NoSuchProcess):
            found |= {p.pid for p in psutil.Process(pid).children(recursive=True)}
    return found


def started_here() -> list[psutil.Process]:
    """This test process's descendants that a run leaves (not kept_processes())."""
    kept = kept_processes()
    children = psutil.Process(os.getpid()).children(recursive=True)
    return [p for p in children if p.pid not in kept]


def run_events(config: RunConfig) -> list[Event]:
    worker = WorkerProcess(config.validated()).start()
    try:
        return list(worker.events())
    finally:
        worker.close()


# The same run on the command line: its three windows counted, not judged (a target precision,
# the command line's default, keeps a run measuring until its budget on a busy machine;
# test_precision_run.py runs with targets).
TINY_ARGS = [
    "--model",
    "tiny-mlp",
    "--batch-size",
    "16",
    "--warmup-steps",
    "2",
    "--min-steps",
    "5",
    "--max-steps",
    "20",
    "--threads",
    "1",
    "--target-precision",
    "off",
]

# The keys every row of `epochcost compare --json` has (issue: prices and comparison).
COMPARE_JSON_KEYS = {
    "instance_type",
    "cloud",
    "gpu_model",
    "gpu_count",
    "throughput_samples_per_s",
    "throughput_low",
    "throughput_high",
    "estimated",
    "usd_per_epoch",
    "usd_per_epoch_spot",
}


def cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """`epochcost ...` in a fresh interpreter, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=_engine_root(),
        env=env,
    )


def cli_here(*args: str) -> subprocess.CompletedProcess[str]:
    """`epochcost ...` in this process (engine.cli.main), its output captured, as cli() gives
    it: its runs are forked from the tests' warm process (tests/conftest.py) where a fresh
    interpreter would import the engine and torch again, about 3 s each (issue 42: the suite's
    time). cli() stays for what a user's own process shows (a single run's fresh start, its
    end on a signal, its streams)."""
    from engine.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's usage error or --help
            code = exc.code if isinstance(exc.code, int) else 2
    return subprocess.CompletedProcess(["epochcost", *args], code, out.getvalue(), err.getvalue())


# What a result may warn of on a shared machine, whatever the code under test does: other
# processes' CPU use (engine/measure/busy.py: "machine busy", "GPU busy") and windows that
# disagree more than their steps explain (engine/core/interval.py: "may not repeat").
MACHINE_NOISE = ("busy", "may not repeat")


def besides_noise(warnings: list[str]) -> list[str]:
    """`warnings` without those a loaded machine gives (a test asking for none keeps these)."""
    return [w for w in warnings if not any(noise in w for noise in MACHINE_NOISE)]


def alive(pid: int) -> bool:
    """The process runs (not gone, not a zombie waiting to be reaped)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def gone_soon(pid: int, within_s: float = 3.0) -> bool:
    """The process ends within `within_s` (a killed one may take a moment on its way out)."""
    deadline = time.monotonic() + within_s
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
