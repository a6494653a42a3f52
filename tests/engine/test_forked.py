"""Workers forked from the warm servers (engine/process/forked.py and
engine/worker/forkserver.py), for real: the same result as a fresh worker's in PyTorch and in
TensorFlow, the streams, the cancel, the kill, the parent's end and the server's, and where a
worker is not forked."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time

import psutil
import pytest

from engine.core.events import Failed, Finished, Started, Step
from engine.process import forked
from engine.process.launcher import WorkerProcess, WorkerSpec
from tests.engine.helpers import TINY, TINY_ARGS, cli

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the fork server is Linux's (fork, pagemap)"
)
LONG = TINY.with_changes(min_steps=1_000_000, max_steps=1_000_000, max_seconds=60.0, repeats=1)


def _run(config) -> tuple[type, list, float]:
    t0 = time.monotonic()
    worker = WorkerProcess(config.validated()).start()
    kind = type(worker.proc)
    try:
        events = list(worker.events())
    finally:
        worker.close()
    return kind, events, time.monotonic() - t0


def _until_measuring(worker: WorkerProcess):
    events = worker.events()
    for event in events:
        if isinstance(event, Step) and event.measured:
            return events
    raise AssertionError("the run ended before it measured")


@pytest.mark.parametrize("framework", ["torch", "tensorflow"])
def test_without_a_server_a_run_starts_fresh_and_forked_it_gives_the_same_result(
    fresh_server, framework
):
    config = TINY.with_changes(framework=framework, min_steps=200, max_steps=200, repeats=1)
    kind, fresh, fresh_s = _run(config)
    assert kind is not forked.ForkedWorker
    assert forked.server_pid(framework) is None  # a single run starts none
    assert forked.wait_ready(framework=framework, timeout_s=60)
    kind, warm, warm_s = _run(config)
    assert kind is forked.ForkedWorker
    assert isinstance(fresh[0], Started) and isinstance(warm[0], Started)
    assert isinstance(fresh[-1], Finished) and isinstance(warm[-1], Finished)
    a, b = fresh[-1].result, warm[-1].result
    assert a.keys() == b.keys() and a["status"] == b["status"] == "ok"
    assert a["environment"].keys() == b["environment"].keys()
    same = ("framework", "framework_version", "device", "threads", "torchvision_version")
    same += ("keras_version", "onednn_opts", "heap")
    assert {k: a["environment"].get(k) for k in same} == {k: b["environment"].get(k) for k in same}
    assert warm_s < fresh_s  # the framework's import is not in it


def test_a_forked_workers_peak_memory_is_a_fresh_command_line_runs():
    """Its peak resident memory starts where a fresh worker's does: the library pages the
    server's import left resident are mapped in (without them: about 300 MB less). The fresh
    run is the command line's: a worker started by this test process (gigabytes, with the
    frameworks the suite loaded) counts its parent's size in its peak (Linux keeps the
    high-water mark across exec)."""
    args = ["run", *TINY_ARGS, "--max-steps", "200", "--min-steps", "200", "--repeats", "1"]
    done = cli(*args, "--json", "--no-store")
    assert done.returncode == 0, done.stderr
    fresh = json.loads(done.stdout)
    assert forked.wait_ready(timeout_s=60)
    config = TINY.with_changes(min_steps=200, max_steps=200, repeats=1)
    kind, warm, _ = _run(config)
    assert kind is forked.ForkedWorker
    assert warm[-1].result["peak_memory_bytes"] == pytest.approx(
        fresh["peak_memory_bytes"], rel=0.05
    )


def test_a_forked_worker_is_cancelled_and_killed_as_a_fresh_one_is():
    assert forked.wait_ready(timeout_s=60)
    worker = WorkerProcess(LONG.validated()).start()
    assert isinstance(worker.proc, forked.ForkedWorker)
    events = _until_measuring(worker)
    t0 = time.monotonic()
    worker.cancel()
    last = list(events)[-1]
    worker.close()
    assert isinstance(last, Failed) and last.kind == "cancelled"
    assert time.monotonic() - t0 < 5
    assert worker.proc.returncode == 0

    worker = WorkerProcess(LONG.validated()).start()
    events = _until_measuring(worker)
    worker.kill()
    last = list(events)[-1]
    worker.close()
    assert isinstance(last, Failed) and last.kind == "crashed"
    assert "signal SIGKILL, during measuring" in last.message
    assert not psutil.pid_exists(worker.proc.pid) or (
        psutil.Process(worker.proc.pid).status() == psutil.STATUS_ZOMBIE
    )


def test_a_forked_worker_killed_the_moment_it_starts_ends():
    """Its pid comes back once it leads its own session and group, so a kill of the group at
    once (a model-file check cancelled as it starts) reaches it: it found no group before the
    child's setsid, and the worker ran on (a CI run's check hung its 120 s)."""
    assert forked.wait_ready(timeout_s=60)
    args = ["run", "--config-json", json.dumps(LONG.validated().to_dict()), "--control-stdin"]
    for _ in range(10):
        proc = forked.spawn_forked(WorkerSpec(), "torch", args)
        assert proc is not None
        try:
            assert os.getsid(proc.pid) == proc.pid and os.getpgid(proc.pid) == proc.pid
            proc.kill()
            assert proc.wait(timeout=15) == -signal.SIGKILL
        finally:
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                stream.close()


def test_a_forked_worker_ends_when_its_parent_closes_its_stdin():
    """The server keeps no copy of a worker's stdin: its parent gone, the worker ends."""
    assert forked.wait_ready(timeout_s=60)
    args = ["run", "--config-json", json.dumps(LONG.validated().to_dict()), "--control-stdin"]
    proc = forked.spawn_forked(WorkerSpec(), "torch", args)
    assert proc is not None
    line = proc.stdout.readline()
    assert json.loads(line)["type"] == "started"
    proc.stdin.close()
    try:
        # It ends its process group, itself included (engine/worker/main.py's _exit).
        assert proc.wait(timeout=15) == -signal.SIGKILL
    finally:
        for stream in (proc.stdout, proc.stderr):
            stream.close()


