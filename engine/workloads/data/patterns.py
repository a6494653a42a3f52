"""patterns10: a built-in image data set, generated from a fixed seed, that needs no download.

Ten classes; each class is a colour pattern (a sum of three sine gratings with their own
direction, frequency and colour). An image is its class's pattern, shifted by up to 8 pixels,
blended with another class's pattern (up to 55%), plus Gaussian noise (sigma 90 of 255), so
that accuracy rises over a few hundred iterations and levels off below 100%, like a real
learning curve. The same seed gives the same images on every run of the same NumPy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads when data is made, not when the app starts
    import numpy as np


NAME = "patterns10"
DESCRIPTION = (
    "10 classes of shifted, blended, noisy colour patterns, 32x32x3, generated offline "
    "(10,000 train, 2,000 test)"
)
SIZE = 32
CLASSES = 10
TRAIN_SAMPLES = 10_000
TEST_SAMPLES = 2_000
SEED = 20_240_601
NOISE = 90.0  # standard deviation of the pixel noise, in 0..255 units
CONTRAST = 50.0  # standard deviation of a pattern, in 0..255 units
MAX_SHIFT = 8  # pixels, both axes, circular
MAX_BLEND = 0.55  # weight of the other class's pattern


def _patterns(rng: np.random.Generator) -> np.ndarray:
    """(CLASSES, SIZE, SIZE, 3) float32 patterns of unit standard deviation."""
    import numpy as np

    yy, xx = np.mgrid[0:SIZE, 0:SIZE] / SIZE
    out = np.zeros((CLASSES, SIZE, SIZE, 3))
    for c in range(CLASSES):
        for _ in range(3):
            fx, fy = rng.uniform(-3, 3, 2)
            phase = rng.uniform(0, 2 * np.pi)
            colour = rng.normal(0, 1, 3)
            out[c] += np.sin(2 * np.pi * (fx * xx + fy * yy) + phase)[..., None] * colour
        out[c] /= out[c].std()
    return out.astype(np.float32)


def generate(
    seed: int = SEED, train: int = TRAIN_SAMPLES, test: int = TEST_SAMPLES
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x_train, y_train, x_test, y_test: uint8 images (N, 32, 32, 3), int64 labels."""
    import numpy as np

    rng = np.random.default_rng(seed)
    patterns = _patterns(rng)
    n = train + test
    labels = rng.integers(0, CLASSES, n)
    other = (labels + rng.integers(1, CLASSES, n)) % CLASSES  # never the image's own class
    blend = rng.uniform(0, MAX_BLEND, n)
    shift_y, shift_x = rng.integers(0, 2 * MAX_SHIFT + 1, (2, n)) - MAX_SHIFT
    pixels = rng.standard_normal((n, SIZE, SIZE, 3), dtype=np.float32)
    pixels *= NOISE  # in place: 12,000 x 3,072 floats, and every temporary costs a pass
    # A circular shift is a window into the pattern tiled 2 x 2.
    tiled = np.tile(patterns, (1, 2, 2, 1))
    rows, cols = shift_y % SIZE, shift_x % SIZE
    for i in range(n):
        window = np.s_[rows[i] : rows[i] + SIZE, cols[i] : cols[i] + SIZE]
        own = tiled[labels[i]][window] * np.float32((1 - blend[i]) * CONTRAST)
        own += tiled[other[i]][window] * np.float32(blend[i] * CONTRAST)
        pixels[i] += own
    pixels += 128.5  # mid-grey, and +0.5 so that the cast below rounds
    np.clip(pixels, 0, 255, out=pixels)
    images = pixels.astype(np.uint8)
    return images[:train], labels[:train], images[train:], labels[train:]
