"""The SkyPilot task of one cloud measurement: which machine, what it installs, what it runs.

`CloudRun` holds the choice (a catalog instance, spot or not, nodes) and the run's config,
priced at the instance. `task_mapping` builds the task through SkyPilot's own API (sky.Task,
sky.Resources) and returns it as SkyPilot writes it (`to_yaml_config`, the mapping its YAML
reads), checked against SkyPilot's task and resources schemas, so what the dry run prints is
what a launch would send.

The instance measures with this very source: the task's workdir is the engine's source (the
checkout, or the bundle's engine-src), which SkyPilot uploads; setup installs it with the
framework build, and the run starts its worker (`python -m engine.worker`, the source first
on PYTHONPATH). No epochcost release has to be on a package index.

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

from engine.cloud import commands
from engine.cloud.skypilot import require_sky
from engine.core import paths
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
# What the worker needs besides a framework where the uploaded source is no installable project
# (the desktop bundle's engine source): the engine's own dependencies.
ENGINE_NEEDS = "numpy psutil platformdirs nvidia-ml-py"
RDZV_PLACEHOLDER = "head:29500"  # the run command puts node 0's address there
TASK_NAME = "epochcost"


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
    def packages(self) -> str:
        """What setup installs: the framework build that fits the instance's GPU, then the
        worker side of this very epochcost from the uploaded source (workdir)."""
        return f"{self.framework_build} {worker_side()}"

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


def workdir() -> str:
    """The folder SkyPilot uploads (its workdir, where setup and run start): the engine's
    source, so the instance measures with exactly this version."""
    return str(paths.engine_source_root())


def worker_side() -> str:
    """`.`: the uploaded checkout as a project (with `epochcost-worker`); the engine's own
    dependencies where the source is the bundle's (no pyproject.toml)."""
    return "." if (paths.engine_source_root() / "pyproject.toml").is_file() else ENGINE_NEEDS


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
    """The run on that machine: priced, and spread over its GPUs and nodes (data-parallel
    with torchrun when there is more than one process)."""
    if not 1 <= nodes <= 64:
        raise ConfigError("nodes", f"{nodes}: give 1 to 64 nodes")
    if (
        instance.historical
        or not instance.full_instance
        and instance.price_component != ("gpu_only")
    ):
        raise ConfigError("instance", f"{instance.label} is not a machine one can rent today")
    gpus = max(1, int(instance.gpu_count)) if instance.gpu_count >= 1 else 1
    nproc = gpus if (nodes > 1 or config.nproc > 1) else 1
    changes: dict[str, Any] = {"nproc": nproc, "nnodes": nodes}
    if nodes > 1:
        changes["rdzv_endpoint"] = RDZV_PLACEHOLDER
    priced = config.with_price(cluster_price(instance, spot, nodes)).with_changes(**changes)
    spec = cat.gpu_of(instance)
    return CloudRun(
        instance,
        priced.validated(check_files=False),
        spot,
        nodes,
        launched_at,
        spec.compute_capability_tuple if spec else None,
    )


def envs(run: CloudRun) -> dict[str, str]:
    """What the setup and run commands read (strings, as SkyPilot's envs are)."""
    return {
        "EPOCHCOST_CONFIG": json.dumps(run.config.to_dict(), separators=(",", ":")),
        "EPOCHCOST_PACKAGES": run.packages,
        "EPOCHCOST_NPROC": str(run.nproc),
        "EPOCHCOST_LAUNCHED_AT": f"{run.launched_at:.3f}",
    }


def _accelerators(instance: Instance) -> dict[str, float] | None:
    if not instance.gpu_model or instance.gpu_count <= 0:
        return None
    count = instance.gpu_count
    return {instance.gpu_model: int(count) if count == int(count) else count}


def sky_task(run: CloudRun) -> Any:
    """The task as a sky.Task, built with SkyPilot's API (ConfigError: it refuses it)."""
    sky = require_sky()
    from sky.utils import registry

    instance = run.instance
    try:
        task = sky.Task(
            name=TASK_NAME,
            setup=commands.SETUP,
            run=commands.RUN,
            workdir=workdir(),
            envs=envs(run),
            num_nodes=run.nodes,
        )
        task.set_resources(
            sky.Resources(
                cloud=registry.CLOUD_REGISTRY.from_str(instance.cloud),
                region=instance.region or None,
                instance_type=None
                if instance.price_component == "gpu_only"
                else instance.instance_type,
                accelerators=_accelerators(instance),
                use_spot=run.spot,
            )
        )
    except (ValueError, sky.exceptions.InvalidCloudConfigs) as exc:
        raise ConfigError("instance", f"SkyPilot refuses the task: {exc}") from None
    return task


def task_mapping(task: Any) -> dict[str, Any]:
    """`task` as its YAML reads, checked against SkyPilot's own task and resources schemas."""
    require_sky()
    from sky.utils import common_utils, schemas

    mapping = task.to_yaml_config()
    try:
        common_utils.validate_schema(mapping, schemas.get_task_schema(), "task: ")
        common_utils.validate_schema(
            mapping.get("resources") or {}, schemas.get_resources_schema(), "resources: "
        )
    except ValueError as exc:
        raise ConfigError("instance", f"SkyPilot's schema refuses the task: {exc}") from None
    return mapping


def to_yaml(mapping: dict[str, Any]) -> str:
    """The mapping as SkyPilot's YAML (sky.utils.common_utils.dump_yaml_str)."""
    require_sky()
    from sky.utils import common_utils

    return str(common_utils.dump_yaml_str(mapping))


def local_command(mapping: dict[str, Any]) -> list[str]:
    """The task's run command as this machine would run it (bash -c), for the tests and for
    a user who runs the measurement by hand."""
    return ["bash", "-c", mapping["run"], shlex.quote(TASK_NAME)]
