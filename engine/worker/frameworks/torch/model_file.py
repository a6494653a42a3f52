"""A model file's PyTorch side: a TorchTask from a loaded file, checked before it is timed.

Imported only inside the worker (by the torch backend and the check-model mode). The contract
is in engine/worker/workloads/model_file.py.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from engine.worker.frameworks.torch.composition import counted
from engine.worker.frameworks.torch.models import TorchTask, parameter_count
from engine.worker.workloads.model_file import ModelFileSpec, default_loss_help, hints

_DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float64": torch.float64,
    "int32": torch.int32,
    "int64": torch.int64,
}


def build_task(
    spec: ModelFileSpec,
    batch_size: int,
    device: torch.device,
    precision: str = "fp32",
    seed: int = 0,
    autocast: Callable[[], Any] = contextlib.nullcontext,
) -> TorchTask:
    """Build the file's model on `device` and try one forward and loss on a full batch, so that
    a mistake shows here, with its line, rather than as a framework error in the first step."""
    model = spec.call(
        "build_model failed",
        spec.build_model,
        batch_size,
        hints("torch", str(device), precision, seed),
    )
    if not isinstance(model, nn.Module):
        raise spec.error(
            f"build_model returned {type(model).__name__}, not a torch.nn.Module"
            + (" (a Keras model? use --framework tensorflow)" if _is_keras(model) else ""),
            "build_model",
        )
    model = model.to(device)
    task = TorchTask(
        model,
        _batch_maker(spec),
        _loss(spec),
        image_input=spec.input_shape is not None
        and len(spec.input_shape) == 3
        and spec.input_dtype in ("float32", "float16", "bfloat16", "float64"),
    )
    model.train()
    _try_step(spec, task, batch_size, device, autocast, backward=False)
    return task


def describe(spec: ModelFileSpec, batch_size: int = 2) -> dict[str, Any]:
    """What the check-model mode reports: the model built on the CPU and one training step's
    forward, loss and backward on a small batch."""
    t0 = time.perf_counter()
    device = torch.device("cpu")
    task = build_task(spec, batch_size, device)
    with counted(task.model) as count:  # what the model is made of, by its FLOPs
        outputs, loss = _try_step(spec, task, batch_size, device, contextlib.nullcontext, True)
    return {
        "parameters": parameter_count(task.model),
        "composition": count.composition,
        "output_shape": list(outputs.shape) if isinstance(outputs, torch.Tensor) else None,
        "loss": float(loss.detach().float()),
        "framework_version": f"torch {torch.__version__}",
        "check_seconds": time.perf_counter() - t0,
    }


def _is_keras(model: Any) -> bool:
    return type(model).__module__.split(".")[0] in ("keras", "tensorflow", "tf_keras")


def _batch_maker(spec: ModelFileSpec) -> Callable[[int, torch.device], tuple[Any, Any]]:
    if spec.make_batch is not None:
        user = spec.wrap("make_batch failed", spec.make_batch, 2)

        def make_user_batch(batch_size: int, device: torch.device) -> tuple[Any, Any]:
            batch = user(batch_size, device)
            if not (isinstance(batch, tuple | list) and len(batch) == 2):
                raise spec.error(
                    f"make_batch must return (inputs, targets), not {type(batch).__name__}",
                    "make_batch",
                )
            return batch[0], batch[1]

        return make_user_batch
    shape, dtype = spec.input_shape, _DTYPES[spec.input_dtype]
    vocab, target = spec.input_vocab, spec.target
    assert shape is not None and target is not None  # the loader requires them without make_batch

    def make_batch(batch_size: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        size = (batch_size, *shape)
        if dtype.is_floating_point:
            x = torch.randn(size, dtype=dtype, device=device)
        else:
            x = torch.randint(0, vocab or 1, size, dtype=dtype, device=device)
        if target.kind == "classes":
            y = torch.randint(0, target.size, (batch_size,), device=device)
        elif target.kind == "tokens":
            y = torch.randint(0, target.size, (batch_size, shape[0]), device=device)
        else:
            y = torch.randn(batch_size, target.size, device=device)
        return x, y

    return make_batch


def _loss(spec: ModelFileSpec) -> Callable[[Any, Any], torch.Tensor]:
    if spec.loss is not None:
        return spec.wrap("loss(outputs, targets) failed", spec.loss, 2)
    target = spec.target
    assert target is not None  # the loader requires TARGET without a loss

    def default_loss(outputs: Any, targets: torch.Tensor) -> torch.Tensor:
        try:
            if target.kind == "regression":
                return nn.functional.mse_loss(outputs, targets)
            if target.kind == "tokens":
                outputs = outputs.reshape(-1, outputs.shape[-1])
                targets = targets.reshape(-1)
            return nn.functional.cross_entropy(outputs, targets)
        except (RuntimeError, ValueError, AttributeError, IndexError, TypeError) as exc:
            raise spec.error(default_loss_help(target, outputs, exc)) from exc

    return default_loss


def _try_step(
    spec: ModelFileSpec,
    task: TorchTask,
    batch_size: int,
    device: torch.device,
    autocast: Callable[[], Any],
    backward: bool,
) -> tuple[Any, torch.Tensor]:
    """One forward and loss (and backward) on a batch; a clear error for what goes wrong."""
    inputs, targets = task.make_batch(batch_size, device)
    with autocast():
        what = f"the model's forward failed on a batch of {_describe_input(spec, inputs)}"
        outputs = spec.call(what, task.model, inputs)
        loss = task.loss(outputs, targets)
    _check_loss(spec, loss)
    if backward:
        spec.call("backward through the loss failed", loss.backward)
    return outputs, loss


def _describe_input(spec: ModelFileSpec, inputs: Any) -> str:
    if isinstance(inputs, torch.Tensor):
        return f"{tuple(inputs.shape)} {str(inputs.dtype).removeprefix('torch.')}"
    return type(inputs).__name__


def _check_loss(spec: ModelFileSpec, loss: Any) -> None:
    where = "loss" if spec.loss is not None else "TARGET"
    if not isinstance(loss, torch.Tensor):
        raise spec.error(f"the loss must be a scalar tensor, not {type(loss).__name__}", where)
    if loss.numel() != 1:
        raise spec.error(
            f"the loss must be a scalar (one number), not a tensor of shape {tuple(loss.shape)}; "
            "reduce it, e.g. with .mean()",
            where,
        )
    if not loss.is_floating_point():
        raise spec.error(f"the loss must be a float tensor, not {loss.dtype}", where)
    if not loss.requires_grad:
        raise spec.error(
            "the loss does not depend on the model's trainable parameters (it has no gradient)",
            where,
        )
