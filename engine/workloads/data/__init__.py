"""Training data for cost-to-accuracy runs, as numpy arrays: no framework is imported here.

A data set is named by a spec: the name of a built-in set (works offline, see BUILTIN) or the
path of a folder holding the CIFAR-10 binary files. `describe(spec)` checks a spec cheaply (no
image is read) so that the CLI and GUI can validate it at the edge; `load(spec)` reads it.
Images are uint8, channels last (N, H, W, C); labels are int64 class indices.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.core.errors import ConfigError
from engine.workloads.data import cifar10, patterns

if TYPE_CHECKING:  # numpy loads when data is made, not when the app starts
    import numpy as np


@dataclass(frozen=True)
class DataInfo:
    """What a data set holds, known without reading its images."""

    name: str
    source: str  # "builtin" or the folder it is read from
    input_shape: tuple[int, int, int]  # H, W, C
    classes: int
    train_samples: int
    test_samples: int
    description: str


@dataclass(frozen=True)
class Dataset:
    """Train and held-out splits in memory. Images uint8 (N, H, W, C), labels int64 (N,)."""

    info: DataInfo
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray

    def channel_stats(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-channel mean and standard deviation of the training images, in 0..255 units,
        estimated from an evenly spaced sample of up to 2,000 images (plenty for two numbers
        per channel, and quick on 50,000)."""
        import numpy as np

        step = max(1, len(self.x_train) // 2_000)
        pixels = self.x_train[::step].reshape(-1, self.info.input_shape[2]).astype(np.float32)
        mean = pixels.mean(axis=0, dtype=np.float64)
        std = pixels.std(axis=0, dtype=np.float64)
        return mean.astype(np.float32), np.maximum(std, 1e-3).astype(np.float32)


@dataclass(frozen=True)
class _Builtin:
    info: DataInfo
    make: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]


BUILTIN: dict[str, _Builtin] = {
    patterns.NAME: _Builtin(
        DataInfo(
            name=patterns.NAME,
            source="builtin",
            input_shape=(patterns.SIZE, patterns.SIZE, 3),
            classes=patterns.CLASSES,
            train_samples=patterns.TRAIN_SAMPLES,
            test_samples=patterns.TEST_SAMPLES,
            description=patterns.DESCRIPTION,
        ),
        patterns.generate,
    ),
}


def builtin_names() -> list[str]:
    return list(BUILTIN)


def describe(spec: str) -> DataInfo:
    """The DataInfo for a built-in name or a CIFAR-10 binary folder; ConfigError saying what to
    fix when it is neither."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError("dataset", f"give a built-in data set ({_builtins()}) or a folder")
    if spec in BUILTIN:
        return BUILTIN[spec].info
    folder = cifar10_folder(spec)
    if not folder.exists():
        raise ConfigError(
            "dataset",
            f"{spec!r} is neither a built-in data set ({_builtins()}) nor an existing folder "
            "(cifar10[:PATH], as a run's --data)",
        )
    files = cifar10.find_files(folder)
    return DataInfo(
        name=cifar10.NAME,
        source=str(files.folder),
        input_shape=cifar10.SHAPE,
        classes=cifar10.CLASSES,
        train_samples=sum(cifar10.record_count(f) for f in files.train),
        test_samples=cifar10.record_count(files.test),
        description="CIFAR-10 (binary version), 32x32 colour images of 10 classes",
    )


def cifar10_folder(spec: str) -> Path:
    """The CIFAR-10 folder `spec` names in a timed run's data language (cifar10:PATH, or
    cifar10 for the data folder's; engine/workloads/data/source.py), or as a bare folder."""
    from engine.workloads.data import source

    kind, sep, path = spec.strip().partition(":")
    if kind.lower() == cifar10.NAME and (sep or not Path(spec).exists()):
        return Path(path).expanduser() if path.strip() else source.default_cifar10_folder()
    return Path(spec).expanduser()


def load(spec: str) -> Dataset:
    """Read (or generate) the data set named by `spec`."""
    info = describe(spec)
    if spec in BUILTIN:
        x_train, y_train, x_test, y_test = BUILTIN[spec].make()
    else:
        x_train, y_train, x_test, y_test = cifar10.load(Path(info.source))  # found by describe
    return Dataset(info, x_train, y_train, x_test, y_test)


def _builtins() -> str:
    return ", ".join(BUILTIN)
