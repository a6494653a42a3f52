"""The input pipeline of a cost-to-accuracy run, in numpy, shared by every framework.

Per step it shuffles (a new seeded permutation each epoch), gathers one batch of uint8 images,
converts them to float32 and normalises them per channel. The framework backend then moves
the batch to its device. All of that happens inside the timed step: a data pipeline is part of
what training costs. Only the one-off layout change (channels first for PyTorch) is done at
set-up. The last partial batch of an epoch is dropped so that shapes stay fixed.
"""

from __future__ import annotations

import numpy as np


class Batches:
    """Endless shuffled, normalised batches: next() -> (images float32, labels int64)."""

    def __init__(
        self,
        images: np.ndarray,
        labels: np.ndarray,
        batch_size: int,
        seed: int,
        mean: np.ndarray,
        std: np.ndarray,
        channels_first: bool = False,
    ) -> None:
        if not 1 <= batch_size <= len(images):
            raise ValueError(f"batch size {batch_size} does not fit {len(images)} images")
        shape = (1, -1, 1, 1) if channels_first else (1, 1, 1, -1)
        self._images = (
            np.ascontiguousarray(images.transpose(0, 3, 1, 2)) if channels_first else images
        )
        self._labels = labels.astype(np.int64, copy=False)
        self._batch = batch_size
        self._rng = np.random.default_rng(seed)
        # (x - mean) / std as one multiply and one add per pixel.
        self._scale = (1.0 / std).astype(np.float32).reshape(shape)
        self._offset = (-mean / std).astype(np.float32).reshape(shape)
        self._order = self._rng.permutation(len(images))
        self._pos = 0
        self.epochs_started = 1

    @property
    def steps_per_epoch(self) -> int:
        return len(self._images) // self._batch

    def next(self) -> tuple[np.ndarray, np.ndarray]:
        if self._pos + self._batch > len(self._order):
            self._order = self._rng.permutation(len(self._order))
            self._pos = 0
            self.epochs_started += 1
        index = self._order[self._pos : self._pos + self._batch]
        self._pos += self._batch
        x = self._images[index].astype(np.float32)
        x *= self._scale
        x += self._offset
        return x, self._labels[index]


def normalised(
    images: np.ndarray, mean: np.ndarray, std: np.ndarray, channels_first: bool = False
) -> np.ndarray:
    """A whole split normalised at once (the held-out set, prepared before training)."""
    shape = (1, -1, 1, 1) if channels_first else (1, 1, 1, -1)
    x = images.transpose(0, 3, 1, 2) if channels_first else images
    out = np.ascontiguousarray(x, dtype=np.float32)
    out -= mean.reshape(shape)
    out /= std.reshape(shape)
    return out
