"""The SkyPilot task of one cloud measurement: which machine, what it installs, what it runs.

`CloudRun` holds the choice (a catalog instance, spot or not, nodes) and the run's config,
priced at the instance. `task_mapping` writes the task as SkyPilot's YAML reads it; the cloud
program loads it with SkyPilot's own loader and checks it with SkyPilot's own validation and
optimizer (engine/cloud/dryrun.py), so what the dry run prints is what a launch would send.

The instance measures with this very engine: the task's workdir is the staged upload (the
engine package alone with a pyproject, engine/cloud/upload.py), which setup installs with the
framework build; the run starts its worker (`python -m engine.worker`). No epochcost release
has to be on a package index.

The worker takes its config as JSON (`epochcost-worker run --config-json`), not the options of
`epochcost run`: the parent parses and validates the options here (engine/cli), the worker
validates the JSON again (RunConfig.from_dict), and the worker stays free of the parent's
option code (pyproject's import contracts). The JSON travels in the task's envs, not in the
command line, so no quoting of it reaches a shell.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

from engine.cloud import commands, upload
from engine.cloud.resources import sky_resources
from engine.core.errors import ConfigError
from engine.measure.config import RunConfig
from engine.pricing.catalog import Catalog
from engine.pricing.cost import Price
from engine.pricing.rows import Instance

# PyPI's torch 2.7.1 (CUDA 12.6) has kernels for sm_50 to sm_90 and runs on any driver for
# CUDA 12 (525.60.13+), which cloud images carry; Blackwell (sm_100, sm_120) needs torch 2.14.1's
# CUDA 13 build (driver 580+). As `epochcost env create` chooses at home (engine/envs/choice.py).
OLD_GPU_TORCH = "torch==2.7.1 torchvision==0.22.1"
BLACKWELL_TORCH = "torch==2.14.1 torchvision==0.29.1"
FIRST_BLACKWELL_CAPABILITY = (10, 0)
RDZV_PLACEHOLDER = "head:29500"  # the run command puts node 0's address there
TASK_NAME = "epochcost"
IDLE_MINUTES = 5  # autostop (down) after this long idle, set at provisioning


@dataclass(frozen=True)
class CloudRun:
    """One measurement on `nodes` rented `instance`s; `config` is the run, priced at the
    cluster's $/h (nodes x the instance's); `launched_at` in seconds since the epoch."""

    instance: Instance
    config: RunConfig
    spot: bool = False
    nodes: int = 1
    launched_at: float = 0.0
    gpu_capability: tuple[int, int] | None = None

    @property
    def price(self) -> Price:
        """The whole cluster's $/h, with its source and date."""
        return self.config.price or Price(0.0)

    @property
    def usd_per_hour(self) -> float:
        return self.price.usd_per_hour

    @property
    def framework_build(self) -> str:
        if self.config.framework == "tensorflow":
            return "tensorflow[and-cuda]==2.21.*"
        blackwell = self.gpu_capability is not None and (
            self.gpu_capability >= FIRST_BLACKWELL_CAPABILITY
        )
        return BLACKWELL_TORCH if blackwell else OLD_GPU_TORCH

    @property
    def nproc(self) -> int:
        return self.config.nproc


def cluster_price(instance: Instance, spot: bool, nodes: int) -> Price:
    """The cluster's $/h with the instance's source and date (catalog.price_note says its age)."""
    from engine.pricing.profiles import instance_price

    one = instance_price(instance, spot)
    if nodes == 1:
        return one
    return Price(round(one.usd_per_hour * nodes, 6), f"{one.source}, x{nodes} nodes", one.as_of)


