"""The worker's check-model mode: load a model file, build it, try one step, say what it is.

`python -m engine.worker check-model --model-file PATH [--framework F]` writes `phase` events
(importing, building), then one last JSON object: either

    {"type": "model", "name", "framework", "path", "sha256", "parameters", "input_shape",
     "input_dtype", "input_vocab", "target": {"kind", "size"} | null, "epoch_samples", "epoch_unit",
     "epoch_samples_declared", "custom_batch", "custom_loss", "check_batch_size",
     "output_shape", "loss", "framework_version", "check_seconds", "composition",
     "family": {"name", "why", "source", "stated"}}

or a `failed` event (kind config, framework or crashed) with two more keys: "line" (1-based,
in the user's file, or null) and "code" (that line's text). The client is
engine/process/model_check.py.
"""

from __future__ import annotations

import importlib
import json
import traceback
from collections.abc import Callable
from typing import Any

from engine.core.events import Failed, Phase, json_safe
from engine.worker.workloads.file_workload import workload_of
from engine.workloads.family import decide
from engine.workloads.model_file_source import guess_framework

CHECK_RUN_ID = "check-model"
_MODULES = {
    "torch": "engine.worker.frameworks.torch.model_file",
    "tensorflow": "engine.worker.frameworks.tensorflow.model_file",
}


def check(path: str, framework: str | None, batch_size: int, emit: Callable[[str], None]) -> None:
    """Run the check, writing each JSON line through `emit`."""
    framework = framework or guess_framework(path)
    emit(Phase(run_id=CHECK_RUN_ID, phase="importing", detail=framework).to_json())
    try:
        module = importlib.import_module(_MODULES[framework])
    except ImportError as exc:
        from engine.worker.workloads.model_file_errors import where_to_install

        message = f"{framework} is not usable here: {exc} ({where_to_install()})"
        emit(_failed("framework", message, traceback.format_exc()))
        return
    emit(Phase(run_id=CHECK_RUN_ID, phase="building", detail=path).to_json())
    from engine.worker.workloads.model_file import load
    from engine.worker.workloads.model_file_errors import ModelFileError

    try:
        spec = load(path, framework)
        found = module.describe(spec, batch_size)
    except ModelFileError as exc:
        emit(_failed("config", exc.detail, exc.traceback, exc.line, exc.code))
        return
    except Exception as exc:  # a failure of ours or of the framework, not of the file
        message = f"{type(exc).__name__}: {exc}"
        emit(_failed("framework", message, traceback.format_exc()))
        return
    workload = workload_of(spec)
    info: dict[str, Any] = {
        "type": "model",
        "name": spec.name,
        "framework": framework,
        "path": spec.path,
        "sha256": spec.source.sha256,
        "input_shape": list(spec.input_shape) if spec.input_shape else None,
        "input_dtype": spec.input_dtype if spec.make_batch is None else None,
        "input_vocab": spec.input_vocab,
        "target": {"kind": spec.target.kind, "size": spec.target.size} if spec.target else None,
        "epoch_samples": workload.epoch_samples,
        "epoch_unit": workload.epoch_unit,
        "epoch_samples_declared": spec.epoch_samples is not None,
        "custom_batch": spec.make_batch is not None,
        "custom_loss": spec.loss is not None,
        "check_batch_size": batch_size,
        **found,
    }
    # What the model is made of (its FLOPs' shares by kind of layer), and the family a
    # projection to another GPU will use: engine/workloads/family.py.
    chosen = decide(spec.family, found.get("composition"))
    info["family"] = {
        "name": chosen.name,
        "why": chosen.why,
        "source": chosen.source,
        "stated": spec.family or None,
    }
    emit(json.dumps(json_safe(info), allow_nan=False))


def _failed(kind: str, message: str, tb: str = "", line: int | None = None, code: str = "") -> str:
    event = Failed(run_id=CHECK_RUN_ID, kind=kind, message=message, traceback=tb)
    return json.dumps({**event.to_dict(), "line": line, "code": code})
