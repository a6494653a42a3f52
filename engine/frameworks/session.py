"""Framework backends. Each module imports its framework inside functions, in the worker only.

A backend module has `open_session(config, workload, run_id)`: a generator that yields
`phase` events while it imports, builds and places the model, and returns a Session.
The runner's measuring loop (engine/measure/loop.py) is the same for every backend.
"""

from __future__ import annotations

import importlib
from collections.abc import Generator
from types import ModuleType
from typing import Any, Protocol

from engine.core.events import Event
from engine.measure.config import RunConfig
from engine.workloads.registry import Workload

_MODULES = {
    "torch": "engine.frameworks.torch.session",
    "tensorflow": "engine.frameworks.tensorflow.session",
}
# The framework each backend imports; loaded by load() so that its (slow) import is timed apart
# and happens before the worker's memory cap starts counting. torch._dynamo (with torch): the
# first optimizer imports it, about 900 modules that are the framework's, not the model's memory.
_FRAMEWORKS = {"torch": "torch._dynamo", "tensorflow": "tensorflow"}


class StepTimer(Protocol):
    """Per-step times without a device synchronisation in every step."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def completed(self) -> list[float]:
        """Durations (s) of steps the device has finished, oldest first; never blocks."""
        ...

    def flush(self) -> list[float]:
        """After a sync: the durations of every step not yet returned."""
        ...


class Session(Protocol):
    parameters: int
    device: str  # resolved: cpu, cuda:N, mps
    compiles: bool  # the first step traces or compiles (kept out of the window)
    timer: StepTimer

    def step(self) -> None:
        """One full training step (forward, backward, optimizer), queued on the device."""
        ...

    def flops_per_step(self) -> float | None:
        """FLOPs of one training step (forward + backward), or None when not countable.
        A session may also set `flops_method` (str): how it counted, kept in the result."""
        ...

    def sync(self) -> None:
        """Wait until the device has finished all queued work."""
        ...

    def loss(self) -> float | None:
        """The last step's loss (call after sync)."""
        ...

    def device_memory(self) -> dict[str, Any] | None:
        """Framework view of device memory: {peak_bytes, total_bytes, source}; None on CPU."""
        ...

    def reset_peak_memory(self) -> None: ...

    def environment(self) -> dict[str, Any]: ...

    def window_warnings(self) -> list[str]:
        """Anything that makes the last window suspect (e.g. a re-trace inside it)."""
        ...

    def close(self) -> None: ...


class OpenSession(Protocol):
    def __call__(
        self, config: RunConfig, workload: Workload, run_id: str
    ) -> Generator[Event, None, Session]: ...


def load(framework: str) -> ModuleType:
    """Import a backend module and its framework (in the worker only)."""
    module = importlib.import_module(_MODULES[framework])
    importlib.import_module(_FRAMEWORKS[framework])
    return module
