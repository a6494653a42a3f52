"""Starting a framework's runtime under the worker's memory cap (RLIMIT_AS, set by the runner
after the framework's import and before the model is built).

A runtime maps much address space when it starts: TensorFlow's eager context maps about
360 MiB on a 2-CPU machine (a thread pool, each thread's stack and glibc malloc arena), more with
more CPUs. Under a cap of a few hundred MiB that start fails, and TensorFlow crashes (SIGSEGV,
SIGABRT) instead of reporting out of memory. The cap is meant for the model, not for the
framework's own set-up, so the runtime is started with the cap lifted and the cap then put back,
raised by what the start mapped.
"""

from __future__ import annotations

import contextlib
import os
import resource
from collections.abc import Iterator

import psutil


@contextlib.contextmanager
def outside_cap() -> Iterator[None]:
    """Run the block without the soft RLIMIT_AS, then restore the cap plus the address space
    (bytes) the block mapped. Does nothing when there is no cap."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        yield
        return
    process = psutil.Process(os.getpid())
    before = process.memory_info().vms
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))  # a process may raise its soft limit
    try:
        yield
    finally:
        grown = max(0, process.memory_info().vms - before)
        limit = soft + grown if hard == resource.RLIM_INFINITY else min(soft + grown, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def lift_cap() -> None:
    """Remove the soft RLIMIT_AS for good (a backend that holds its framework to the cap in a
    way the framework reports as out of memory)."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
