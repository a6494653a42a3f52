"""Rows of the price and hardware catalog: the type each CSV file's rows become, and their units.

One row type per kind of file (instances, gpus, grid, machines), frozen, with the key a user row
replaces a shipped one by. engine/pricing/schema.py builds them from a file's cells, one parser for
the shipped files (assets/) and the user's own.
Units: USD, hours, GiB (instances), GB as marketed (GPUs), GB/s, TFLOPS, watts, gCO2e/kWh.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("instances", "gpus", "grid", "machines")
PRICE_COMPONENTS = ("instance_total", "vm+gpu_sum", "gpu_only", "vm_only")
FULL_INSTANCE = ("instance_total", "vm+gpu_sum")
_BF16_ARCHITECTURES = ("ampere", "ada", "hopper", "blackwell")
_FLAGS = ("verify", "retired", "fractional", "partial", "not eastus", "says 12")


@dataclass(frozen=True)
class Instance:
    """A machine you can rent, with its hourly price, where that price came from and when."""

    cloud: str
    instance_type: str
    usd_per_hour: float
    region: str = ""
    gpu_model: str = ""  # the provider's name for the accelerator
    gpu_spec: str = ""  # the row of the GPU catalog it is (blank: none or unknown)
    gpu_count: float = 0.0  # 0.25: a quarter of a GPU (a partition)
    gpu_memory_gib_per_gpu: float | None = None
    vcpus: float | None = None
    ram_gib: float | None = None
    usd_per_hour_spot: float | None = None
    price_component: str = "instance_total"
    historical: bool = False
    price_date: str = ""
    source: str = ""
    source_commit: str = ""
    notes: str = ""
    origin: str = "shipped"  # shipped | user

    @property
    def key(self) -> tuple[str, ...]:
        return (self.cloud, self.instance_type, "yes" if self.historical else "no")

    @property
    def full_instance(self) -> bool:
        """False for a price that is only part of a machine (a GCP GPU or host VM alone)."""
        return self.price_component in FULL_INSTANCE

    @property
    def flagged(self) -> bool:
        """True when the notes record an oddity the data's SOURCES.md lists (a price to verify,
        a retired family, a fractional GPU, partial spot data, a corrected count)."""
        text = self.notes.lower()
        return any(flag in text for flag in _FLAGS)

    @property
    def label(self) -> str:
        return f"{self.cloud} {self.instance_type}" + (" (historical)" if self.historical else "")


@dataclass(frozen=True)
class GpuSpec:
    """Peak rates and sizes of one GPU as its maker states them (dense, no sparsity)."""

    name: str
    aliases: tuple[str, ...] = ()  # device names as CUDA / NVML report them
    vendor: str = ""
    architecture: str = ""
    compute_capability: str = ""  # CUDA's "major.minor" ("6.1"); "" unknown or not NVIDIA
    release_date: str = ""
    memory_gb: float | None = None
    memory_bandwidth_gbs: float | None = None
    fp32_tflops: float | None = None
    fp16_bf16_tensor_tflops_dense: float | None = None
    tf32_tensor_tflops_dense: float | None = None
    tdp_w: float | None = None
    launch_price_usd: float | None = None
    has_tensor_cores: bool = False
    cloud_catalog_gpu_name: str = ""
    sources: str = ""
    notes: str = ""
    origin: str = "shipped"

    @property
    def key(self) -> tuple[str, ...]:
        return (self.name,)

    @property
    def compute_capability_tuple(self) -> tuple[int, int] | None:
        """'6.1' -> (6, 1); None when blank or not "major.minor"."""
        match = re.fullmatch(r"(\d+)\.(\d+)", self.compute_capability.strip())
        return (int(match[1]), int(match[2])) if match else None

    @property
    def supports_bf16(self) -> bool:
        """bf16 arithmetic needs an Ampere or newer NVIDIA GPU (compute capability 8.0+)."""
        arch = self.architecture.lower()
        return any(a in arch for a in _BF16_ARCHITECTURES)


@dataclass(frozen=True)
class GridIntensity:
    """Carbon intensity of the electricity grid of a cloud region, gCO2e per kWh."""

    provider: str
    region: str
    ci_gco2e_per_kwh: float
    region_name: str = ""
    country: str = ""
    pue: float | None = None
    ci_source_dataset: str = ""
    ci_data_vintage: str = ""
    origin: str = "shipped"

    @property
    def key(self) -> tuple[str, ...]:
        return (self.provider, self.region)


@dataclass(frozen=True)
class Machine:
    """A machine the user owns (or may buy): what it cost, how it is used, what power costs."""

    name: str
    purchase_usd: float
    gpu_spec: str = ""  # GPU catalog row, for its TDP when the run measured no power
    lifetime_years: float = 3.0
    hours_per_day: float = 24.0
    power_w: float | None = None  # device draw; None: measured or the GPU's TDP
    rest_of_system_w: float = 0.0  # CPU, board, disks, fans while training
    usd_per_kwh: float | None = None
    psu_efficiency: float = 0.9
    grid: str = ""  # provider:region of the catalog's grid table
    ci_gco2e_per_kwh: float | None = None  # or the intensity as a number
    as_of: str = ""
    source: str = ""
    notes: str = ""
    origin: str = "user"

    @property
    def key(self) -> tuple[str, ...]:
        return (self.name,)
