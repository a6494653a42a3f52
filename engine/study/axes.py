"""The axes a study can vary (engine/study/axis.py says what an axis is): batch size, loader
workers, data-parallel processes, precision and the GPU's power limit.

    axis = AXES["precision"]()
    values = axis.parse("fp32,bf16")
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from engine.core.errors import ConfigError
from engine.core.placeholders import ask
from engine.core.value_lists import ListSpec
from engine.measure import devices
from engine.measure.config import (
    MAX_BATCH_SIZE,
    MAX_LOADER_WORKERS,
    MAX_PROCESSES,
    PRECISIONS,
    RunConfig,
)
from engine.measure.power_limit import (
    OutOfRange,
    PowerControl,
    PowerLimitError,
    applied,
    check_settable,
    nvml_control,
)
from engine.measure.probes import nvml_index
from engine.study.axis import Axis

MAX_COUNTS = 16
MAX_SWEEP_SIZES = 64
BATCH_SIZES = ListSpec(
    "batch_sizes",
    "batch sizes",
    "16,32,64 or 16:256",
    high=MAX_BATCH_SIZE,
    max_count=MAX_SWEEP_SIZES,
)
MAX_WATTS = 2000.0


class BatchAxis(Axis):
    name, field, label, role = "batch", "batch_size", "batch size", "point"
    values = BATCH_SIZES


class LoaderWorkersAxis(Axis):
    name, field, label = "loader-workers", "loader_workers", "loader workers"
    role = "loader-workers"
    values = ListSpec(
        "loader_workers",
        "loader-worker counts",
        "0,1,2,4",
        low=0,
        high=MAX_LOADER_WORKERS,
        repeats="refuse",
        sort=False,
        max_count=MAX_COUNTS,
    )

    def prepare(self, config: RunConfig, values: tuple[Any, ...]) -> RunConfig:
        if not config.data_spec.reads_files and config.data_spec.kind != "auto":
            raise ConfigError(
                "loader_workers",
                f"a loader-workers sweep needs data to load: give {ask('data')} imagefolder:PATH "
                "or cifar10[:PATH] (or a model file with make_dataset)",
            )
        return config


class ProcessesAxis(Axis):
    """Data-parallel processes on this machine (a count of 1 is a plain run): the scaling
    study, whose results carry the `scaling` tag and whose group id starts "scaling-"."""

    name, field, label, role = "processes", "nproc", "processes", "processes"
    group_prefix = "scaling"
    values = ListSpec(
        "nproc", "process counts", "1,2,4,8", high=MAX_PROCESSES, min_count=2, max_count=MAX_COUNTS
    )

    def prepare(self, config: RunConfig, values: tuple[Any, ...]) -> RunConfig:
        # One CPU thread a process unless --threads says otherwise, at every count: what
        # torchrun gives each of its processes (OMP_NUM_THREADS=1), so that the counts compare.
        config = config.with_changes(
            nproc=1, nnodes=1, node_rank=0, rdzv_endpoint=None, threads=config.threads or 1
        )
        config.with_changes(nproc=max(values))  # what the largest count cannot do, now
        return config

    def tags(self, group_id: str, value: Any, index: int) -> dict[str, Any]:
        return {"scaling": {"group_id": group_id, "nproc": value}}


def precision_refusal(device: devices.Device | None, precision: str) -> str | None:
    """Why `device` cannot train in `precision` (the worker's own rule, said before a run)."""
    if device is None:
        return None  # the worker says what is wrong with the device
    capability = _capability(device.compute_capability)
    if device.kind == "cpu":
        if precision == "fp16":
            return "fp16 needs a GPU (the CPU has no fp16 training path); use bf16"
        if precision == "tf32":
            return "tf32 needs an NVIDIA GPU of compute capability 8.0 (Ampere) or newer"
    elif device.kind == "cuda" and capability is not None and capability < (8, 0):
        if precision in ("tf32", "bf16"):
            return f"{precision} needs compute capability 8.0 (Ampere); {device.name} has " + (
                device.compute_capability
            )
    elif device.kind == "mps" and precision == "tf32":
        return "tf32 is a mode of NVIDIA GPUs; Apple's GPUs have none"
    return None


def _capability(text: str) -> tuple[int, int] | None:
    try:
        major, minor = text.split(".")
        return int(major), int(minor)
    except ValueError:
        return None


class PrecisionAxis(Axis):
    name, field, label, role = "precision", "precision", "precision", "precision"
    values = ListSpec(
        "precision", "precisions", "fp32,bf16", choices=PRECISIONS, max_count=len(PRECISIONS)
    )

    def refusal(self, config: RunConfig, value: Any) -> str | None:
        return precision_refusal(devices.device_named(config.device), value)

    def position(self, value: Any, index: int) -> float:
        return float(PRECISIONS.index(value))


class PowerLimitAxis(Axis):
    """The GPU's power limit in watts (NVML), set before each point and restored after it."""

    name, field, label, unit, role = "power-limit", "", "power limit", "W", "power-limit"
    values = ListSpec(
        "power_limit", "power limits (W)", "150,200,250", low=1.0, high=MAX_WATTS, whole=False
    )

    def __init__(self, control: Callable[[int], PowerControl] = nvml_control) -> None:
        self._make_control = control
        self._control: PowerControl | None = None

    def unavailable(self, device_kind: str) -> str | None:
        return None if device_kind == "cuda" else "a power-limit sweep needs an NVIDIA GPU"

    def prepare(self, config: RunConfig, values: tuple[Any, ...]) -> RunConfig:
        device = devices.device_named(config.device)
        why = self.unavailable(device.kind if device else "")
        if device is None or why:
            where = device.name if device else config.device
            raise ConfigError(
                "device", f"{why}; this run is on {where} (give cuda:N as {ask('device')})"
            )
        try:
            # NVML counts every GPU; cuda:N counts those CUDA_VISIBLE_DEVICES leaves
            self._control = self._make_control(nvml_index(device.id))
            check_settable(self._control, values)
        except OutOfRange as error:  # a value: the values' field
            raise ConfigError(self.values.field, str(error)) from None
        except PowerLimitError as error:  # the machine (permission, NVML): the axis itself
            raise ConfigError("axis", str(error)) from None
        return config.with_changes(device=device.id, nproc=1)

    def configure(self, config: RunConfig, value: Any) -> RunConfig:
        return config

    @contextmanager
    def around(self, value: Any) -> Iterator[None]:
        assert self._control is not None, "prepare() first"
        with applied(self._control, float(value)):
            yield


AXES: dict[str, type[Axis]] = {
    axis.name: axis
    for axis in (BatchAxis, LoaderWorkersAxis, ProcessesAxis, PrecisionAxis, PowerLimitAxis)
}
