"""PyTorch input pipelines for timed runs: a data set read, decoded and augmented every step
by a DataLoader, and the batch copied to the device (docs/measuring.md, "Input pipelines").

- imagefolder:PATH: torchvision's ImageFolder (the classes and files of
  engine/workloads/data/imagefolder.py), random resized crop to the model's input size,
  horizontal flip, ImageNet normalisation;
- cifar10[:PATH]: the binary files in memory, a 4-pixel padded random crop and flip, CIFAR-10's
  normalisation (resized when the model takes another size);
- a model file's make_dataset(hints): its torch Dataset of (input, target) samples.

One DataLoader for the whole run: an endless shuffled sampler, so no epoch boundary restarts
its workers (which are persistent as well), drop_last so that shapes never change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
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
ENDLESS = 1 << 62  # samples the sampler draws: more than any run takes


class BadImage(Exception):
    """An image the loader cannot decode; its message names the file. One text argument, so
    a DataLoader worker's copy comes back to the main process as this type."""


@dataclass
class Feed:
    """Batches from a DataLoader, on the device; what the result says of the data."""

    torch: Any
    loader: Any
    device: Any
    channels_last: bool
    record: dict[str, Any]
    samples: int | None  # one epoch of the source, None: unknown (an iterable data set)
    user_file: str | None = None  # the model file whose make_dataset made it
    _it: Any = field(default=None, repr=False)

    def next(self) -> tuple[Any, Any]:
        """The next batch on the device: the wait this measures includes decoding (with no
        loader workers) and the host-to-device copy."""
        try:
            batch = next(self._it) if self._it is not None else self._restart()
        except StopIteration:  # an iterable data set ran out: start it again
            batch = self._restart()
        except BadImage as exc:
            raise RunFailed("config", f"data: {_last_line(exc)}") from None
        except (RunFailed, MemoryError):
            raise
        except Exception as exc:
            if self.user_file is None:
                raise
            what = "make_dataset's data"
            raise model_file_errors.from_exception(self.user_file, what, exc) from exc
        x, y = batch[0], batch[1]
        # non_blocking with pinned memory: the copy overlaps the host's next work.
        x = x.to(self.device, non_blocking=self.loader.pin_memory)
        if self.channels_last and x.dim() == 4:
            x = x.contiguous(memory_format=self.torch.channels_last)
        return x, y.to(self.device, non_blocking=self.loader.pin_memory)

    def _restart(self) -> Any:
        self._it = iter(self.loader)
        return next(self._it)

    def close(self) -> None:
        self._it = None  # ends the loader's worker processes


def _last_line(exc: BaseException) -> str:
    """A DataLoader worker's error comes back with its traceback in the message."""
    text = str(exc).strip().splitlines()
    line = text[-1] if text else type(exc).__name__
    return line.split("BadImage: ", 1)[-1]


def load_rgb(path: str) -> Any:
    """An image file as an RGB PIL image, decoded in full; BadImage naming the file."""
    from PIL import Image

    try:
        with open(path, "rb") as f:
            image = Image.open(f)
            return image.convert("RGB")  # decodes the whole image: a truncated file fails here
    except Exception as exc:
        raise BadImage(
            f"{path} cannot be decoded as an image ({type(exc).__name__}: {exc})"
        ) from None


class _Modulo:
    """Labels folded into the model's outputs (a folder with more classes than it has)."""

    def __init__(self, classes: int) -> None:
        self.classes = classes

    def __call__(self, label: int) -> int:
        return label % self.classes


def workers(config: RunConfig) -> int:
    """The loader's worker processes: the option, else up to 4, one per CPU core."""
    if config.loader_workers is not None:
        return config.loader_workers
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(4, cores or 1)


def image_size(workload: Workload, channels_first: bool) -> tuple[int, int]:
    """(height, width) the model takes; ConfigError when it does not take images."""
    shape = tuple(workload.input_shape)
    if len(shape) != 3:
        raise ConfigError(
            "data",
            f"{workload.name} takes inputs of shape {shape}, not images (C, H, W): an image "
            "data source needs an image model, or set INPUT_SHAPE",
        )
    return (shape[1], shape[2]) if channels_first else (shape[0], shape[1])


