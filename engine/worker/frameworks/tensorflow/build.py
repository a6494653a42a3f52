"""What this TensorFlow was built for (CUDA version, GPU architectures), and the check the
worker makes before it builds a model on a GPU: the rule is engine/measure/compatibility.py's.

`describe` also runs in a child process for the parent side (engine/process/builds.py), which
never imports a framework.
"""

from __future__ import annotations

import sys
from typing import Any

from engine.core.errors import RunFailed
from engine.measure.compatibility import Build, verdict


def describe(tf: Any) -> dict[str, Any]:
    """framework, version, python, cuda ("" for a CPU-only build, tensorflow-cpu) and archs."""
    info = dict(tf.sysconfig.get_build_info())
    cuda = str(info.get("cuda_version") or "") if info.get("is_cuda_build") else ""
    return {
        "framework": "tensorflow",
        "version": str(tf.__version__),
        "python": sys.executable,
        "cuda": cuda,
        "archs": [str(a) for a in info.get("cuda_compute_capabilities") or []] if cuda else [],
    }


def check_gpu(tf: Any, gpu: int) -> None:
    """A config failure, with the reason and the remedy, when this build cannot run on the
    chosen GPU (TensorFlow's index `gpu`)."""
    device = tf.config.list_physical_devices("GPU")[gpu]
    details = tf.config.experimental.get_device_details(device)
    cc = details.get("compute_capability")
    name = details.get("device_name") or f"GPU {gpu}"
    capability = (int(cc[0]), int(cc[1])) if cc else None
    found = verdict(Build.from_dict(describe(tf)), name, capability)
    if capability is not None and not found.ok:
        raise RunFailed("config", f"device: {found.reason}. To fix: {found.remedy}")
