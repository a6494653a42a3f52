"""What a framework environment was built for, as the worker's `describe-build` command prints
it: engine/worker/frameworks/*/build.py's describe() on the imported framework, or why it would not
import."""

from __future__ import annotations

import os
import sys
from typing import Any


def describe_build(framework: str) -> dict[str, Any]:
    try:
        if framework == "torch":
            import torch

            from engine.worker.frameworks.torch.build import describe

            return describe(torch)
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf

        from engine.worker.frameworks.tensorflow.build import describe as describe_tf

        return describe_tf(tf)
    except Exception as exc:  # an environment without it, or a broken install: said, not raised
        error = f"{type(exc).__name__}: {exc}"
        return {"framework": framework, "python": sys.executable, "error": error}
