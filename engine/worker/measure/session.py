"""What a framework provides, and the one place that loads it (in the worker only).

A framework is a plug-in: engine/worker/frameworks/<name>/session.py has
- `open_session(config, workload, run_id)`: a generator that yields `phase` events while it
  imports, builds and places the model, and returns a Session (timed runs: one fixed batch);
- `open_trainer(config, workload, data, run_id)`: the same for a Trainer (cost to accuracy: a
  real data set, evaluation on its held-out split).
The measuring loop (engine/worker/measure/loop.py) and the training-to-accuracy loop
(engine/worker/accuracy/loop.py) are the same for every framework. Nothing outside the worker
imports a framework: load() imports it by name, so the parent side (GUI, CLI, sweeps) never
does.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Protocol

# The module each framework's sessions live in, and the framework it imports. Loaded by load()
# so that its (slow) import is timed apart and happens before the worker's memory cap starts
# counting. torch._dynamo (with torch): the first optimizer imports it, about 900 modules that
# are the framework's, not the model's memory.
_MODULES = {
    "torch": "engine.worker.frameworks.torch.session",
    "tensorflow": "engine.worker.frameworks.tensorflow.session",
}
_FRAMEWORKS = {"torch": "torch._dynamo", "tensorflow": "tensorflow"}


class StepTimer(Protocol):
    """Per-step times without a device synchronisation in every step, as a chain: a step's
    time runs from the end of the step before it to its own end (the loop's time between two
    steps counts, as in the run's time)."""

    def start(self) -> None:
        """Start a chain (before its first step); nothing when one is running."""
        ...

    def stop(self) -> None:
        """After each step."""
        ...

    def completed(self) -> list[float]:
        """Durations (s) of steps the device has finished, oldest first; never blocks."""
        ...

    def flush(self) -> list[float]:
        """After a sync: the durations of every step not yet returned; ends the chain."""
        ...


class ProcessGroup(Protocol):
    """The processes of a data-parallel run, as the measuring loop sees them (a session of one
    has none: its `group` is None). Each call is a collective: every rank makes it, in order."""

    rank: int
    world_size: int
    nnodes: int
    backend: str  # nccl, gloo

    def agree(self, values: list[int]) -> list[int]:
        """The largest of each value over every rank (and a barrier)."""
        ...

    def gather(self, value: float) -> list[float]:
        """Every rank's value, by rank (and a barrier)."""
        ...


class Session(Protocol):
    parameters: int
    device: str  # resolved: cpu, cuda:N, mps
    compiles: bool  # the first step traces or compiles (kept out of the window)
    timer: StepTimer
    # A data-parallel run's processes; None (or absent, as in TensorFlow's sessions) alone.
    group: ProcessGroup | None
    # With an input pipeline (--data, a model file's make_dataset): the host seconds each step
    # waited for its batch and its copy to the device, appended by step() (the measuring loop
    # clears it per window); what the result says of the data (kind, source, samples, loader);
    # an epoch of it. All None with synthetic batches.
    input_waits: list[float] | None
    data_record: dict[str, Any] | None
    data_samples: int | None

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


def load(framework: str) -> ModuleType:
    """Import a framework's session module and the framework itself (in the worker only)."""
    module = importlib.import_module(_MODULES[framework])
    importlib.import_module(_FRAMEWORKS[framework])
    return module
