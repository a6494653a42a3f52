"""TensorFlow input pipelines for timed runs: tf.data reading, decoding and augmenting every
step, as PyTorch's (engine/worker/frameworks/torch/data.py) does with a DataLoader.

- imagefolder:PATH: the files of engine/workloads/data/imagefolder.py in a seeded order,
  decoded, a random resized crop (8-100% of the area, aspect 3/4 to 4/3) to the model's input
  size, a horizontal flip, ImageNet normalisation;
- cifar10[:PATH]: the binary files in memory, a 4-pixel padded random crop and flip;
- a model file's make_dataset(hints): its tf.data.Dataset of unbatched (input, target).

Loader workers are the map's parallel calls on a private thread pool of that size, with
prefetch(AUTOTUNE); 0: one call at a time and no prefetch (the step waits for each batch);
none given: AUTOTUNE. Batches drop the remainder so the traced step never traces again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.core.errors import ConfigError, RunFailed
from engine.measure.config import RunConfig
from engine.worker.workloads import model_file_errors
from engine.worker.workloads.file_workload import FileWorkload, own_dataset, own_dataset_record
from engine.workloads.data import cifar10, imagefolder
from engine.workloads.data import source as data_source
from engine.workloads.registry import Workload

IMAGENET_MEAN, IMAGENET_STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
CIFAR_MEAN, CIFAR_STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


@dataclass
class Feed:
    """Batches from a tf.data iterator, on the run's device; what the result says of them."""

    tf: Any
    iterator: Any
    device: str  # TensorFlow's device name for the step
    on_gpu: bool
    record: dict[str, Any]
    samples: int | None
    batch: int
    files: tuple[str, ...] = ()  # an image folder's files in the order they are read
    user_file: str | None = None
    taken: int = 0  # batches taken so far

    def next(self) -> tuple[Any, Any]:
        """The next batch, copied to the GPU when the run has one."""
        tf = self.tf
        try:
            x, y = next(self.iterator)
        except tf.errors.OpError as exc:
            raise self._failure(exc) from None
        self.taken += 1
        if self.on_gpu:
            with tf.device(self.device):
                # The host-to-device copy, here so that the wait includes it.
                x, y = tf.identity(x), tf.identity(y)
        return x, y

    def _failure(self, exc: Any) -> Exception:
        first = (exc.message or str(exc)).strip().splitlines()[0]
        if self.files:
            bad = _find_bad(self.tf, self.files, self.taken, self.batch)
            where = bad or f"an image in batch {self.taken + 1}"
            return RunFailed("config", f"data: {where} cannot be decoded as an image ({first})")
        if self.user_file is not None:
            return model_file_errors.from_exception(self.user_file, "make_dataset's data", exc)
        return exc


def _find_bad(tf: Any, files: tuple[str, ...], taken: int, batch: int) -> str | None:
    """The file of the failing batch (elements taken*batch onward, in the known order) that
    TensorFlow's decoder refuses: its error does not name it."""
    n = len(files)
    for i in range(taken * batch, (taken + 1) * batch):
        path = files[i % n]
        try:
            tf.io.decode_image(tf.io.read_file(path), channels=3, expand_animations=False)
        except tf.errors.OpError:
            return path
    return None


def open_feed(
    tf: Any, config: RunConfig, workload: Workload, device: str, on_gpu: bool
) -> Feed | None:
    """The run's input pipeline, or None for synthetic batches."""
    spec = config.data_spec
    files: tuple[str, ...] = ()
    user_file = None
    if spec.kind == "imagefolder":
        labels, record, files = _image_folder(tf, workload, spec, config.seed)
        dataset = tf.data.Dataset.from_tensor_slices((list(files), labels))
    elif spec.kind == "cifar10":
        dataset, record = _cifar10(tf, workload, spec, config.seed)
    else:
        made = _from_model_file(tf, config, workload) if spec.kind == "auto" else None
        if made is None:
            return None
        dataset, record = made
        user_file = workload.path if isinstance(workload, FileWorkload) else None
    count = len(files) if files else int(dataset.cardinality())
    dataset = dataset.repeat()
    if spec.kind == "imagefolder":
        dataset = dataset.map(_folder_augment(tf, workload), **_parallel(tf, config))
    elif spec.kind == "cifar10":
        dataset = dataset.map(_cifar_augment(tf, workload), **_parallel(tf, config))
    dataset = dataset.batch(config.batch_size, drop_remainder=True)
    if config.loader_workers != 0:
        dataset = dataset.prefetch(tf.data.AUTOTUNE)
    dataset = dataset.with_options(_options(tf, config))
    record |= {
        "samples": count if count > 0 else None,
        "loader_workers": "AUTOTUNE" if config.loader_workers is None else config.loader_workers,
        "pin_memory": False,  # tf.data has no such option; the copy is in the wait
        "persistent_workers": True,
    }
    samples = count if count > 0 else None
    return Feed(
        tf, iter(dataset), device, on_gpu, record, samples, config.batch_size, files, user_file
    )


