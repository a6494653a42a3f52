"""A model file that starts processes of its own (issue 17): the run still ends, with its
result, and no process it started outlives it. The worker's event stream is not inherited by
a forked child, and the launcher ends the worker's process group once the worker has ended."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from engine.core.events import Failed, Finished, Phase
from engine.measure.config import RunConfig
from engine.process.launcher import WorkerProcess
from tests.engine.helpers import TINY_ARGS, alive, cli, gone_soon
from tests.engine.model_files import VALID, write

pytestmark = pytest.mark.skipif(os.name != "posix", reason="fork and process groups are POSIX")

RUN_ARGS = [a for a in TINY_ARGS if a not in ("--model", "tiny-mlp")]
# Far below the children's 60 s: a run that waits for them fails here.
RUN_TIMEOUT_S = 40.0

# Each starts a child that would live a minute, and notes its pid in PIDS (one a line).
CHILDREN = {
    "multiprocessing fork": """\
    import multiprocessing
    import time

    child = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,))
    child.start()
    pid = child.pid
""",
    "subprocess": """\
    import subprocess

    pid = subprocess.Popen(["sleep", "60"]).pid
""",
    "os.fork": """\
    import os
    import time

    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
""",
    # Leaves the worker's session and holds every fd the worker has open, events included:
    # the launcher cannot end it, but must not wait for it either.
    "own session, every fd": """\
    import os
    import subprocess

    fds = [int(fd) for fd in os.listdir("/proc/self/fd") if int(fd) > 2]
    pid = subprocess.Popen(
        ["sleep", "60"], pass_fds=fds, start_new_session=True, stderr=subprocess.DEVNULL
    ).pid
""",
}


def _model_file(folder: Path, start_child: str) -> tuple[Path, Path]:
    """A valid model file whose build_model first starts a child (`start_child`, indented
    code that sets `pid`) and records its pid."""
    pids = folder / "pids.txt"
    body = (
        "def build_model(batch_size, hints):\n"
        + start_child
        + f"    with open({str(pids)!r}, 'a') as out:\n"
        + "        out.write(f'{pid}\\n')\n"
        + "    return nn.Linear(8, 3)\n"
    )
    text = VALID.replace("def build_model(batch_size, hints):\n    return nn.Linear(8, 3)\n", body)
    assert text != VALID
    return write(folder, text), pids


def _recorded(pids: Path) -> list[int]:
    return [int(line) for line in pids.read_text().split()] if pids.exists() else []


def _kill(pids: list[int]) -> None:
    """Clean up after a failing test: its children are not the test's own."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _cli_run(path: Path) -> tuple[dict, float]:
    started = time.monotonic()
    proc = cli(
        "run", "--model-file", str(path), *RUN_ARGS, "--device", "cpu", "--no-store", "--json",
        timeout=RUN_TIMEOUT_S,
    )  # fmt: skip
    took = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == "ok" and "Traceback" not in proc.stderr
    return result, took


@pytest.mark.parametrize("how", ["multiprocessing fork", "subprocess", "os.fork"])
def test_a_child_of_the_model_file_neither_hangs_the_run_nor_outlives_it(tmp_path, how):
    path, pids = _model_file(tmp_path, CHILDREN[how])
    try:
        result, took = _cli_run(path)
        (pid,) = _recorded(pids)
        assert result["config"]["model_file"] == str(path)
        assert took < RUN_TIMEOUT_S
        assert gone_soon(pid), f"the model file's child {pid} outlived the run"
    finally:
        _kill(_recorded(pids))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")
def test_a_child_that_leaves_the_group_holding_the_events_does_not_hang_the_run(tmp_path):
    path, pids = _model_file(tmp_path, CHILDREN["own session, every fd"])
    try:
        result, took = _cli_run(path)
        (pid,) = _recorded(pids)
        assert took < RUN_TIMEOUT_S and alive(pid)  # out of reach, and not waited for
    finally:
        _kill(_recorded(pids))


def _long_run(path: Path) -> RunConfig:
    return RunConfig(
        model="my-model",
        model_file=str(path),
        device="cpu",
        batch_size=16,
        warmup_steps=2,
        min_steps=100_000,
        max_steps=200_000,
        max_seconds=120.0,
        threads=1,
    ).validated()


def test_a_cancelled_run_ends_the_children_too(tmp_path):
    path, pids = _model_file(tmp_path, CHILDREN["os.fork"])
    worker = WorkerProcess(_long_run(path)).start()
    seen = []
    try:
        started = time.monotonic()
        for event in worker.events():
            seen.append(event)
            if isinstance(event, Phase) and event.phase in ("warmup", "measuring"):
                worker.cancel()
        took = time.monotonic() - started
        assert isinstance(seen[-1], Failed) and not isinstance(seen[-1], Finished)
        assert seen[-1].kind == "cancelled", seen[-1]
        assert took < RUN_TIMEOUT_S
        (pid,) = _recorded(pids)
        assert gone_soon(pid), f"the model file's child {pid} outlived the cancelled run"
    finally:
        worker.close()
        _kill(_recorded(pids))


def test_a_worker_whose_parent_is_gone_ends_the_children_itself(tmp_path):
    path, pids = _model_file(tmp_path, CHILDREN["multiprocessing fork"])
    worker = WorkerProcess(_long_run(path)).start()
    try:
        for event in worker.events():
            if isinstance(event, Phase) and event.phase == "measuring":
                break
        assert worker.proc is not None and worker.proc.stdin is not None
        worker.proc.stdin.close()  # what the OS does when the parent dies
        worker.proc.wait(timeout=RUN_TIMEOUT_S)
        (pid,) = _recorded(pids)
        # no launcher to end the group (its events loop never saw the worker end)
        assert gone_soon(pid), f"the model file's child {pid} outlived its orphaned worker"
    finally:
        worker.close()
        _kill(_recorded(pids))
