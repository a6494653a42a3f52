"""What a framework provides for cost-to-accuracy runs: a Trainer over a real data set.

A framework's module engine/frameworks/<framework>_accuracy.py has
`open_trainer(config, workload, data, run_id)`: a generator that yields `phase` events while it
builds the model and its input pipeline, and returns a Trainer. The loop that trains,
evaluates and decides when to stop (engine/accuracy/loop.py) is the same for every framework.
"""

from __future__ import annotations

import importlib
from collections.abc import Generator
from types import ModuleType
from typing import Any, Protocol

from engine.accuracy.config import AccuracyConfig
from engine.core.errors import RunFailed
from engine.core.events import Event
from engine.workloads.data import Dataset
from engine.workloads.registry import Workload

_MODULES = {
    "torch": "engine.frameworks.torch.trainer",
    "tensorflow": "engine.frameworks.tensorflow.trainer",
}
_FRAMEWORKS = {"torch": "torch", "tensorflow": "tensorflow"}


class Trainer(Protocol):
    parameters: int
    device: str  # resolved: cpu, cuda:N, mps

    def step(self) -> None:
        """One training iteration: the next batch from the data pipeline (shuffle, batch,
        normalise, to the device), forward, backward, optimizer step; queued on the device."""
        ...

    def sync(self) -> None:
        """Wait until the device has finished all queued work."""
        ...

    def evaluate(self) -> tuple[float, float]:
        """(accuracy as a fraction, mean cross-entropy) on the held-out split, in eval mode
        and without gradients; returns when the device is done. Training resumes after it."""
        ...

    def loss(self) -> float | None:
        """The last training step's loss (call after sync)."""
        ...

    def device_memory(self) -> dict[str, Any] | None:
        """{peak_bytes, total_bytes, source} of the framework's device memory; None on CPU."""
        ...

    def warnings(self) -> list[str]:
        """Anything the result should say about how this run trained (e.g. under a cap)."""
        ...

    def environment(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


class OpenTrainer(Protocol):
    def __call__(
        self, config: AccuracyConfig, workload: Workload, data: Dataset, run_id: str
    ) -> Generator[Event, None, Trainer]: ...


def load(framework: str) -> ModuleType:
    """Import a framework's trainer module and the framework itself (in the worker only)."""
    try:
        module = importlib.import_module(_MODULES[framework])
    except ModuleNotFoundError as exc:
        if exc.name != _MODULES[framework]:
            raise
        raise RunFailed(
            "config", f"framework: cost to accuracy cannot train with {framework} yet; use torch"
        ) from None
    importlib.import_module(_FRAMEWORKS[framework])
    return module
