"""`epochcost data make-imagefolder`: a folder of random images in class folders, so that an
image-folder run can be tried without downloading a data set. Uses Pillow (torchvision's
dependency), imported only when called.

Cut short (Ctrl-C, a signal the command raises as one, a full disk), it removes what it wrote:
the class folders it made (the folder was new or empty) and the folder itself when it made it;
Stopped says how many images it had written and what, if anything, is left.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.core.errors import ConfigError

FORMATS = ("jpeg", "png")
MAX_IMAGES = 10_000_000
MAX_SIZE = 4096
MAX_CLASSES = 100_000


def make(
    folder: str | Path,
    images: int,
    size: int,
    classes: int,
    image_format: str = "jpeg",
    seed: int = 0,
) -> Path:
    """Write `images` random size x size RGB images, spread evenly over `classes` folders
    (class_000, ...), as JPEG or PNG. Returns the folder. ConfigError for a bad argument or a
    folder that cannot be written (or already holds images)."""
    _check(images, size, classes, image_format)
    root = Path(folder).expanduser()
    if root.exists() and any(root.iterdir()):
        raise ConfigError("path", f"{root} is not empty; give a new or empty folder")
    try:
        from PIL import Image
    except ImportError:
        raise ConfigError(
            "path", "writing images needs Pillow (pip install pillow; torchvision brings it)"
        ) from None
    rng = np.random.default_rng(seed)
    suffix = ".jpg" if image_format == "jpeg" else ".png"
    made_root = not root.exists()
    written = 0
    try:
        for c in range(classes):
            (root / f"class_{c:03d}").mkdir(parents=True, exist_ok=True)
        for i in range(images):
            # Smooth noise (a coarse grid scaled up) compresses as photos do, unlike pure noise.
            coarse = rng.integers(0, 256, (max(2, size // 8), max(2, size // 8), 3), np.uint8)
            image = Image.fromarray(coarse).resize((size, size), Image.Resampling.BILINEAR)
            image.save(root / f"class_{i % classes:03d}" / f"{i:07d}{suffix}")
            written += 1
    except KeyboardInterrupt as exc:
        raise Stopped(written, *_undo(root, classes, made_root)) from exc
    except OSError as exc:
        left = Stopped(written, *_undo(root, classes, made_root))
        why = exc.strerror or exc
        raise ConfigError("path", f"cannot write into {root}: {why}; {left.what()}") from None
    except BaseException:
        _undo(root, classes, made_root)
        raise
    return root.resolve()


@dataclass
class Stopped(Exception):
    """Writing was cut short: the images written, and the files (and bytes) left after the
    clean-up, under `root` (none when it all went)."""

    written: int
    root: Path
    files_left: int = 0
    bytes_left: int = 0

    def what(self) -> str:
        """What was done about it, in words."""
        if not self.files_left:
            return f"the {self.written:,} images it wrote were removed"
        mb = self.bytes_left / 1e6
        return (
            f"{self.files_left:,} files ({mb:,.1f} MB) it wrote are left in {self.root}: "
            "remove that folder"
        )


def _undo(root: Path, classes: int, made_root: bool) -> tuple[Path, int, int]:
    """Remove the class folders make() made (the folder was new or empty), and the folder when
    it made it; the folder, and the files and bytes still there after."""
    for c in range(classes):
        shutil.rmtree(root / f"class_{c:03d}", ignore_errors=True)
    if made_root:
        with contextlib.suppress(OSError):  # not empty: a file not ours is there
            root.rmdir()
    left = [f for f in root.rglob("*") if f.is_file()] if root.is_dir() else []
    return root, len(left), sum(f.stat().st_size for f in left)


def _check(images: int, size: int, classes: int, image_format: str) -> None:
    from engine.core.checks import choice, int_range

    int_range("images", images, 1, MAX_IMAGES)
    int_range("size", size, 8, MAX_SIZE)
    int_range("classes", classes, 1, MAX_CLASSES)
    if classes > images:
        raise ConfigError("classes", f"{classes} classes need at least {classes} images")
    choice("format", image_format, FORMATS)
