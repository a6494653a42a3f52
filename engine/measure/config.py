"""RunConfig: what to measure, validated at the edge into ConfigError with an actionable message."""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, ClassVar

from engine.core.errors import ConfigError
from engine.workloads import model_file_source

FRAMEWORKS = ("torch", "tensorflow")
PRECISIONS = ("fp32", "fp16", "bf16")
OPTIMIZERS = ("sgd", "adam")
_DEVICE_RE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")

MAX_BATCH_SIZE = 1 << 20


@dataclass(frozen=True)
class RunConfig:
    """One timed training run. Times in seconds, money in USD, memory in bytes."""

    worker_mode: ClassVar[str] = "run"  # the worker's subcommand for this config

    model: str = "resnet18-cifar"
    framework: str = "torch"
    batch_size: int = 64
    device: str = "auto"
    precision: str = "fp32"
    optimizer: str = "sgd"
    channels_last: bool = False
    compile: bool = False  # torch.compile, or XLA jit_compile in TensorFlow
    warmup_steps: int = 10
    min_steps: int = 10
    max_steps: int = 100
    max_seconds: float = 60.0
    stability_threshold: float = 0.10  # stop when IQR/median of step times falls under this
    epoch_samples: int | None = None  # None: the workload's usual data set
    repeats: int = 1
    threads: int | None = None  # CPU threads; None: the framework's default
    usd_per_hour: float | None = None
    price_source: str = "user"
    price_as_of: str | None = None  # ISO date the price was quoted
    memory_limit_bytes: int | None = None  # worker-enforced cap (tests, max-fit on CPU)
    seed: int = 0
    # Your own model: a Python file (engine/workloads/model_file.py has the contract). When set,
    # `model` is only a label (the file's NAME) and the registry is not consulted.
    model_file: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any], check_files: bool = True) -> RunConfig:
        """Build from a dict (JSON), ignoring unknown keys, then validate. check_files=False
        accepts a model file that is not on this machine (an imported result)."""
        if not isinstance(data, dict):
            raise ConfigError("config", "must be a JSON object")
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known}).validated(check_files)

    def with_changes(self, **changes: Any) -> RunConfig:
        return replace(self, **changes).validated()

    def validated(self, check_files: bool = True) -> RunConfig:
        """Return self if every field is valid, else raise ConfigError naming the field.
        A model file is checked for being there (check_files) but never imported here."""
        from engine.workloads import registry

        if not isinstance(self.model, str) or not self.model:
            raise ConfigError("model", "give a model name (see `epochcost models`)")
        if self.model_file is not None:
            if check_files:
                model_file_source.check_path(self.model_file)
            elif not isinstance(self.model_file, str) or not self.model_file:
                raise ConfigError("model_file", "must be the path of a Python file")
        elif not registry.exists(self.model):
            known = ", ".join(registry.names())
            raise ConfigError("model", f"unknown model {self.model!r}; known: {known}")
        _choice("framework", self.framework, FRAMEWORKS)
        workload = registry.get(self.model) if self.model_file is None else None
        if workload is not None and self.framework not in workload.frameworks:
            supported = ", ".join(workload.frameworks)
            raise ConfigError(
                "framework", f"{self.model} runs on {supported}, not {self.framework}"
            )
        _int_range("batch_size", self.batch_size, 1, MAX_BATCH_SIZE)
        if not isinstance(self.device, str) or not _DEVICE_RE.match(self.device):
            raise ConfigError("device", f"{self.device!r}: use auto, cpu, cuda, cuda:N or mps")
        _choice("precision", self.precision, PRECISIONS)
        _choice("optimizer", self.optimizer, OPTIMIZERS)
        _int_range("warmup_steps", self.warmup_steps, 0, 100_000)
        _int_range("min_steps", self.min_steps, 3, 1_000_000)
        _int_range("max_steps", self.max_steps, self.min_steps, 1_000_000)
        _number_range("max_seconds", self.max_seconds, 0.1, 7 * 86400)
        _number_range("stability_threshold", self.stability_threshold, 0.0, 10.0)
        if self.epoch_samples is not None:
            _int_range("epoch_samples", self.epoch_samples, 1, 10**13)
        _int_range("repeats", self.repeats, 1, 1000)
        if self.threads is not None:
            _int_range("threads", self.threads, 1, 4096)
        if self.usd_per_hour is not None:
            _number_range("usd_per_hour", self.usd_per_hour, 0.0, 100_000.0)
        if self.price_as_of is not None:
            try:
                _dt.date.fromisoformat(str(self.price_as_of)[:10])
            except ValueError:
                raise ConfigError("price_as_of", "use a date as YYYY-MM-DD") from None
        if self.memory_limit_bytes is not None:
            _int_range("memory_limit_bytes", self.memory_limit_bytes, 1 << 20, 1 << 50)
        _int_range("seed", self.seed, 0, 2**31 - 1)
        return self

    @property
    def resolved_epoch_samples(self) -> int:
        """Samples in one epoch: the option, else the workload's data set. For a model file,
        its literal EPOCH_SAMPLES as written (read, not run), else the default."""
        from engine.workloads import registry

        if self.epoch_samples:
            return self.epoch_samples
        if self.model_file is not None:
            declared = model_file_source.declared(self.model_file).epoch_samples
            return declared or model_file_source.DEFAULT_EPOCH_SAMPLES
        return registry.get(self.model).epoch_samples


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(name, f"{value!r} is not one of {', '.join(allowed)}")


def _int_range(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(name, f"{value!r} is not a whole number (allowed {low} to {high})")
    if not low <= value <= high:
        raise ConfigError(name, f"{value} is out of range (allowed {low} to {high})")


def _number_range(name: str, value: Any, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ConfigError(name, f"{value!r} is not a number (allowed {low:g} to {high:g})")
    if not low <= value <= high:
        raise ConfigError(name, f"{value:g} is out of range (allowed {low:g} to {high:g})")