def _parallel(tf: Any, config: RunConfig) -> dict[str, Any]:
    workers = config.loader_workers
    if workers == 0:
        return {}  # one element at a time
    return {"num_parallel_calls": tf.data.AUTOTUNE if workers is None else workers}


def _options(tf: Any, config: RunConfig) -> Any:
    options = tf.data.Options()
    options.deterministic = True  # a failing image is then found by its place in the order
    if config.loader_workers:
        # The loader's own threads, as PyTorch's worker processes are its own: not the
        # training step's thread pool (which --threads sets).
        options.threading.private_threadpool_size = config.loader_workers
    return options


def _image_size(workload: Workload) -> tuple[int, int]:
    shape = tuple(workload.input_shape)
    if len(shape) != 3:
        raise ConfigError(
            "data",
            f"{workload.name} takes inputs of shape {shape}, not images (H, W, C): an image "
            "data source needs an image model, or set INPUT_SHAPE",
        )
    return shape[0], shape[1]


def _classes_fold(n: int, workload: Workload) -> int:
    return workload.num_classes if workload.num_classes and n > workload.num_classes else 0


def _image_folder(
    tf: Any, workload: Workload, spec: data_source.DataSpec, seed: int
) -> tuple[list[int], dict[str, Any], tuple[str, ...]]:
    folder = imagefolder.scan(data_source.folder_of(spec))
    order = np.random.default_rng(seed).permutation(folder.images)
    files = tuple(folder.files[i] for i in order)
    fold = _classes_fold(len(folder.classes), workload)
    labels = [folder.labels[i] % fold if fold else folder.labels[i] for i in order]
    h, w = _image_size(workload)
    record = {
        "kind": "imagefolder",
        "source": folder.root,
        "classes": len(folder.classes),
        "augmentation": f"random resized crop to {h}x{w}, flip, normalise",
    }
    return labels, record, files


def _folder_augment(tf: Any, workload: Workload) -> Any:
    size = _image_size(workload)
    mean, std = tf.constant(IMAGENET_MEAN), tf.constant(IMAGENET_STD)
    whole = tf.constant([[[0.0, 0.0, 1.0, 1.0]]])

    def augment(path: Any, label: Any) -> tuple[Any, Any]:
        image = tf.io.decode_image(tf.io.read_file(path), channels=3, expand_animations=False)
        begin, extent, _ = tf.image.sample_distorted_bounding_box(
            tf.shape(image),
            bounding_boxes=whole,
            min_object_covered=0.0,
            aspect_ratio_range=(3 / 4, 4 / 3),
            area_range=(0.08, 1.0),
            use_image_if_no_bounding_boxes=True,
        )
        image = tf.image.resize(tf.slice(image, begin, extent), size)
        image = tf.image.random_flip_left_right(image)
        return (image / 255.0 - mean) / std, tf.cast(label, tf.int32)

    return augment


def _cifar10(
    tf: Any, workload: Workload, spec: data_source.DataSpec, seed: int
) -> tuple[Any, dict[str, Any]]:
    try:
        files = cifar10.find_files(data_source.folder_of(spec))
        parts = [cifar10.read_batch(p) for p in files.train]
    except ConfigError as exc:
        raise ConfigError("data", exc.message) from None
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    fold = _classes_fold(cifar10.CLASSES, workload)
    y = (y % fold if fold else y).astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    dataset = tf.data.Dataset.from_tensor_slices((x[order], y[order]))
    h, w = _image_size(workload)
    resized = f", resized to {h}x{w}" if (h, w) != (32, 32) else ""
    record = {
        "kind": "cifar10",
        "source": str(files.folder),
        "classes": cifar10.CLASSES,
        "augmentation": f"4-pixel padded random crop, flip, normalise{resized}",
    }
    return dataset, record


def _cifar_augment(tf: Any, workload: Workload) -> Any:
    size = _image_size(workload)
    mean, std = tf.constant(CIFAR_MEAN), tf.constant(CIFAR_STD)

    def augment(image: Any, label: Any) -> tuple[Any, Any]:
        padded = tf.pad(image, [[4, 4], [4, 4], [0, 0]])
        image = tf.image.random_flip_left_right(tf.image.random_crop(padded, (32, 32, 3)))
        image = tf.cast(image, tf.float32)
        if size != (32, 32):
            image = tf.image.resize(image, size)
        return (image / 255.0 - mean) / std, label

    return augment


def _from_model_file(
    tf: Any, config: RunConfig, workload: Workload
) -> tuple[Any, dict[str, Any]] | None:
    """A model file's make_dataset(hints): a tf.data.Dataset of unbatched (input, target)."""
    found = own_dataset(workload, config, config.device)
    if found is None:
        return None
    dataset, spec = found
    if not isinstance(dataset, tf.data.Dataset):
        raise spec.error(
            f"make_dataset returned {type(dataset).__name__}, not a tf.data.Dataset of "
            "unbatched (input, target) samples",
            "make_dataset",
        )
    return dataset, own_dataset_record(spec)
