"""Small image folders and data-loading model files for the input-pipeline tests."""

from __future__ import annotations

from pathlib import Path

from engine.workloads.data import random_folder

# A data set that sleeps in every item: a run on it waits for data, whatever the machine.
SLOW_TORCH = """\
import time

import torch
from torch import nn

INPUT_SHAPE = (8,)
TARGET = ("classes", 3)


class Slow(torch.utils.data.Dataset):
    def __len__(self):
        return 640

    def __getitem__(self, i):
        time.sleep(0.002)
        return torch.zeros(8), i % 3


def make_dataset(hints):
    return Slow()


def build_model(batch_size, hints):
    return nn.Linear(8, 3)
"""

SLOW_TF = """\
import time

import keras
import numpy as np
import tensorflow as tf

INPUT_SHAPE = (8,)
TARGET = ("classes", 3)


def _slow(x):
    time.sleep(0.002)
    return x


def make_dataset(hints):
    data = tf.data.Dataset.from_tensor_slices(
        (np.zeros((320, 8), np.float32), np.arange(320) % 3)
    )
    slow = data.map(lambda x, y: (tf.numpy_function(_slow, [x], tf.float32), y))
    return slow.map(lambda x, y: (tf.ensure_shape(x, (8,)), y))


def build_model(batch_size, hints):
    return keras.Sequential([keras.Input((8,)), keras.layers.Dense(3)])
"""


def image_folder(root: Path, images: int = 48, classes: int = 3, size: int = 40) -> Path:
    return random_folder.make(root, images, size, classes, "png" if size % 2 else "jpeg")


def corrupt_one(folder: Path) -> Path:
    """Cut one image short after its header: it passes the parent's check, and fails to decode
    in the worker."""
    victim = sorted(folder.glob("*/*.jpg"))[5]
    victim.write_bytes(victim.read_bytes()[:40])
    return victim
