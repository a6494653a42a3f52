"""engine/process/spawn.stop_session on real processes: a child in a session of its own, and
what it started there."""

from __future__ import annotations

import os
import subprocess

import pytest

from engine.process import spawn
from tests.engine.helpers import alive, gone_soon

pytestmark = pytest.mark.skipif(os.name != "posix", reason="sessions and process groups are POSIX")


def _session(script: str) -> tuple[subprocess.Popen[str], int]:
    """`sh -c script` in a session of its own; the pid of the child it starts (its first line)."""
    proc = subprocess.Popen(
        ["sh", "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def test_a_child_that_has_ended_leaves_nothing_it_started_running():
    """The child ends (here by itself; in the field, an installer killed alone by its parent-
    death signal) with its own child still running in its group: stopping the session ends
    that one too. Before, a child already ended returned at once, and an installer's child
    ran on after `env create` had said nothing was left behind."""
    proc, left = _session("sleep 300 & echo $!")
    proc.wait()
    proc.stdout.close()  # type: ignore[union-attr]
    assert alive(left) and os.getpgid(left) == proc.pid
    spawn.stop_session(proc)
    assert gone_soon(left, within_s=5)


def test_a_running_child_and_its_group_end():
    proc, child = _session("sleep 300 & echo $!; wait")
    spawn.stop_session(proc, grace_s=5)
    proc.stdout.close()  # type: ignore[union-attr]
    assert proc.returncode is not None
    assert gone_soon(child, within_s=5)
