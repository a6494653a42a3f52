"""An image folder as a timed run's data: class folders of JPEG, PNG or BMP images.

    PATH/cat/001.jpg, PATH/cat/002.png, PATH/dog/001.jpg, ...

`scan(path)` checks a folder without a framework (the parent validates it before a worker
starts; the worker reads the same list): it exists, holds class folders, the class folders hold
images, and each image's first bytes are an image's. Only regular files are read: an image's
name on a FIFO (which would wait for ever), a device, a socket or a link to nothing is refused,
naming it; a link that leads back to a folder above it (a loop) is refused, naming both. A
problem is a ConfigError on the `data` field that names the file or folder. Images are only
opened, never decoded, here: a file that is corrupt past its first bytes is met in the worker,
which names it too.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.core import reading
from engine.core.errors import ConfigError

# The formats both PyTorch (PIL) and TensorFlow (tf.io.decode_image) decode.
EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp")
_MAGIC = {
    b"\xff\xd8\xff": "JPEG",
    b"\x89PNG\r\n\x1a\n": "PNG",
    b"BM": "BMP",
}
# Headers read in full up to this many images; beyond it an evenly spread sample this large
# (a million-image folder is checked in seconds, the worker names any other bad file).
HEADER_CHECKS = 20_000
FIELD = "data"


@dataclass(frozen=True)
class ImageFolder:
    """A checked folder: its classes (sorted folder names, label = index) and its images."""

    root: str
    classes: tuple[str, ...]
    files: tuple[str, ...]  # every image, class by class, each class's files sorted
    labels: tuple[int, ...]  # the class index of each file
    ignored: int  # files in the class folders that are not JPEG, PNG or BMP

    @property
    def images(self) -> int:
        return len(self.files)


def is_image(path: str) -> bool:
    """An image by its name (what torchvision's ImageFolder is told to take)."""
    return path.lower().endswith(EXTENSIONS)


def scan(path: str | Path) -> ImageFolder:
    """Check and list an image folder; ConfigError(data, ...) naming what is wrong."""
    root = Path(path).expanduser()
    if not root.exists():
        why = reading.why_absent(root)
        raise ConfigError(FIELD, f"{root} {why}; give a folder of class folders")
    if not root.is_dir():
        raise ConfigError(FIELD, f"{root} is a file; give a folder of class folders")
    root = root.resolve()
    return _scan(str(root), _stamp(root))


def _stamp(root: Path) -> tuple[int, ...]:
    """The folder's and its class folders' modification times: a cached scan is reused only
    while no image was added or removed."""
    try:
        return (root.stat().st_mtime_ns, *(e.stat().st_mtime_ns for e in os.scandir(root)))
    except OSError as exc:
        raise ConfigError(FIELD, f"{root} cannot be read: {exc.strerror}") from None


@lru_cache(maxsize=8)
def _scan(root: str, _stamp: tuple[int, ...]) -> ImageFolder:
    try:
        classes = sorted(e.name for e in os.scandir(root) if e.is_dir() and e.name[0] != ".")
    except OSError as exc:
        raise ConfigError(FIELD, f"{root} cannot be read: {exc.strerror}") from None
    if not classes:
        raise ConfigError(
            FIELD,
            f"{root} has no class folders: put each class's images in a folder of its own "
            f"({root}/CLASS/IMAGE.jpg); `epochcost data make-imagefolder` writes an example",
        )
    files: list[str] = []
    labels: list[int] = []
    ignored = 0
    for label, name in enumerate(classes):
        found, other = _images_in(os.path.join(root, name))
        files += found
        labels += [label] * len(found)
        ignored += other
    if not files:
        named = ", ".join(classes[:5]) + (", ..." if len(classes) > 5 else "")
        raise ConfigError(
            FIELD,
            f"{root} has class folders ({named}) but no images in them: epochcost reads "
            f"{', '.join(EXTENSIONS)} files",
        )
    _check_headers(files)
    return ImageFolder(root, tuple(classes), tuple(files), tuple(labels), ignored)


def _images_in(folder: str) -> tuple[list[str], int]:
    """The images under one class folder (sub-folders too, as ImageFolder does), sorted; and
    how many other files there are."""
    found: list[str] = []
    other = 0
    # Each folder with the folders above it (device, inode -> path): one met again is a loop.
    pending: list[tuple[str, dict[tuple[int, int], str]]] = [(folder, {})]
    while pending:
        here, above = pending.pop()
        try:
            info = os.stat(here)
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError as exc:
            raise ConfigError(FIELD, f"{here} cannot be read: {exc.strerror}") from None
        key = (info.st_dev, info.st_ino)
        if key in above:
            raise ConfigError(
                FIELD, f"{here} leads back to {above[key]} (a loop of symbolic links): remove it"
            )
        inside = {**above, key: here}
        for entry in entries:
            if entry.is_dir():  # a link to a folder is followed, as ImageFolder does
                pending.append((entry.path, inside))
            elif is_image(entry.name):
                found.append(_regular(entry))
            elif entry.name[0] != ".":
                other += 1
    return sorted(found), other


def _regular(entry: os.DirEntry) -> str:
    """The entry's path when it is a regular file (a link to one too); ConfigError naming what
    it is otherwise: a FIFO would make every reader wait for ever."""
    if entry.is_file():
        return entry.path
    try:
        what = reading.kind(entry.stat().st_mode)
    except OSError as exc:
        what = "a loop of symbolic links" if exc.errno == errno.ELOOP else "a link to nothing"
    raise ConfigError(FIELD, f"{entry.path} is {what}, not an image file: remove it")


def _check_headers(files: list[str]) -> None:
    step = max(1, len(files) // HEADER_CHECKS)
    for path in files[::step]:
        check_header(path)


def check_header(path: str) -> None:
    """ConfigError naming `path` when it cannot be read or does not start as an image does."""
    try:
        head = reading.read_head(path, 8)  # not waiting: a FIFO made since the scan is refused
    except OSError as exc:
        raise ConfigError(FIELD, f"{path} cannot be read: {exc.strerror}") from None
    if not head:
        raise ConfigError(FIELD, f"{path} is empty (0 bytes): remove it or write it again")
    if not any(head.startswith(magic) for magic in _MAGIC):
        raise ConfigError(
            FIELD,
            f"{path} is not a JPEG, PNG or BMP image (its first bytes are {head[:4]!r}): "
            "remove it or convert it",
        )
