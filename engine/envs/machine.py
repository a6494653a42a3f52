"""Read this machine's NVIDIA GPUs and driver for the choice of a framework build
(engine/envs/choice.py), from the first source that answers: NVML (nvidia-ml-py), then
`nvidia-smi`, then /proc/driver/nvidia/version (the driver alone). No framework is imported.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from engine.envs.choice import Gpu, Machine
from engine.measure.compatibility import capability
from engine.measure.probes import nvml_devices

PROC_VERSION = Path("/proc/driver/nvidia/version")
SMI_TIMEOUT_S = 20.0
# "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023"
_PROC_DRIVER = re.compile(r"Kernel Module(?: for \S+)?\s+(\d+\.\d+(?:\.\d+)?)")


def read_machine() -> Machine:
    """The GPUs and the driver, from NVML, nvidia-smi or /proc; Machine() without a driver."""
    found = nvml_devices()
    if found:
        gpus = tuple(Gpu(g["name"], capability(g.get("compute_capability"))) for g in found)
        return Machine(gpus, found[0].get("driver", ""), "NVML")
    smi = from_smi(_smi_output())
    if smi is not None:
        return smi
    return from_proc(_read(PROC_VERSION))


def from_smi(text: str | None) -> Machine | None:
    """`nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader` output
    as a Machine; None when it says nothing usable."""
    gpus, driver = [], ""
    for line in (text or "").splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 3 or not parts[0]:
            continue
        name, cc, driver = parts
        gpus.append(Gpu(name, capability(cc)))
    return Machine(tuple(gpus), driver, "nvidia-smi") if gpus else None


def from_proc(text: str | None) -> Machine:
    """The driver's version from /proc/driver/nvidia/version: no GPU names, so no compute
    capability (the choice then falls back to a CPU build and says why)."""
    match = _PROC_DRIVER.search(text or "")
    if not match:
        return Machine()
    return Machine((Gpu("an NVIDIA GPU", None),), match[1], str(PROC_VERSION))


def _smi_output() -> str | None:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        proc = subprocess.run(
            [smi, "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=SMI_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
