"""Before a framework environment is made, the question; after a cancel, where its downloads
are.

"Make a PyTorch environment for this machine…" downloads gigabytes. It first says what it read
(the GPU, its compute capability, the driver), what it will install from where and why (the
build engine/envs/choice.py picked), about how much it downloads, and where the environment
goes, and waits for a yes. A cancel removes the environment's folder (engine/envs/create.py),
but what the installer downloaded stays in its cache, shared by every environment it makes:
the status says where that cache is and how large it is now, and how to empty it.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from engine.envs.choice import Choice, Machine
from engine.measure.compatibility import LABELS, sm

# About what each build downloads, in GB, the worker's own packages included (measured with
# uv on Linux x86_64: a CUDA build of PyTorch or TensorFlow brings NVIDIA's CUDA libraries,
# about 2 GB of the 3; PyPI has no CPU-only PyTorch for Linux, so its build is the CUDA one).
DOWNLOAD_GB = {
    ("torch", "cuda"): 3.0,
    ("torch", "cpu"): 0.3,  # PyTorch's own index, CPU build
    ("torch", "pypi"): 3.0,
    ("tensorflow", "cuda"): 3.0,
    ("tensorflow", "cpu"): 0.4,
}


def download_gb(choice: Choice) -> float:
    """About how many GB installing `choice` downloads."""
    pypi = choice.framework == "torch" and choice.index_url is None
    return DOWNLOAD_GB[(choice.framework, "pypi" if pypi else choice.device)]


def machine_text(machine: Machine) -> str:
    """What was read: "NVIDIA GeForce GTX 1080 Ti (sm_61), driver 550.54.14 (NVML)"."""
    if not machine.gpus:
        return "no NVIDIA GPU" + (f" (driver {machine.driver})" if machine.driver else "")
    gpus = ", ".join(
        g.name + (f" ({sm(g.compute_capability)})" if g.compute_capability else "")
        for g in machine.gpus
    )
    driver = f", driver {machine.driver}" if machine.driver else ", no driver"
    return f"{gpus}{driver} (read from {machine.source})"


def question(choice: Choice, machine: Machine, target: Path) -> str:
    """The confirmation's text: what was read, what is installed from where and why, about
    how large, where."""
    source = choice.index_url or "PyPI"
    size = f"a download of about {download_gb(choice):g} GB"
    fallback = choice.fallback
    if fallback is not None and choice.index_url:
        other = download_gb(fallback)
        more = f", about {other:g} GB" if other != download_gb(choice) else ""
        size += f" ({fallback.label} from PyPI{more} where {source} cannot be reached)"
    return "\n\n".join(
        [
            f"Read here: {machine_text(machine)}.",
            f"It will install {choice.label}: {', '.join(choice.packages)} from {source}, "
            "and the packages epochcost's worker needs.",
            f"Why this build: {choice.reason}.",
            f"Size: {size}. It takes minutes; the button under it cancels.",
            f"Where: {target}.",
        ]
    )


class MakeQuestion(QMessageBox):
    """The question asked before an environment is made; `make` starts it, `cancel` not."""

    def __init__(
        self, framework: str, choice: Choice, machine: Machine, target: Path, parent: QWidget
    ) -> None:
        super().__init__(parent)
        self.setObjectName(f"make_env_question_{framework}")
        self.setIcon(QMessageBox.Icon.Question)
        self.setWindowTitle(f"Make a {LABELS[framework]} environment")
        self.setText(f"Make a {LABELS[framework]} environment for this machine?")
        self.setInformativeText(question(choice, machine, target))
        self.make: QPushButton = self.addButton("Make it", QMessageBox.ButtonRole.AcceptRole)
        self.cancel: QPushButton = self.addButton(QMessageBox.StandardButton.Cancel)
        self.setDefaultButton(self.cancel)


@dataclass(frozen=True)
class Cache:
    """An installer's download cache: whose, where, how many bytes it holds now."""

    installer: str  # uv | pip
    path: Path
    size_bytes: int

    def cancelled_text(self) -> str:
        empty = "uv cache clean" if self.installer == "uv" else "pip cache purge"
        return (
            f"Cancelled: the environment's folder is removed. What was downloaded stays in "
            f"{self.installer}'s cache, {self.path} ({self.size_bytes / 1e9:.1f} GB now, "
            f"shared with other environments); `{empty}` empties it."
        )


def installer_cache(uv: str | None) -> Cache | None:
    """Where the installer the environment was made with keeps its downloads, and how large
    that folder is (None: it cannot be told). Walks the folder: seconds for a large cache, so
    on a background job."""
    if uv is not None:
        try:
            out = subprocess.run(
                [uv, "cache", "dir"], capture_output=True, text=True, timeout=30, check=True
            )
        except (OSError, subprocess.SubprocessError):
            return None
        installer, path = "uv", Path(out.stdout.strip())
    else:  # pip's default, as `pip cache dir` gives it on Linux
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        installer, path = "pip", Path(os.environ.get("PIP_CACHE_DIR") or Path(base) / "pip")
    return Cache(installer, path, folder_bytes(path))


def folder_bytes(path: Path) -> int:
    """The bytes of the files under `path` (links not followed; 0 where there is none)."""
    total = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total
