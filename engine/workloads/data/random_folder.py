"""`epochcost data make-imagefolder`: a folder of random images in class folders, so that an
image-folder run can be tried without downloading a data set. Uses Pillow (torchvision's
dependency), imported only when called."""

from __future__ import annotations

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
    try:
        for c in range(classes):
            (root / f"class_{c:03d}").mkdir(parents=True, exist_ok=True)
        for i in range(images):
            # Smooth noise (a coarse grid scaled up) compresses as photos do, unlike pure noise.
            coarse = rng.integers(0, 256, (max(2, size // 8), max(2, size // 8), 3), np.uint8)
            image = Image.fromarray(coarse).resize((size, size), Image.Resampling.BILINEAR)
            image.save(root / f"class_{i % classes:03d}" / f"{i:07d}{suffix}")
    except OSError as exc:
        raise ConfigError("path", f"cannot write into {root}: {exc.strerror or exc}") from None
    return root.resolve()


def _check(images: int, size: int, classes: int, image_format: str) -> None:
    from engine.core.checks import choice, int_range

    int_range("images", images, 1, MAX_IMAGES)
    int_range("size", size, 8, MAX_SIZE)
    int_range("classes", classes, 1, MAX_CLASSES)
    if classes > images:
        raise ConfigError("classes", f"{classes} classes need at least {classes} images")
    choice("format", image_format, FORMATS)
