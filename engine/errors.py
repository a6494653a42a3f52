"""The one error type for bad user input, and the failure kinds a run can end with."""

from __future__ import annotations

# Failure kinds carried by a `failed` event (DESIGN.md, Events).
FAILURE_KINDS = ("oom", "config", "framework", "crashed", "cancelled")


class ConfigError(ValueError):
    """A user mistake: names the field and says what to fix. Never shown as a traceback."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
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
)


def is_out_of_memory(exc: BaseException) -> bool:
    """True when an exception from a framework means the device (or host) ran out of memory."""
    if isinstance(exc, MemoryError):
        return True
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(marker in text for marker in _OOM_MARKERS)
