"""The one error type for bad user input, and the failure kinds a run can end with."""

from __future__ import annotations

import re

# Failure kinds carried by a `failed` event (docs/architecture.md, "Events").
# "preempted": a spot instance the cloud took back before the run measured (engine/cloud/launch.py).
FAILURE_KINDS = ("oom", "config", "framework", "crashed", "cancelled", "preempted")


class ConfigError(ValueError):
    """A user mistake: names the field and says what to fix. Never shown as a traceback."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class StoreError(OSError):
    """The results store (or a file a result is written to) cannot be used: damaged, locked,
    read-only, a folder, a full disk. Says which file and what to do; the CLI exits 3. An
    OSError, so that code catching storage faults catches it."""

    def __init__(self, path: object, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = str(path)
        self.message = message


class RunFailed(Exception):
    """Raised inside a backend when a run cannot go on; becomes a `failed` event."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


_OOM_MARKERS = (
    "out of memory",
    "outofmemoryerror",
    "resourceexhaustederror",
    "resource exhausted",
    "can't allocate memory",
    "cannot allocate memory",
    "std::bad_alloc",
    "failed to allocate",
    # TensorFlow builds a graph's constants when it instantiates the graph; a constant whose
    # buffer cannot be allocated fails as InvalidArgumentError with this text (Tensor::FromProto
    # returns false on a null buffer). Our graphs' protos are TensorFlow's own, so it is memory.
    "cannot parse tensor from proto",
)


def is_out_of_memory(exc: BaseException) -> bool:
    """True when an exception from a framework means the device (or host) ran out of memory."""
    if isinstance(exc, MemoryError):
        return True
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(marker in text for marker in _OOM_MARKERS)


def out_of_memory_line(exc: BaseException) -> str:
    """The line of an out-of-memory error that says what did not fit. TensorFlow's starts
    with "Graph execution error:" and names the tensor further down."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        if "cannot parse tensor from proto" in line.lower():
            return "TensorFlow could not allocate a constant tensor of the graph"
        at = line.find("OOM when allocating")
        if at >= 0:  # TensorFlow: the tensor that did not fit, without its graph's plumbing
            what = line[at:].split(" [Op:")[0].split(" [[")[0]
            return re.sub(r"/job:\S*?/device:", "", what)
        if any(marker in line.lower() for marker in _OOM_MARKERS):
            return line
    return lines[0] if lines else type(exc).__name__
