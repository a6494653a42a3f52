"""The worker's heap settings (engine/worker/measure/heap.py), on the real glibc: each check runs
in a fresh Python, since mallopt changes the process it runs in for good."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.worker.measure import heap
from tests.engine.helpers import TINY, run_events

pytestmark = pytest.mark.skipif(
    heap.libc() is None, reason="no glibc here (mallopt is glibc's): nothing is set"
)

# Allocates 40 blocks of 1 MiB with glibc's malloc, frees them in reverse (the heap's top goes
# free), then one block of 40 MiB; prints how far the program break (the heap's top) moved.
PROBE = """
import ctypes, json, sys
from engine.worker.measure import heap
lib = heap.libc()
lib.sbrk.restype = ctypes.c_void_p
lib.malloc.restype = ctypes.c_void_p
lib.free.argtypes = [ctypes.c_void_p]
settings = {settings}
brk = lambda: lib.sbrk(0)
start = brk()
blocks = [lib.malloc(1 << 20) for _ in range(40)]
grown = brk() - start
for block in reversed(blocks):
    lib.free(block)
kept = brk() - start
before_big = brk()
big = lib.malloc(40 << 20)
big_moved = brk() - before_big
lib.free(big)
print(json.dumps(dict(settings=settings, grown=grown, kept=kept, big_moved=big_moved)))
"""
MIB = 1 << 20


def _probe(settings: str, env: dict[str, str] | None = None) -> dict[str, object]:
    code = textwrap.dedent(PROBE.format(settings=settings))
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return dict(json.loads(out.stdout))


def test_steady_keeps_the_heaps_top_and_maps_only_large_blocks():
    """With the run's settings, 1 MiB blocks come from the heap and their pages stay when they
    are freed (no churn); a 40 MiB block is mapped on its own, as glibc's defaults would."""
    probed = _probe("heap.steady()")
    assert str(probed["settings"]).startswith("glibc thresholds fixed: blocks from 32 MiB")
    assert probed["grown"] >= 36 * MIB, probed  # in the heap (some was free there), not mapped
    assert probed["kept"] == probed["grown"], probed  # freed, but not given back
    assert probed["big_moved"] == 0, probed  # mapped: the heap's top did not move


def test_glibcs_defaults_give_the_freed_top_back():
    """The control: without the settings the same frees return the heap's top to the system
    (what makes a millisecond step churn), so the test above sees the settings' effect."""
    probed = _probe("None")
    assert probed["kept"] < 8 * MIB, probed


def test_the_environment_variables_docs_give_a_script_set_the_same():
    """docs/measuring.md tells a user how their own script runs as the worker does: glibc's
    environment variables, read at start. They keep the heap's top as mallopt does."""
    probed = _probe("None", heap.STEADY_ENVIRONMENT)
    assert probed["grown"] >= 36 * MIB and probed["kept"] == probed["grown"], probed
    assert probed["big_moved"] == 0, probed
    docs = (Path(__file__).parents[2] / "docs" / "measuring.md").read_text()
    given = " ".join(f"{k}={v}" for k, v in heap.STEADY_ENVIRONMENT.items())
    assert f"{given} python train.py" in docs


def test_a_memory_caps_settings_map_every_tensor_sized_block():
    probed = _probe("heap.for_counting()")
    assert "128 KiB" in str(probed["settings"])
    assert probed["grown"] < 8 * MIB, probed  # 1 MiB blocks mapped, one by one


def test_a_run_says_in_its_environment_how_its_heap_was_set():
    plain = run_events(TINY)[-1]
    assert plain.type == "finished", plain
    assert plain.result["environment"]["heap"] == heap.STEADY
    capped = run_events(TINY.with_changes(memory_limit_bytes=1 << 30))[-1]
    assert capped.type == "finished", capped
    assert capped.result["environment"]["heap"] == heap.COUNTING