def test_the_server_ends_with_its_owner_and_its_worker_runs_to_its_end(fresh_server):
    assert forked.wait_ready(timeout_s=60)
    server = psutil.Process(forked.server_pid())
    worker = WorkerProcess(LONG.validated()).start()
    events = _until_measuring(worker)
    forked.shutdown()  # the server's stdin closed, as when the app quits
    server.wait(timeout=10)
    assert worker.proc.poll() is None  # the run goes on
    worker.cancel()
    last = list(events)[-1]
    worker.close()
    assert isinstance(last, Failed) and last.kind == "cancelled"
    assert forked.server_pid() is None


def test_a_request_the_server_cannot_read_is_answered_and_it_serves_the_next():
    assert forked.wait_ready(timeout_s=60)
    path = forked._servers["torch"].path
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        conn.sendall(b'{"argv": []}\n')  # no streams attached
        answer = json.loads(conn.recv(4096))
    assert "3" in answer["error"]
    kind, events, _ = _run(TINY)
    assert kind is forked.ForkedWorker and isinstance(events[-1], Finished)


def test_a_run_that_sets_what_its_framework_reads_at_import_is_not_forked(monkeypatch):
    """TensorFlow under a memory cap is imported with oneDNN off (TrainingConfig.
    import_environment): a warm server that imported it on does not serve the run, which starts
    fresh; one that imported it off does."""
    monkeypatch.delenv("TF_ENABLE_ONEDNN_OPTS", raising=False)  # TensorFlow's default: on
    assert forked.wait_ready(framework="tensorflow", timeout_s=60)
    server = forked.server_pid("tensorflow")
    capped = TINY.with_changes(
        framework="tensorflow", memory_limit_bytes=2 << 30, min_steps=20, max_steps=20, repeats=1
    )
    assert capped.import_environment() == {"TF_ENABLE_ONEDNN_OPTS": "0"}
    kind, events, _ = _run(capped)
    assert kind is not forked.ForkedWorker and isinstance(events[-1], Finished)
    assert events[-1].result["environment"]["onednn_opts"] == "0"
    assert forked.server_pid("tensorflow") == server  # kept for the runs it can serve
    kind, events, _ = _run(capped.with_changes(memory_limit_bytes=None))
    assert kind is forked.ForkedWorker and isinstance(events[-1], Finished)
    assert events[-1].result["environment"]["onednn_opts"] is None
    # A study of capped runs (engine/process/worker_turns.py) waits for a server that imported
    # TensorFlow as they would: it replaces the other, and its runs are forked.
    assert forked.wait_ready(
        framework="tensorflow", timeout_s=60, import_env=capped.import_environment()
    )
    assert forked.server_pid("tensorflow") != server
    kind, events, _ = _run(capped)
    assert kind is forked.ForkedWorker and isinstance(events[-1], Finished)
    assert events[-1].result["environment"]["onednn_opts"] == "0"


