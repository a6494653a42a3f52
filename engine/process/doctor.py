"""`epochcost doctor`: the machine, its NVIDIA GPUs and driver, each framework environment (the
app's own and the one chosen for runs), and whether each can train on each GPU, with what to do
where not. `for_gpu` answers the same for a GPU that is not here, from the catalog.

Builds are read in child processes (engine/process/builds.py); the rule is
engine/measure/compatibility.py's.
"""

from __future__ import annotations

import platform
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import psutil

from engine.measure import environment
from engine.measure.compatibility import Build, capability, driver_cuda, verdict
from engine.measure.devices import Device
from engine.measure.probes import nvml_devices
from engine.process import environments
from engine.process.builds import read_build
from engine.process.interpreter import FRAMEWORK_MODULES
from engine.process.launcher import WorkerSpec


@dataclass(frozen=True)
class Environment:
    """One framework environment: its build, and whether runs of that framework use it."""

    build: Build
    # the app's own Python (else one chosen in Settings or made by `epochcost env create`)
    own: bool
    used: bool  # runs of this framework go to it

    def to_dict(self) -> dict[str, Any]:
        b = self.build
        return {
            "framework": b.framework,
            "version": b.version,
            "cuda": b.cuda,
            "archs": list(b.archs),
            "python": b.python,
            "own": self.own,
            "used_for_runs": self.used,
            **({"error": b.error} if b.error else {}),
        }


@dataclass(frozen=True)
class Gpu:
    name: str
    compute_capability: str  # "6.1"; "" unknown
    driver: str = ""  # "535.104.05"; "" unknown (for a GPU not here: as given)
    driver_cuda: str = ""  # the highest CUDA the driver runs ("12.2")
    index: int | None = None  # NVML's, for a GPU here
    source: str = "NVML"  # or "catalog"


def read_environments() -> list[Environment]:
    """Per framework: the app's own environment, and the one chosen for its runs if another."""
    chosen = environments.load()
    wanted: list[tuple[str, WorkerSpec, bool, bool]] = []
    for framework in FRAMEWORK_MODULES:
        other = chosen.get(framework)
        wanted.append((framework, WorkerSpec(), True, other is None))
        if other is not None:
            wanted.append((framework, WorkerSpec(python=other), False, True))
    with ThreadPoolExecutor(max_workers=2) as pool:
        builds = list(pool.map(lambda w: read_build(w[0], w[1]), wanted))
    return [
        Environment(build, own, used)
        for build, (_, _, own, used) in zip(builds, wanted, strict=True)
    ]


def gpus_here() -> list[Gpu]:
    return [
        Gpu(
            g["name"],
            g.get("compute_capability", ""),
            g.get("driver", ""),
            g.get("driver_cuda", ""),
            g["index"],
        )
        for g in nvml_devices()
    ]


def gpu_of(device: Device) -> Gpu:
    """A listed CUDA device (engine/measure/devices.py) as doctor judges it."""
    index = int(device.id.partition(":")[2] or 0)
    return Gpu(device.name, device.compute_capability, device.driver, device.driver_cuda, index)


def assess(gpu: Gpu, envs: list[Environment]) -> dict[str, Any]:
    """The GPU and, per environment, whether it can train there and what to do if not."""
    runs = capability(gpu.driver_cuda) or driver_cuda(gpu.driver)
    rows = []
    for env in envs:
        found = verdict(env.build, gpu.name, capability(gpu.compute_capability), gpu.driver, runs)
        rows.append({**env.to_dict(), **found.to_dict()})
    for row in rows:  # the app's own cannot, but the one chosen for runs can: nothing to do
        used = [r for r in rows if r["framework"] == row["framework"] and r["used_for_runs"]]
        if not row["ok"] and not row["used_for_runs"] and used and used[0]["ok"]:
            row["remedy"] = f"none needed: runs use {used[0]['python']}, which can"
    return {
        "gpu": gpu.name,
        "index": gpu.index,
        "source": gpu.source,
        "compute_capability": gpu.compute_capability,
        "driver": gpu.driver,
        "driver_cuda": "{}.{}".format(*runs) if runs else "",
        "frameworks": rows,
    }


def machine() -> dict[str, Any]:
    from engine import __version__

    return {
        "os": f"{platform.system()} {platform.release()} {platform.machine()}",
        "cpu": environment.cpu_name(),
        "logical_cores": psutil.cpu_count(),
        "python": sys.version.split()[0],
        "epochcost": __version__,
    }


def diagnose() -> dict[str, Any]:
    """This machine: its GPUs, its environments, and each pairing's verdict."""
    envs = read_environments()
    return {
        "machine": machine(),
        "environments": [e.to_dict() for e in envs],
        "gpus": [assess(gpu, envs) for gpu in gpus_here()],
    }


def for_gpu(name: str, compute_capability: str, driver: str = "") -> dict[str, Any]:
    """A GPU that is not here (from the catalog), against this machine's environments."""
    gpu = Gpu(name, compute_capability, driver, source="catalog")
    return assess(gpu, read_environments())