def prepare(
    cat: Catalog, instance: Instance, config: RunConfig, spot: bool, nodes: int, launched_at: float
) -> CloudRun:
    """The run on that machine, priced, over all its GPUs and nodes (data-parallel with
    torchrun). A TensorFlow run measures one GPU of a multi-GPU instance and is priced at that
    GPU's share of the instance, never one GPU at the whole price. ConfigError, saying what to
    do, for what the instance cannot run (module docstring of engine/cloud/resources.py, and
    a model file, a local data folder or a device other than the instance's GPUs)."""
    if not 1 <= nodes <= 64:
        raise ConfigError("nodes", f"{nodes}: give 1 to 64 nodes")
    sky_resources(instance)  # refuses what is no CUDA machine one can rent
    _check_sendable(config)
    gpus = int(instance.gpu_count)
    price = cluster_price(instance, spot, nodes)
    if config.framework == "torch":
        changes: dict[str, Any] = {"nproc": gpus, "nnodes": nodes}
    else:
        if nodes > 1:
            raise ConfigError("nodes", "several nodes measure PyTorch runs only (torchrun)")
        changes = {"nproc": 1, "nnodes": 1}
        if gpus > 1:
            price = Price(
                round(price.usd_per_hour / gpus, 6),
                f"{price.source}, 1 of its {gpus} GPUs' share",
                price.as_of,
            )
    if nodes > 1:
        changes["rdzv_endpoint"] = RDZV_PLACEHOLDER
    if config.device in ("cuda", "cuda:0"):
        changes["device"] = "auto"  # every GPU of the instance, one per process
    priced = config.with_price(price).with_changes(**changes)
    spec = cat.gpu_of(instance)
    return CloudRun(
        instance,
        priced.validated(check_files=False),
        spot,
        nodes,
        launched_at,
        spec.compute_capability_tuple if spec else None,
    )


def _check_sendable(config: RunConfig) -> None:
    """What only this machine has cannot go: a model file, a local data folder; a device other
    (check_device: a device other than the instance's GPUs)."""
    if config.model_file:
        raise ConfigError(
            "model_file",
            "a model file stays on this machine (it is not uploaded): measure a built-in "
            "model on the instance (epochcost models lists them)",
        )
    if config.data not in ("auto", "synthetic"):
        raise ConfigError(
            "data",
            f"{config.data}: a data folder stays on this machine (it is not uploaded): "
            "measure with synthetic data (--data synthetic)",
        )


def check_device(config: RunConfig) -> None:
    """A cloud run measures on the instance's GPUs: a device other than CUDA is refused (the
    tests alone run the task's command on this machine's CPU)."""
    if config.device not in ("auto", "cuda", "cuda:0"):
        raise ConfigError(
            "device",
            f"{config.device}: a cloud run measures on all the instance's NVIDIA GPUs; leave "
            "--device out (or give cuda)",
        )


def envs(run: CloudRun) -> dict[str, str]:
    """What the setup and run commands read (strings, as SkyPilot's envs are)."""
    return {
        "EPOCHCOST_CONFIG": json.dumps(run.config.to_dict(), separators=(",", ":")),
        "EPOCHCOST_PACKAGES": run.framework_build,
        "EPOCHCOST_NPROC": str(run.nproc),
        "EPOCHCOST_LAUNCHED_AT": f"{run.launched_at:.3f}",
    }


def task_mapping(run: CloudRun, workdir: str | None = None) -> dict[str, Any]:
    """The task as SkyPilot's YAML reads it (the cloud program loads it with SkyPilot's own
    loader, sky.Task.from_yaml_config): the staged upload as workdir (engine/cloud/upload.py),
    setup, run, envs, nodes, and the resources with autostop set at provisioning."""
    return {
        "name": TASK_NAME,
        "workdir": workdir if workdir is not None else str(upload.stage()),
        "num_nodes": run.nodes,
        "resources": sky_resources(run.instance).mapping(run.spot, IDLE_MINUTES),
        "envs": envs(run),
        "setup": commands.SETUP,
        "run": commands.RUN,
    }


def local_command(mapping: dict[str, Any]) -> list[str]:
    """The task's run command as this machine would run it (bash -c), for the tests and for
    a user who runs the measurement by hand."""
    return ["bash", "-c", mapping["run"], shlex.quote(TASK_NAME)]
