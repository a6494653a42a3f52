"""Framework log noise off before a framework is imported: set by the worker as it starts
(engine/worker/main.py) and by the fork server before its import (engine/worker/forkserver.py),
so that a forked worker's framework was imported as a fresh worker's was. The CLI's --verbose
(EPOCHCOST_VERBOSE) lifts it. Only the standard library here: the fork server imports nothing
else of the engine."""

from __future__ import annotations

import os


def before_import() -> None:
    """TensorFlow's C++ log level (read as it is imported), unless the user set one. Keras's
    backend is set where Keras is imported (engine/worker/frameworks/tensorflow/runtime.py).
    TF_ENABLE_ONEDNN_OPTS is left as the user has it: TensorFlow's default (oneDNN on, on x86)
    trained ResNet-18 1.5-2x faster on our CPU than with it off, and that default is what a
    user of TensorFlow pays for."""
    if not os.environ.get("EPOCHCOST_VERBOSE"):
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
