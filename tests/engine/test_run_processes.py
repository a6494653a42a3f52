"""Whose CPU is the run's own (engine/measure/busy.py): a worker under a launcher between it and
the process that reads its events (a fork server, torchrun) counts that reader and the
launcher's other children (a data-parallel run's other ranks) as its own, not as "other
processes" that make the machine busy. Real processes, their CPU read from /proc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from engine.measure import busy
from engine.process.spawn import WorkerSpec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The worker's side: its run's processes, then (after a line on stdin) the CPU they used since.
WORKER = """
import json, os, sys
from engine.measure import busy
root, reader = busy.run_processes(os.getpid())
share = busy.CpuShare.begin()
print(json.dumps({"me": os.getpid(), "root": root, "reader": reader}), flush=True)
sys.stdin.readline()
print(json.dumps({"own": busy._own_seconds(root, reader) - share.own0}), flush=True)
"""
# A sibling (another rank): once the worker has begun counting (the go file is there), half a
# second of CPU, then it waits. Burnt from its start, part of it fell before the worker's first
# reading on a loaded machine (0.38 s counted of the 0.5).
SIBLING = """
import os, time
while not os.path.exists(os.environ["SIBLING_GO"]):
    time.sleep(0.01)
t = time.process_time()
while time.process_time() - t < 0.5:
    pass
time.sleep(60)
"""
# The launcher between the reader and the worker: starts the worker (stdin and stdout passed
# through) and, with "sibling", another child beside it.
LAUNCHER = """
import os, subprocess, sys
others = [subprocess.Popen([sys.executable, "-c", sys.argv[2]])] if sys.argv[1] == "sibling" else []
env = dict(os.environ)
if sys.argv[4:] == ["server"]:  # as a fork server's worker is told (engine/process/forked.py)
    env["EPOCHCOST_FORK_SERVER_PID"] = str(os.getpid())
code = subprocess.Popen([sys.executable, "-c", sys.argv[3]], env=env).wait()"""


def _launch(
    reader: str, sibling: bool, server: bool = False, go: str = ""
) -> subprocess.Popen[str]:
    """The launcher (torchrun's, or with `server` a fork server) between the reader and the
    worker, in a session of its own as every worker's top process is; its sibling burns once
    the file `go` is there."""
    env = {**os.environ, "PYTHONPATH": ROOT, busy.READER_ENV: reader, "SIBLING_GO": go}
    env.pop(busy.SERVER_ENV, None)
    mode = ["server"] if server else []
    return subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, "sibling" if sibling else "-", SIBLING, WORKER, *mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )


def _burn(seconds: float) -> None:
    t = time.process_time()
    while time.process_time() - t < seconds:
        pass


def _own_after(launcher: subprocess.Popen[str], work) -> tuple[dict, float]:
    assert launcher.stdin is not None and launcher.stdout is not None
    try:
        first = json.loads(launcher.stdout.readline())
        work()
        launcher.stdin.write("\n")
        launcher.stdin.flush()
        own = json.loads(launcher.stdout.readline())["own"]
        assert launcher.wait(timeout=60) == 0
        return first, own
    finally:
        if launcher.poll() is None:
            for p in psutil.Process(launcher.pid).children(recursive=True):
                p.kill()
            launcher.kill()
            launcher.wait()
        launcher.stdin.close()
        launcher.stdout.close()


def test_the_reader_behind_a_launcher_is_the_runs_own():
    launcher = _launch(str(os.getpid()), sibling=False)
    first, own = _own_after(launcher, lambda: _burn(0.5))  # the reader draws the run
    assert first["root"] == launcher.pid  # the launcher's tree is the run's
    assert first["reader"] == os.getpid()
    assert own >= 0.4, own  # the reader's half second counted as the run's


def test_a_data_parallel_runs_other_ranks_are_its_own(tmp_path):
    go = tmp_path / "go"
    launcher = _launch(str(os.getpid()), sibling=True, go=str(go))

    first, own = _own_after(launcher, lambda: _sibling_burnt(launcher, go))
    assert first["root"] == launcher.pid  # torchrun's launcher: every rank under it
    assert own >= 0.4, own


def test_a_forked_workers_server_and_its_other_workers_are_not_its_own(tmp_path):
    """The fork server's other worker (a model-file check beside a run) is another process; the
    reader drawing the run is the run's own."""
    go = tmp_path / "go"
    launcher = _launch(str(os.getpid()), sibling=True, server=True, go=str(go))

    def both() -> None:
        _sibling_burnt(launcher, go)
        _burn(0.5)

    first, own = _own_after(launcher, both)
    assert first["root"] == first["me"]  # the worker, not the server's tree
    assert first["reader"] == os.getpid()
    assert 0.4 <= own < 0.8, own  # the reader's half second, not the other worker's


def _sibling_burnt(launcher: subprocess.Popen[str], go: Path) -> None:
    go.touch()  # the worker has begun counting: the sibling burns its half second now
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        kids = psutil.Process(launcher.pid).children()
        burnt = [p for p in kids if sum(p.cpu_times()[:2]) >= 0.5]
        if any("time.sleep(60)" in " ".join(p.cmdline()) for p in burnt):
            return
        time.sleep(0.05)
    pytest.fail("the sibling never used its half second")


def test_a_reader_that_is_no_ancestor_is_ignored():
    """A worker started by hand, or whose environment came from another machine: itself and its
    parent, as before."""
    launcher = _launch("4194000", sibling=False)  # no such ancestor
    first, _own = _own_after(launcher, lambda: None)
    assert first["root"] == first["me"] and first["reader"] == launcher.pid


def test_every_worker_is_told_its_reader():
    assert WorkerSpec().environment()[busy.READER_ENV] == str(os.getpid())
