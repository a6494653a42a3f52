"""The worker-enforced memory cap (RunConfig.memory_limit_bytes): a device of `cap` bytes on a CPU.

On a GPU a batch that does not fit fails its allocation. On a CPU the host would swap or the
kernel would kill the process, so a max-fit search there (and the tests) runs under a cap instead:
the worker counts the memory the workload uses from the moment the framework is imported (model,
batch, optimizer state, and each step's peak of activations and gradients) and ends the run as
out of memory once that count passes the cap.

How it counts (Linux): resident memory, with the kernel's high-water mark (VmHWM) reset after
building, so a step's transient peak counts too. Free heap pages are returned to the system
(malloc_trim) before each baseline, so that reusing them counts as well. Address space (RLIMIT_AS)
is too loose a measure: a heap full of holes from the framework import absorbs a whole batch
without growing. RLIMIT_AS is only the backstop that makes a single allocation far past the cap
fail at once, instead of filling the host's memory.

The heap's own settings under a cap: engine/worker/measure/heap.for_counting.

Not counted: the framework import, and what the harness does after building (libraries loaded
to read versions, the FLOP count's forward and backward pass, which also makes the framework's
one-time allocations, the monitor thread), so the boundary depends on the workload and the batch.

It counts host memory only: on a GPU the device's own memory is the limit, and a cap there
bounds what the process keeps on the host.
"""

from __future__ import annotations

import os
import re
import resource
from collections.abc import Generator
from pathlib import Path
from typing import Any

from engine.core.errors import RunFailed
from engine.core.events import Eval, Event, Step
from engine.worker.measure import heap

# The address-space backstop sits this far above the cap: the harness maps libraries after
# building (cuDNN's, a few hundred MiB of address space, almost none of it resident).
BACKSTOP_SLACK_BYTES = 2 << 30
_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")
_MIB = 2**20


def status_bytes(key: str) -> int | None:
    """A `kB` field of /proc/self/status in bytes (None where there is no /proc)."""
    try:
        match = re.search(rf"^{key}:\s+(\d+) kB", _STATUS.read_text(), re.M)
    except OSError:
        return None
    return int(match.group(1)) * 1024 if match else None


def resident_bytes() -> int:
    """This process's resident memory now (bytes)."""
    value = status_bytes("VmRSS")
    if value is not None:
        return value
    import psutil

    return int(psutil.Process(os.getpid()).memory_info().rss)


class MemoryCap:
    """Counts the workload's memory against `cap_bytes`. Use in the runner, in this order:
    `begin` after the framework's import, `built` once the session is open, `start_counting`
    once the harness is set up, `watch_steps` around the measuring loop, then `memory_fields`
    for the result."""

    def __init__(self, cap_bytes: int) -> None:
        self.cap_bytes = cap_bytes
        self.batch_size: int | None = None
        self._building_rss: int | None = None
        self._built_bytes = 0
        self._base_rss = 0
        self._peak_used = 0
        # Without /proc (macOS) there is no high-water mark to reset: sample the current size.
        self._exact = status_bytes("VmHWM") is not None and _CLEAR_REFS.exists()

    def _settle(self) -> int:
        """Give free heap pages back to the system, then read resident memory."""
        heap.give_back()
        return resident_bytes()

    def begin(self, batch_size: int | None = None) -> str | None:
        """Start the count: call once the framework is imported and nothing is built yet.
        Returns the heap's settings for the environment (engine/worker/measure/heap.py)."""
        self.batch_size = batch_size
        settings = heap.for_counting()
        self._building_rss = self._settle()
        self._set_backstop()
        return settings

    def built(self) -> None:
        """The model, batch and optimizer exist: what they hold counts against the cap."""
        if self._building_rss is not None:
            self._built_bytes = max(0, self._settle() - self._building_rss)

    def _set_backstop(self) -> None:
        import psutil

        limit = psutil.Process(os.getpid()).memory_info().vms + self.cap_bytes
        limit += BACKSTOP_SLACK_BYTES
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        if soft == resource.RLIM_INFINITY or limit < soft:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))

    def start_counting(self) -> None:
        """Baseline for the steps: what the harness loaded since building is not counted."""
        self._base_rss = self._settle()
        if self._exact:
            _CLEAR_REFS.write_text("5")  # reset the high-water mark to the current size
        self.check()

    def used_bytes(self) -> int:
        """The workload's peak so far: what it built plus the steps' peak above the baseline."""
        peak = status_bytes("VmHWM") if self._exact else None
        now = peak if peak is not None else resident_bytes()
        self._peak_used = max(self._peak_used, self._built_bytes + max(0, now - self._base_rss))
        return self._peak_used

    def check(self) -> None:
        """Raise RunFailed("oom") when the workload has used more than the cap."""
        used = self.used_bytes()
        if used > self.cap_bytes:
            at = f" at batch size {self.batch_size}" if self.batch_size else ""
            raise RunFailed(
                "oom",
                f"out of memory{at}: the run used {used / _MIB:.2f} MiB, more than the "
                f"memory limit of {self.cap_bytes / _MIB:.2f} MiB",
            )

    def watch_steps(self, measuring: Generator[Event, None, None]) -> Generator[Event, None, None]:
        """Pass the measuring loop's events through, checking the count after every step (and
        every evaluation of a training-to-accuracy run, which reports no single steps)."""
        for event in measuring:
            yield event
            if isinstance(event, Step | Eval):
                self.check()
        self.check()

    def memory_fields(self) -> dict[str, Any]:
        """Result fields with the cap as the device: peak against the cap (memory fill). The
        peak read here is checked as every step's was: one over the cap since the last check
        is an out-of-memory run (RunFailed), never a stored fill above 1."""
        self.check()
        used = self.used_bytes()
        return {
            "peak_memory_bytes": used,
            "memory_total_bytes": self.cap_bytes,
            "memory_fill": used / self.cap_bytes,
            "memory_source": "memory limit (resident memory of the workload)",
        }
