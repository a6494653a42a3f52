"""A catalog instance in SkyPilot's terms: the one translation from epochcost's catalog rows
(assets/instances.csv) to what SkyPilot's `resources` take, and the rows a cloud run refuses.

- GCP's "n1-standard-8 + 1xV100" rows are a host VM with accelerators attached: SkyPilot gets
  instance_type n1-standard-8 and accelerators {V100: 1}, priced as both (the catalog's sum).
  A bare accelerator row ("accelerator:V100x1 (attach to n1-*)") is no machine: it is refused,
  with the host VM rows to use instead.
- RunPod's regions are written "US (US-CA-1 zone)" in the catalog: SkyPilot's region is "US",
  its zone "US-CA-1".
- Accelerators the worker cannot use (TPU, Gaudi, Trainium, Inferentia: no CUDA) are refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.core.errors import ConfigError
from engine.pricing.rows import Instance

_HOST_AND_GPUS = re.compile(r"^(?P<host>\S+) \+ (?P<count>\d+)x(?P<gpu>\S+)$")
_REGION_ZONE = re.compile(r"^(?P<region>[^()]+?) \((?P<zone>\S+) zone\)$")
NOT_CUDA = ("TPU", "Gaudi", "Trainium", "Inferentia", "HL-")
# Catalog rows SkyPilot's own validation refuses (tests/engine/test_cloud_task.py keeps this
# true both ways: every other row passes it, these fail it): not offered for cloud runs.
SKYPILOT_REFUSES = {
    (
        "gcp",
        "a3-edgegpu-8g",
    ): "SkyPilot attaches H100s to a3-highgpu-8g only: use gcp:a3-highgpu-8g",
}


@dataclass(frozen=True)
class SkyResources:
    """What SkyPilot's `resources` get for one catalog instance."""

    cloud: str
    region: str | None
    zone: str | None
    instance_type: str | None
    accelerators: dict[str, int] | None

    def mapping(self, spot: bool, idle_minutes: int | None = None) -> dict[str, Any]:
        """The task's `resources` section (SkyPilot's YAML keys); `idle_minutes`: autostop
        (down) set at provisioning, so that a client that dies still ends the cluster."""
        out: dict[str, Any] = {"infra": self.infra, "use_spot": spot}
        if self.instance_type:
            out["instance_type"] = self.instance_type
        if self.accelerators:
            out["accelerators"] = dict(self.accelerators)
        if idle_minutes is not None:
            out["autostop"] = {"idle_minutes": idle_minutes, "down": True}
        return out

    @property
    def infra(self) -> str:
        """SkyPilot's `infra` field: cloud/region/zone."""
        return "/".join(p for p in (self.cloud, self.region, self.zone) if p)


def cuda_capable(instance: Instance) -> bool:
    """Whether the instance's accelerator is an NVIDIA GPU the worker can measure on."""
    name = f"{instance.gpu_model} {instance.gpu_spec}"
    return instance.gpu_count >= 1 and not any(word in name for word in NOT_CUDA)


def sky_resources(instance: Instance) -> SkyResources:
    """The instance as SkyPilot names it; ConfigError for a row that is no machine one can rent
    and measure on (see the module's docstring)."""
    if instance.historical:
        raise ConfigError("instance", f"{instance.label} is not a machine one can rent today")
    if instance.price_component == "gpu_only":
        raise ConfigError(
            "instance",
            f"{instance.label} is an accelerator without its host VM: choose a machine with "
            f"it, e.g. --gpu {instance.gpu_model} --cloud {instance.cloud} "
            "(epochcost catalog instances lists them)",
        )
    if not cuda_capable(instance):
        what = instance.gpu_model or "no GPU"
        raise ConfigError(
            "instance",
            f"{instance.label} has {what}: the worker measures on NVIDIA GPUs (CUDA); "
            "choose an instance with one (--gpu NAME)",
        )
    refused = SKYPILOT_REFUSES.get((instance.cloud, instance.instance_type))
    if refused:
        raise ConfigError("instance", f"{instance.label}: {refused}")
    region, zone = instance.region or None, None
    found = _REGION_ZONE.match(instance.region or "")
    if found:
        region, zone = found["region"].strip(), found["zone"]
    host = _HOST_AND_GPUS.match(instance.instance_type)
    if host:
        return SkyResources(
            instance.cloud, region, zone, host["host"], {host["gpu"]: int(host["count"])}
        )
    return SkyResources(
        instance.cloud,
        region,
        zone,
        instance.instance_type,
        {instance.gpu_model: int(instance.gpu_count)},
    )


def measurable(instance: Instance) -> bool:
    """Whether a cloud run can measure on the instance (sky_resources takes it)."""
    try:
        sky_resources(instance)
    except ConfigError:
        return False
    return True
