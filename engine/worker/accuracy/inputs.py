"""What every framework's Trainer feeds its model: the training batches
(engine.workloads.data.batches,
inside each timed step) and the held-out split, normalised once before training.

The held-out split is prepared at set-up and placed on the device by the Trainer: evaluation
time is reported apart, and its input pipeline is not training's cost.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.measure.accuracy_config import AccuracyConfig
from engine.workloads.data import Dataset
from engine.workloads.data.batches import Batches, normalised

EVAL_BATCH = 500  # held-out images per forward pass (at least the training batch)


@dataclass(frozen=True)
class Inputs:
    train: Batches
    x_test: np.ndarray  # normalised float32, in the framework's layout
    y_test: np.ndarray  # int64 class indices
    eval_batch: int  # held-out images per forward pass

    def eval_slices(self) -> list[slice]:
        """The held-out split in forward passes of eval_batch images (the last may be short)."""
        count = len(self.y_test)
        return [slice(s, min(s + self.eval_batch, count)) for s in range(0, count, self.eval_batch)]


def prepare(data: Dataset, config: AccuracyConfig, channels_first: bool) -> Inputs:
    """The config's batches over the training split (its batch size and seed), and the first
    config.eval_samples held-out images (all of them when None)."""
    mean, std = data.channel_stats()
    train = Batches(
        data.x_train, data.y_train, config.batch_size, config.seed, mean, std, channels_first
    )
    count = min(config.eval_samples or len(data.x_test), len(data.x_test))
    x_test = normalised(data.x_test[:count], mean, std, channels_first)
    y_test = data.y_test[:count].astype(np.int64, copy=False)
    return Inputs(train, x_test, y_test, max(EVAL_BATCH, config.batch_size))