def open_feed(
    torch: Any, config: RunConfig, workload: Workload, device: Any, channels_last: bool
) -> Feed | None:
    """The run's input pipeline, or None for synthetic batches."""
    spec = config.data_spec
    user_file = None
    if spec.kind == "imagefolder":
        dataset, record = _image_folder(workload, spec)
    elif spec.kind == "cifar10":
        dataset, record = _cifar10(torch, workload, spec)
    else:
        made = _from_model_file(config, workload, device) if spec.kind == "auto" else None
        if made is None:
            return None
        dataset, record = made
        user_file = workload.path if isinstance(workload, FileWorkload) else None
    count = workers(config)
    pin = config.pin_memory and device.type == "cuda"
    iterable = isinstance(dataset, torch.utils.data.IterableDataset)
    sampler = None if iterable else _endless_sampler(torch, dataset, config.seed)
    loader = torch.utils.data.DataLoader(
        dataset,
        batch_size=config.batch_size,
        sampler=sampler,
        drop_last=True,
        num_workers=count,
        pin_memory=pin,
        persistent_workers=count > 0,
    )
    samples = None if iterable else len(dataset)
    record |= {
        "samples": samples,
        "loader_workers": count,
        "pin_memory": pin,
        "persistent_workers": count > 0,
    }
    return Feed(torch, loader, device, channels_last, record, samples, user_file)


def _endless_sampler(torch: Any, dataset: Any, seed: int) -> Any:
    if len(dataset) == 0:
        raise ConfigError("data", "the data set is empty")
    generator = torch.Generator()
    generator.manual_seed(seed)
    return torch.utils.data.RandomSampler(dataset, num_samples=ENDLESS, generator=generator)


def _labels_fit(classes: int, workload: Workload) -> _Modulo | None:
    wanted = workload.num_classes
    return _Modulo(wanted) if wanted and classes > wanted else None


def _image_folder(workload: Workload, spec: data_source.DataSpec) -> tuple[Any, dict[str, Any]]:
    from torchvision import datasets, transforms

    folder = imagefolder.scan(data_source.folder_of(spec))
    size = image_size(workload, channels_first=isinstance(workload, FileWorkload))
    augment = transforms.Compose(
        [
            transforms.RandomResizedCrop(size, antialias=True),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
        ]
    )

    class Folder(datasets.ImageFolder):  # the scan's classes: the same labels in every framework
        def find_classes(self, directory: str) -> tuple[list[str], dict[str, int]]:
            return list(folder.classes), {c: i for i, c in enumerate(folder.classes)}

    dataset = Folder(
        folder.root,
        transform=augment,
        target_transform=_labels_fit(len(folder.classes), workload),
        loader=load_rgb,
        is_valid_file=imagefolder.is_image,
        allow_empty=True,
    )
    record = {
        "kind": "imagefolder",
        "source": folder.root,
        "classes": len(folder.classes),
        "augmentation": f"random resized crop to {size[0]}x{size[1]}, flip, normalise",
    }
    return dataset, record


def _cifar10(
    torch: Any, workload: Workload, spec: data_source.DataSpec
) -> tuple[Any, dict[str, Any]]:
    from torchvision import transforms

    try:
        files = cifar10.find_files(data_source.folder_of(spec))
        images, labels = zip(*(cifar10.read_batch(p) for p in files.train), strict=True)
    except ConfigError as exc:
        raise ConfigError("data", exc.message) from None
    size = image_size(workload, channels_first=isinstance(workload, FileWorkload))
    steps: list[Any] = [transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip()]
    if size != (32, 32):
        steps.append(transforms.Resize(size, antialias=True))
    steps += [
        transforms.ConvertImageDtype(torch.float32),
        transforms.Normalize(CIFAR_MEAN, CIFAR_STD),
    ]
    x = torch.from_numpy(np.concatenate(images)).permute(0, 3, 1, 2)
    y = torch.from_numpy(np.concatenate(labels))
    fold = _labels_fit(cifar10.CLASSES, workload)
    dataset = _Augmented(x, y if fold is None else y % fold.classes, transforms.Compose(steps))
    record = {
        "kind": "cifar10",
        "source": str(files.folder),
        "classes": cifar10.CLASSES,
        "augmentation": "4-pixel padded random crop, flip, normalise"
        + (f", resized to {size[0]}x{size[1]}" if size != (32, 32) else ""),
    }
    return dataset, record


class _Augmented:
    """uint8 images (N, C, H, W) in memory, augmented one by one as a Dataset's samples."""

    def __init__(self, images: Any, labels: Any, augment: Any) -> None:
        self.images, self.labels, self.augment = images, labels, augment

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, i: int) -> tuple[Any, Any]:
        return self.augment(self.images[i]), self.labels[i]


def _from_model_file(
    config: RunConfig, workload: Workload, device: Any
) -> tuple[Any, dict[str, Any]] | None:
    """A model file's make_dataset(hints): a torch Dataset of (input, target) samples."""
    found = own_dataset(workload, config, str(device))
    if found is None:
        return None
    dataset, spec = found
    import torch

    if not isinstance(dataset, torch.utils.data.Dataset):
        raise spec.error(
            f"make_dataset returned {type(dataset).__name__}, not a torch.utils.data.Dataset "
            "of (input, target) samples",
            "make_dataset",
        )
    return dataset, own_dataset_record(spec)
