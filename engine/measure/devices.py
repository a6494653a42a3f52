"""Devices a run can use, found without importing a framework (NVML and the OS)."""

from __future__ import annotations

import platform
from dataclasses import asdict, dataclass
from typing import Any

import psutil

from engine.measure import environment
from engine.measure.probes import nvml_devices


@dataclass(frozen=True)
class Device:
    id: str  # what --device takes: cpu, cuda:N, mps
    kind: str  # cpu | cuda | mps
    name: str
    memory_total_bytes: int | None
    detail: str = ""
    compute_capability: str = ""  # NVIDIA GPUs: "6.1" ("" unknown, and for other devices)
    driver: str = ""  # NVIDIA GPUs: the driver's version
    driver_cuda: str = ""  # NVIDIA GPUs: the highest CUDA version the driver runs ("12.4")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def label(self) -> str:
        memory = f", {self.memory_total_bytes / 2**30:.1f} GiB" if self.memory_total_bytes else ""
        return f"{self.id}: {self.name}{memory}"


def list_devices() -> list[Device]:
    """GPUs first (NVML), then Apple MPS where it can exist, then the CPU (always)."""
    found = [
        Device(
            f"cuda:{g['index']}",
            "cuda",
            g["name"],
            g["memory_total_bytes"],
            _gpu_detail(g),
            g.get("compute_capability", ""),
            g.get("driver", ""),
            g.get("driver_cuda", ""),
        )
        for g in nvml_devices()
    ]
    if platform.system() == "Darwin" and platform.machine() == "arm64":
        found.append(
            Device("mps", "mps", "Apple GPU (MPS)", psutil.virtual_memory().total, "unified memory")
        )
    found.append(
        Device(
            "cpu",
            "cpu",
            environment.cpu_name(),
            psutil.virtual_memory().total,
            f"{psutil.cpu_count()} logical cores",
        )
    )
    return found


def _gpu_detail(gpu: dict[str, Any]) -> str:
    """'sm_61, driver 550.54.14 (CUDA 12.4)'."""
    cc = gpu.get("compute_capability", "")
    cuda = f" (CUDA {gpu['driver_cuda']})" if gpu.get("driver_cuda") else ""
    parts = [f"sm_{cc.replace('.', '')}" if cc else "", f"driver {gpu['driver']}{cuda}"]
    return ", ".join(p for p in parts if p)


def device_named(requested: str) -> Device | None:
    """The device a run asking for `requested` (auto, cpu, cuda, cuda:N, mps) will run on,
    found without a framework; None where this machine has none such."""
    wanted = "cuda:0" if requested == "cuda" else requested
    found = list_devices()
    return found[0] if wanted == "auto" else next((d for d in found if d.id == wanted), None)
