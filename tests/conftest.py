"""Fixtures for every test: a private data folder, and no worker process left behind."""

from __future__ import annotations

import os

import psutil
import pytest


@pytest.fixture(autouse=True)
def epochcost_home(tmp_path, monkeypatch):
    """Each test gets its own store and settings folder (EPOCHCOST_HOME)."""
    home = tmp_path / "epochcost-home"
    monkeypatch.setenv("EPOCHCOST_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def no_leftover_processes():
    """Fail a test that leaves a child process (a worker) running."""
    yield
    me = psutil.Process(os.getpid())
    alive = [
        p
        for p in me.children(recursive=True)
        if p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    ]
    if alive:
        _, still = psutil.wait_procs(alive, timeout=5)
        for p in still:
            p.kill()
        if still:
            pytest.fail(f"test left processes running: {[p.cmdline()[:4] for p in still]}")