def test_workers_a_fresh_process_would_measure_differently_are_not_forked(monkeypatch):
    assert forked.supported(WorkerSpec(), "tensorflow")
    assert not forked.supported(WorkerSpec(), "jax")
    assert not forked.supported(WorkerSpec(python="/usr/bin/python3"), "torch")
    monkeypatch.setenv("EPOCHCOST_FORKSERVER", "0")
    assert not forked.supported(WorkerSpec(), "torch")
    monkeypatch.delenv("EPOCHCOST_FORKSERVER")
    assert forked.wait_ready(timeout_s=60)
    first = forked.server_pid()
    # A variable the framework reads at its import: the server, started without it, would give
    # another framework than a fresh process gets. The run starts fresh; a study's wait for a
    # server replaces it with one of this environment.
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    kind, events, _ = _run(TINY)
    assert kind is not forked.ForkedWorker and isinstance(events[-1], Finished)
    assert forked.server_pid() == first
    assert forked.wait_ready(timeout_s=60)
    assert forked.server_pid() not in (None, first)
    assert not psutil.pid_exists(first) or psutil.Process(first).status() == "zombie"


def test_a_fresh_workers_peak_memory_is_its_own_not_its_parents(monkeypatch):
    """Linux keeps a process's ru_maxrss across exec: a worker launched by a parent larger than
    itself read the parent's size as its peak. The worker reads its own (VmHWM)."""
    monkeypatch.setenv("EPOCHCOST_FORKSERVER", "0")
    ballast = b"\x01" * (3 << 29)  # 1.5 GiB, resident: this process is larger than a worker
    try:
        kind, events, _ = _run(TINY.with_changes(min_steps=50, max_steps=50, repeats=1))
    finally:
        del ballast
    assert kind is not forked.ForkedWorker and isinstance(events[-1], Finished)
    peak = events[-1].result["peak_memory_bytes"]
    assert 100 << 20 < peak < 1200 << 20  # tiny-mlp's worker: about 780 MB with torch


def test_a_server_whose_import_loaded_the_cuda_driver_would_not_serve(tmp_path):
    """A CUDA context does not survive a fork: the server checks, after its import, that the
    driver is not mapped (neither framework maps it before its first use of a GPU)."""
    from engine.worker import forkserver

    for framework in forked.FRAMEWORKS:  # the real servers, their framework imported
        assert forked.wait_ready(framework=framework, timeout_s=60)
        pid = forked.server_pid(framework)
        assert not forkserver._cuda_driver_loaded(f"/proc/{pid}/maps")
    maps = tmp_path / "maps"
    maps.write_text(
        "7f0000000000-7f0000001000 r-xp 00000000 08:01 42 /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
    )
    assert forkserver._cuda_driver_loaded(str(maps))
