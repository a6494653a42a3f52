"""What this PyTorch was built for (CUDA version, GPU architectures), and the check the worker
makes before it builds a model on a GPU: the rule is engine/measure/compatibility.py's.

`describe` also runs in a child process for the parent side (engine/process/builds.py), which
never imports a framework.
"""

from __future__ import annotations

import sys
from typing import Any

from engine.core.errors import RunFailed
from engine.measure.compatibility import Build, verdict


def describe(torch: Any) -> dict[str, Any]:
    """framework, version, python, cuda ("" for a CPU-only build) and archs."""
    cuda = torch.version.cuda or ""
    archs: list[str] = []
    if cuda:
        # torch 2.7's get_arch_list() is empty on a machine without a GPU; the flags it was
        # compiled with are not ("sm_50 sm_60 ... sm_90" for 2.7.1+cu126).
        flags = getattr(torch._C, "_cuda_getArchFlags", None)
        archs = (flags() or "").split() if flags else []
        archs = archs or list(torch.cuda.get_arch_list())
    return {
        "framework": "torch",
        "version": str(torch.__version__),
        "python": sys.executable,
        "cuda": cuda,
        "archs": archs,
    }


def check_gpu(torch: Any, device: Any) -> None:
    """A config failure, with the reason and the remedy, when this build has no kernels for the
    GPU (it would fail at the first kernel: "no kernel image is available")."""
    name = torch.cuda.get_device_name(device)
    cc = tuple(torch.cuda.get_device_capability(device))
    found = verdict(Build.from_dict(describe(torch)), name, (int(cc[0]), int(cc[1])))
    if not found.ok:
        raise RunFailed("config", f"device: {found.reason}. To fix: {found.remedy}")
