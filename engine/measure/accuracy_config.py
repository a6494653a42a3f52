"""AccuracyConfig: one training-to-accuracy run (one batch size, one repeat) in one worker."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Self

from engine.core.checks import fraction, int_range, number_range
from engine.core.errors import ConfigError
from engine.measure.config import DEFAULT_LEARNING_RATE, TrainingConfig
from engine.workloads import registry
from engine.workloads.data import DataInfo, describe
from engine.workloads.registry import Workload


@dataclass(frozen=True)
class AccuracyConfig(TrainingConfig):
    """Times in seconds, accuracies and the band as fractions (0.9 is 90%), money in USD."""

    worker_mode: ClassVar[str] = "accuracy"

    dataset: str = "patterns10"  # a built-in data set, or a folder of CIFAR-10 binary files
    learning_rate: float | None = None  # None: 0.01 for SGD (momentum 0.9), 0.001 for Adam
    eval_every: int = 50  # training iterations between two evaluations
    eval_samples: int | None = None  # held-out images per evaluation; None: the whole split
    target_accuracy: float | None = None  # None: train until the accuracy settles
    band: float = 0.005  # settled: later accuracies stay within +-band of the point's
    patience: int = 5  # ... for this many evaluations after it
    max_iterations: int = 20_000
    max_seconds: float = 3600.0  # cap on the run's training and evaluation time
    include_eval_time: bool = False  # count evaluation time in the time (and cost) to accuracy
    repeat: int = 0  # which repeat of a study this is (0-based)

    @property
    def resolved_learning_rate(self) -> float:
        """The learning rate every framework uses: the given one, else the optimizer's default."""
        return self.learning_rate or DEFAULT_LEARNING_RATE[self.optimizer]

    @property
    def until_stable(self) -> bool:
        return self.target_accuracy is None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AccuracyConfig:
        """Build from a dict (JSON), ignoring unknown keys, then validate."""
        return cls._from_known(data).validated()

    def validated(self) -> Self:
        """Return self if every field is valid, else raise ConfigError naming the field.
        The seed is the model initialisation and shuffling; a study gives each repeat its own."""
        self._check_registry_model()
        self._check_shared()
        if self.learning_rate is not None:
            number_range("learning_rate", self.learning_rate, 1e-8, 10.0)
        int_range("eval_every", self.eval_every, 1, 10_000_000)
        if self.eval_samples is not None:
            int_range("eval_samples", self.eval_samples, 1, 10**9)
        if self.target_accuracy is not None:
            fraction("target_accuracy", self.target_accuracy)
        number_range("band", self.band, 0.0, 1.0)
        int_range("patience", self.patience, 1, 100_000)
        int_range("max_iterations", self.max_iterations, 1, 10**9)
        number_range("max_seconds", self.max_seconds, 1.0, 7 * 86400)
        int_range("repeat", self.repeat, 0, 1000)
        info = describe(self.dataset)
        workload = registry.get(self.model)
        _check_fit(workload, info, self.batch_size)
        return self


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
