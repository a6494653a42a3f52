"""How the worker's C heap (glibc's malloc) behaves during a run: the same in every launch.

glibc's defaults move with what a process has freed before: it gives the heap's top back to the
system once more than its trim threshold lies free there, and it raises its mmap threshold (the
size from which a block is mapped on its own), and the trim threshold with it, each time a
mapped block is freed. Where those stand when the steps begin is chance (what the framework's
import freed, thread timing, the layout), and so is whether a run churns: each step frees the
heap's top, glibc returns it, the next step takes it again, and the kernel hands every page back
zeroed. Measured on the two-core development machine (benchmarks/RESULTS.md, issue 42): on
tiny-mlp it struck a third of the worker's launches and one in seven of a hand-written loop's,
each 5-10% slower; on resnet18-cifar at batch 64 most launches of either churned, by 0.5 to 2.8
million page faults in 30 steps, and one loop's launches ran 96-110 samples/s. Two identical
runs differed by more than either's interval said, and which loop was faster changed by the day.

So a run fixes them once its framework is imported: blocks under 32 MiB (glibc's largest mmap
threshold) come from the heap, and the heap's top is never given back during the run, so a
step reuses the pages the step before freed. A block of 32 MiB or more (a large activation) is
still mapped and unmapped each time, as under the defaults. The figure is the step's own speed
with the memory reused, the same in every launch; a script of the user's own reaches it with
the same two settings (docs/measuring.md gives them as environment variables). The result's
environment says so (`heap`). Peak memory keeps its meaning: the high-water mark of resident
memory (engine/worker/measure/pipeline.peak_rss_bytes).

A run under a memory cap sets its own (`for_counting`, engine/worker/measure/memcap.py): there
every block over 128 KiB is mapped on its own, so resident memory follows the live tensors.
Elsewhere than glibc (macOS, musl) nothing is set and the environment has no `heap`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from typing import Any

# mallopt's parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
_MIB = 2**20
# glibc's largest mmap threshold on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX; mallopt refuses more).
STEADY_MMAP_BYTES = 32 * _MIB
NEVER_TRIM = -1  # mallopt(3): M_TRIM_THRESHOLD -1 disables trimming completely
COUNTING_MMAP_BYTES = 128 * 1024
# The same two settings as glibc's environment variables, read when a process starts: how a
# user's own script runs as the worker does (docs/measuring.md), and the benchmarks' hand loops.
STEADY_ENVIRONMENT = {
    "MALLOC_MMAP_THRESHOLD_": str(STEADY_MMAP_BYTES),
    "MALLOC_TRIM_THRESHOLD_": str(NEVER_TRIM),
}
# What the result's environment says (`heap`).
STEADY = (
    f"glibc thresholds fixed: blocks from {STEADY_MMAP_BYTES // _MIB} MiB mapped, "
    "the heap's top kept (never trimmed)"
)
COUNTING = (
    f"glibc thresholds fixed for the memory limit: blocks from {COUNTING_MMAP_BYTES // 1024} KiB "
    "mapped, one arena"
)


def libc() -> Any:
    """glibc, or None where there is none to set (not Linux, or a libc without mallopt)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return lib if hasattr(lib, "mallopt") and hasattr(lib, "malloc_trim") else None


def _set(lib: Any, settings: dict[int, int]) -> bool:
    """mallopt each setting (every one, whatever the others return); True when glibc took
    every one (it returns 1 on success)."""
    taken = [lib.mallopt(param, value) for param, value in settings.items()]
    return all(result == 1 for result in taken)


def steady() -> str | None:
    """Fix the thresholds for a run (the module's doc); the environment's description, or None
    where nothing was set."""
    lib = libc()
    if lib is None or not _set(
        lib, {_M_MMAP_THRESHOLD: STEADY_MMAP_BYTES, _M_TRIM_THRESHOLD: NEVER_TRIM}
    ):
        return None
    return STEADY


def for_counting() -> str | None:
    """A memory cap's settings: one arena (a thread started later, the monitor, cannot reserve
    a fresh 64 MiB arena at a moment that depends on thread timing), and every block over
    128 KiB (a tensor) mapped and unmapped on its own, so that resident memory follows the live
    tensors. Measured on tiny-mlp at batch 2900: six workers spread over 0.4 MiB with these
    settings; without, one in four was 1.5 MiB above the rest."""
    lib = libc()
    if lib is None or not _set(lib, {_M_ARENA_MAX: 1, _M_MMAP_THRESHOLD: COUNTING_MMAP_BYTES}):
        return None
    return COUNTING


def give_back() -> None:
    """Return the heap's free pages to the system now (a memory cap's baseline)."""
    lib = libc()
    if lib is not None:
        lib.malloc_trim(0)
