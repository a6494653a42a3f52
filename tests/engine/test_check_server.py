"""SkyPilot's dry-run check from the warm cloud program (engine/cloud/check_server.py), the
real program in the real cloud environment: it answers as a one-off run does, is kept between
checks, and is started again after a cancel, a timeout, a failed request, a kill, its idle end,
a change of catalog or of cloud environment; its serve loop answers a bad line and serves on."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import threading

import psutil
import pytest

from engine.cloud import check_server, dryrun, skypilot
from engine.cloud.sky_catalog import runtime_dir
from engine.core import paths
from engine.pricing import catalog
from tests.engine.cloud_helpers import need_cloud_env

GOOD = {"resources": {"cloud": "aws", "instance_type": "g5.xlarge"}, "run": "echo hi"}
BAD = {"resources": {"cloud": "aws", "instance_type": "nope.xlarge"}, "run": "echo hi"}


@pytest.fixture(autouse=True)
def no_program():
    """Each test starts without a warm program and leaves none."""
    check_server.shutdown()
    yield
    check_server.shutdown()


def _pid() -> int:
    (pid,) = check_server.server_pids()
    return pid


def _gone(pid: int, within_s: float = 10.0) -> bool:
    try:
        psutil.Process(pid).wait(timeout=within_s)
    except psutil.NoSuchProcess:
        pass
    except psutil.TimeoutExpired:
        return False
    return True


def test_the_warm_program_answers_as_a_one_off_run_and_is_kept_between_checks():
    python = need_cloud_env()
    cat = catalog.load()
    root = runtime_dir(cat)
    one_off = skypilot.call("check", {"tasks": [GOOD, BAD], "runtime_dir": str(root)})
    first = check_server.check(python, root, [GOOD, BAD], 300)
    pid = _pid()
    assert first == one_off
    assert first[0]["ok"] and first[0]["usd_per_hour"] > 0
    assert not first[1]["ok"] and "nope.xlarge" in first[1]["error"]
    # the dry run's own verdicts, from the same program
    verdicts = dryrun.check(cat, [BAD, GOOD])
    assert [v.ok for v in verdicts] == [False, True]
    assert verdicts[1].usd_per_hour == one_off[0]["usd_per_hour"]
    assert _pid() == pid
    # in its own session: a Ctrl-C at the terminal is epochcost's
    assert os.getsid(pid) == pid


def test_a_cancel_or_a_timeout_ends_the_program_and_the_next_check_starts_another():
    python = need_cloud_env()
    root = runtime_dir(catalog.load())
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()  # while SkyPilot is imported
    with pytest.raises(skypilot.SkyError) as stopped:
        check_server.check(python, root, [GOOD], 300, cancel)
    assert stopped.value.kind == "Cancelled" and stopped.value.provisioned is False
    assert check_server.server_pids() == set()
    with pytest.raises(skypilot.SkyError) as late:
        check_server.check(python, root, [GOOD], 0.2)
    assert late.value.kind == "Timeout"
    assert check_server.server_pids() == set()
    (answer,) = check_server.check(python, root, [GOOD], 300)
    assert answer["ok"]


def test_a_killed_program_or_a_removed_catalog_folder_gets_a_new_program(monkeypatch, tmp_path):
    python = need_cloud_env()
    cat = catalog.load()
    root = runtime_dir(cat)
    check_server.check(python, root, [GOOD], 300)
    killed = _pid()
    os.kill(killed, signal.SIGKILL)
    assert _gone(killed)
    (answer,) = check_server.check(python, root, [GOOD], 300)
    assert answer["ok"]
    second = _pid()
    assert second != killed
    # Its SkyPilot home removed (another data folder, the first one cleared): a new program
    # on the new folder of the same catalog.
    monkeypatch.setenv("EPOCHCOST_HOME", str(tmp_path / "another-home"))
    shutil.rmtree(root)
    root = runtime_dir(cat)
    assert check_server.check(python, root, [GOOD], 300)[0]["ok"]
    assert _gone(second) and _pid() != second
    # Another catalog (a price edited, an instance added): another folder, another program.
    fewer = dataclasses.replace(cat, instances=cat.instances[1:])
    other = runtime_dir(fewer)
    assert other != root
    third = _pid()
    assert check_server.check(python, other, [GOOD], 300)[0]["ok"]
    assert _gone(third) and _pid() != third


def test_a_failed_request_or_an_environment_made_again_gets_a_new_program():
    python = need_cloud_env()
    root = runtime_dir(catalog.load())
    check_server.check(python, root, [GOOD], 300)
    first = _pid()
    # Not a list of tasks: the program's own error line, and the program is ended (what failed
    # once would fail again, for the rest of its life).
    with pytest.raises(skypilot.SkyError) as failed:
        check_server.check(python, root, 5, 300)  # type: ignore[arg-type]
    assert failed.value.kind == "TypeError" and failed.value.provisioned is False
    assert _gone(first) and check_server.server_pids() == set()
    check_server.check(python, root, [GOOD], 300)
    second = _pid()
    # `epochcost env create --cloud` made the environment again: another SkyPilot on disk
    # than the one the program imported.
    made = python.parent.parent / "pyvenv.cfg"
    before = made.stat()
    try:
        os.utime(made, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        assert check_server.check(python, root, [GOOD], 300)[0]["ok"]
        assert _gone(second) and _pid() != second
    finally:
        os.utime(made, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_the_program_ends_by_itself_after_its_idle_time(monkeypatch):
    python = need_cloud_env()
    monkeypatch.setattr(check_server, "IDLE_S", 1.0)
    root = runtime_dir(catalog.load())
    check_server.check(python, root, [GOOD], 300)
    pid = _pid()
    assert _gone(pid, within_s=30)  # the next check starts another (the test above)
    assert check_server.server_pids() == set()


def test_the_serve_loop_answers_a_bad_line_and_serves_on():
    python = need_cloud_env()
    root = runtime_dir(catalog.load())
    proc = subprocess.Popen(
        [str(python), "-I", str(paths.cloud_program()), "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        lines = [
            json.dumps({"runtime_dir": str(root), "idle_s": 60}),
            "not json",
            json.dumps(["a list, not a request"]),
            json.dumps({"tasks": [BAD]}),
        ]
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        got = [json.loads(proc.stdout.readline()) for _ in range(4)]
        assert [m["kind"] for m in got] == ["ready", "error", "error", "answer"]
        assert all("one JSON object a line" in m["message"] for m in got[1:3])
        assert not got[3]["answer"][0]["ok"]
        proc.stdin.close()  # its parent gone: it ends
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout):
            stream.close()
