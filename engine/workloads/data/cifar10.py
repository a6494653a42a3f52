"""CIFAR-10, binary version: data_batch_1.bin .. data_batch_5.bin and test_batch.bin.

Each file is a run of 3073-byte records: one label byte (0..9), then 3072 pixel bytes, the red
plane, then green, then blue, each 32x32 in row order. Only this format is read; the Python
version of the data set is a pickle, and a pickle from elsewhere can run code when loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.core import reading
from engine.core.errors import ConfigError

if TYPE_CHECKING:  # numpy loads when data is made, not when the app starts
    import numpy as np

NAME = "cifar10"
SHAPE = (32, 32, 3)
CLASSES = 10
PIXELS = 32 * 32 * 3
RECORD_BYTES = 1 + PIXELS
RECORDS_PER_FILE = 10_000  # in the official files; smaller files are read as well
TRAIN_FILES = tuple(f"data_batch_{i}.bin" for i in range(1, 6))
TEST_FILE = "test_batch.bin"
SUBFOLDER = "cifar-10-batches-bin"  # what the official archive unpacks to
CLASS_NAMES = (
    "airplane",
    "automobile",
    "bird",
    "cat",
    "deer",
    "dog",
    "frog",
    "horse",
    "ship",
    "truck",
)


@dataclass(frozen=True)
class CifarFiles:
    folder: Path
    train: tuple[Path, ...]
    test: Path


def find_files(folder: Path) -> CifarFiles:
    """The six batch files in `folder` or in its cifar-10-batches-bin subfolder; ConfigError
    naming what is missing otherwise."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise ConfigError("dataset", f"{folder} {reading.why_absent(folder)}")
    if not (folder / TRAIN_FILES[0]).exists() and (folder / SUBFOLDER).is_dir():
        folder = folder / SUBFOLDER
    wanted = (*TRAIN_FILES, TEST_FILE)
    missing = [name for name in wanted if not (folder / name).is_file()]
    if missing:
        raise ConfigError("dataset", _missing_message(folder, missing, len(missing) == len(wanted)))
    return CifarFiles(folder, tuple(folder / n for n in TRAIN_FILES), folder / TEST_FILE)


def _missing_message(folder: Path, missing: list[str], all_missing: bool) -> str:
    if all_missing and (folder / "data_batch_1").exists():
        return (
            f"{folder} holds the Python (pickle) version of CIFAR-10, which epochcost does not "
            "read; use the binary version (cifar-10-binary.tar.gz): "
            "`epochcost data download cifar10 --to FOLDER`"
        )
    what = "no CIFAR-10 binary files" if all_missing else f"no {', '.join(missing)}"
    return (
        f"{folder} has {what}: expected {', '.join(TRAIN_FILES)} and {TEST_FILE} "
        f"(the unpacked cifar-10-binary.tar.gz, or its {SUBFOLDER} folder); "
        "`epochcost data download cifar10 --to FOLDER` fetches them"
    )


def record_count(path: Path) -> int:
    """Records in one batch file, from its size; ConfigError for a size no batch can have."""
    try:
        size = Path(path).stat().st_size
    except OSError as exc:
        raise ConfigError("dataset", f"{path} cannot be read: {exc.strerror}") from None
    if size == 0 or size % RECORD_BYTES:
        whole, rest = divmod(size, RECORD_BYTES)
        raise ConfigError(
            "dataset",
            f"{path} is {size:,} bytes, not a whole number of {RECORD_BYTES}-byte records "
            f"(1 label byte + {PIXELS} pixel bytes): {whole:,} records and {rest:,} bytes over. "
            f"The file is truncated or not a CIFAR-10 binary batch; an official batch is "
            f"{RECORDS_PER_FILE * RECORD_BYTES:,} bytes ({RECORDS_PER_FILE:,} records). "
            "Download it again.",
        )
    return size // RECORD_BYTES


def read_batch(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Images (N, 32, 32, 3) uint8 and labels (N,) int64 from one binary batch file."""
    import numpy as np

    count = record_count(path)
    records = np.fromfile(path, dtype=np.uint8).reshape(count, RECORD_BYTES)
    labels = records[:, 0].astype(np.int64)
    bad = np.flatnonzero(labels >= CLASSES)
    if bad.size:
        raise ConfigError(
            "dataset",
            f"{path}: record {bad[0]} has label byte {labels[bad[0]]}, not a class 0..9; "
            "this is not a CIFAR-10 binary batch (CIFAR-100 records are 3074 bytes)",
        )
    # Planes (R, G, B) of 32x32 -> channels last, the layout every pipeline here starts from.
    images = records[:, 1:].reshape(count, 3, 32, 32).transpose(0, 2, 3, 1)
    return np.ascontiguousarray(images), labels


def load(folder: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x_train, y_train, x_test, y_test from a folder of binary batches."""
    import numpy as np

    files = find_files(folder)
    parts = [read_batch(p) for p in files.train]
    x_test, y_test = read_batch(files.test)
    x_train = np.concatenate([x for x, _ in parts])
    y_train = np.concatenate([y for _, y in parts])
    return x_train, y_train, x_test, y_test


def write_batch(path: Path, images: np.ndarray, labels: np.ndarray) -> None:
    """Write images (N, 32, 32, 3) uint8 and labels in the binary format (tests, exports)."""
    import numpy as np

    planes = np.asarray(images, dtype=np.uint8).transpose(0, 3, 1, 2).reshape(len(images), -1)
    records = np.concatenate([np.asarray(labels, dtype=np.uint8)[:, None], planes], axis=1)
    Path(path).write_bytes(records.tobytes())
