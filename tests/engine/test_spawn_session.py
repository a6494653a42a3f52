"""engine/process/spawn.stop_session on real processes: a child in a session of its own, and
what it started there."""

from __future__ import annotations

import os
import subprocess
import time

import psutil
import pytest

from engine.process import spawn

pytestmark = pytest.mark.skipif(os.name != "posix", reason="sessions and process groups are POSIX")


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _gone_soon(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _running(pid)


def test_a_child_that_has_ended_leaves_nothing_it_started_running():
    """The child ends (here by itself; in the field, an installer killed alone by its parent-
    death signal) with its own child still running in its group: stopping the session ends
    that one too. Before, a child already ended returned at once, and an installer's child
    ran on after `env create` had said nothing was left behind."""
    proc = subprocess.Popen(
        ["sh", "-c", "sleep 300 & echo $!"],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    left = int(proc.stdout.readline())  # type: ignore[union-attr]
    proc.wait()
    proc.stdout.close()  # type: ignore[union-attr]
    assert _running(left) and os.getpgid(left) == proc.pid
    spawn.stop_session(proc)
    assert _gone_soon(left)


def test_a_running_child_and_its_group_end():
    proc = subprocess.Popen(
        ["sh", "-c", "sleep 300 & echo $!; wait"],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    child = int(proc.stdout.readline())  # type: ignore[union-attr]
    spawn.stop_session(proc, grace_s=5)
    proc.stdout.close()  # type: ignore[union-attr]
    assert proc.returncode is not None
    assert _gone_soon(child)
