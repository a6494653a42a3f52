"""AccuracyConfig: one training-to-accuracy run (one batch size, one repeat) in one worker."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, ClassVar

from engine.core.errors import ConfigError
from engine.measure.config import RunConfig, _int_range, _number_range
from engine.workloads import registry
from engine.workloads.data import DataInfo, describe
from engine.workloads.registry import Workload

# The timed runs' optimizers: SGD with momentum 0.9 and weight decay 5e-4, or Adam.
DEFAULT_LEARNING_RATE = {"sgd": 0.01, "adam": 1e-3}


@dataclass(frozen=True)
class AccuracyConfig:
    """Times in seconds, accuracies and the band as fractions (0.9 is 90%), money in USD."""

    worker_mode: ClassVar[str] = "accuracy"  # the worker's subcommand for this config

    model: str = "resnet18-cifar"
    framework: str = "torch"
    dataset: str = "patterns10"  # a built-in data set, or a folder of CIFAR-10 binary files
    batch_size: int = 64
    device: str = "auto"
    precision: str = "fp32"
    optimizer: str = "sgd"
    learning_rate: float | None = None  # None: 0.01 for SGD (momentum 0.9), 0.001 for Adam
    channels_last: bool = False
    compile: bool = False
    eval_every: int = 50  # training iterations between two evaluations
    eval_samples: int | None = None  # held-out images per evaluation; None: the whole split
    target_accuracy: float | None = None  # None: train until the accuracy settles
    band: float = 0.005  # settled: later accuracies stay within +-band of the point's
    patience: int = 5  # ... for this many evaluations after it
    max_iterations: int = 20_000
    max_seconds: float = 3600.0  # cap on the run's training and evaluation time
    include_eval_time: bool = False  # count evaluation time in the time (and cost) to accuracy
    repeat: int = 0  # which repeat of a study this is (0-based)
    seed: int = 0  # model initialisation and shuffling; a study gives each repeat its own
    threads: int | None = None
    memory_limit_bytes: int | None = None  # worker-enforced cap on a CPU (engine/measure/memcap.py)
    usd_per_hour: float | None = None
    price_source: str = "user"
    price_as_of: str | None = None

    @property
    def model_file(self) -> str | None:
        """Always None: a cost-to-accuracy run trains a registry model (the launcher reads this,
        as it does RunConfig's field, to watch a model file's build)."""
        return None

    @property
    def resolved_learning_rate(self) -> float:
        """The learning rate every framework uses: the given one, else the optimizer's default."""
        return self.learning_rate or DEFAULT_LEARNING_RATE[self.optimizer]

    @property
    def until_stable(self) -> bool:
        return self.target_accuracy is None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AccuracyConfig:
        """Build from a dict (JSON), ignoring unknown keys, then validate."""
        if not isinstance(data, dict):
            raise ConfigError("config", "must be a JSON object")
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known}).validated()

    def with_changes(self, **changes: Any) -> AccuracyConfig:
        return replace(self, **changes).validated()

    def run_config(self) -> RunConfig:
        """The fields a timed run shares, as a RunConfig (validated by its own rules)."""
        shared = {f.name for f in fields(RunConfig)} & {f.name for f in fields(self)}
        return RunConfig(**{k: getattr(self, k) for k in shared})

    def validated(self) -> AccuracyConfig:
        """Return self if every field is valid, else raise ConfigError naming the field."""
        self.run_config().validated()
        if self.learning_rate is not None:
            _number_range("learning_rate", self.learning_rate, 1e-8, 10.0)
        _int_range("eval_every", self.eval_every, 1, 10_000_000)
        if self.eval_samples is not None:
            _int_range("eval_samples", self.eval_samples, 1, 10**9)
        if self.target_accuracy is not None:
            _fraction("target_accuracy", self.target_accuracy)
        _number_range("band", self.band, 0.0, 1.0)
        _int_range("patience", self.patience, 1, 100_000)
        _int_range("max_iterations", self.max_iterations, 1, 10**9)
        _number_range("max_seconds", self.max_seconds, 1.0, 7 * 86400)
        _int_range("repeat", self.repeat, 0, 1000)
        info = describe(self.dataset)
        workload = registry.get(self.model)
        _check_fit(workload, info, self.batch_size)
        return self


def _fraction(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(name, f"{value!r} is not a number; give a fraction (0.9 for 90%)")
    if not 0 < value <= 1:
        raise ConfigError(name, f"{value:g}: give a fraction above 0 and at most 1 (0.9 for 90%)")


def _fits(workload: Workload, info: DataInfo) -> bool:
    return (
        workload.task == "image-classification"
        and tuple(workload.input_shape) == info.input_shape
        and workload.num_classes == info.classes
    )


def _check_fit(workload: Workload, info: DataInfo, batch_size: int) -> None:
    """The model must take the data set's images and classes, and a batch must fit the split."""
    if not _fits(workload, info):
        shape = "x".join(map(str, info.input_shape))
        usable = ", ".join(w.name for w in registry.WORKLOADS if _fits(w, info))
        raise ConfigError(
            "model",
            f"{workload.name} does not take {shape} images of {info.classes} classes "
            f"({info.name}); use one that does: {usable}",
        )
    if batch_size > info.train_samples:
        raise ConfigError(
            "batch_size",
            f"{batch_size} is larger than the {info.train_samples:,} training images of "
            f"{info.name}",
        )
