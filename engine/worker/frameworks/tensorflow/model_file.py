"""A model file's Keras side: a task from a loaded file, checked before it is timed.

Imported only inside the worker, by the TensorFlow backend and the check-model mode; never in a
process that has imported torch. The contract is in engine/worker/workloads/model_file.py.

The task has the shape of the TensorFlow backend's own tasks (keras_models.KerasTask): `model`,
`make_batch(batch_size)` (call it inside the device scope) and `loss(targets, logits)` (Keras's
order; the file's own loss(outputs, targets) is adapted to it).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

os.environ["KERAS_BACKEND"] = "tensorflow"  # before keras is imported: Keras on TensorFlow

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from engine.worker.workloads.model_file import ModelFileSpec, default_loss_help, hints  # noqa: E402


@dataclass
class KerasFileTask:
    model: keras.Model
    make_batch: Callable[[int], tuple[Any, Any]]
    loss: Callable[[Any, Any], Any]  # (targets, logits) -> scalar


def build_task(
    spec: ModelFileSpec, batch_size: int, device: str, precision: str = "fp32", seed: int = 0
) -> KerasFileTask:
    """Build the file's model (call inside the device scope, after the precision policy is set)
    and try one forward and loss on a full batch, so that a mistake shows here with its line."""
    model = spec.call(
        "build_model failed",
        spec.build_model,
        batch_size,
        hints("tensorflow", device, precision, seed),
    )
    if not isinstance(model, keras.Model):
        torch_like = type(model).__module__.split(".")[0] == "torch"
        raise spec.error(
            f"build_model returned {type(model).__name__}, not a keras.Model (keras.Sequential, "
            "a functional Model or a Model subclass)"
            + (" (a PyTorch module? use --framework torch)" if torch_like else ""),
            "build_model",
        )
    task = KerasFileTask(model, _batch_maker(spec, device), _loss(spec))
    _try_forward(spec, task, batch_size)  # also builds a subclassed model's weights
    return task


def parameter_count(model: keras.Model) -> int:
    """Trainable scalars, as torch's parameters() counts them."""
    return sum(int(np.prod(v.shape)) for v in model.trainable_weights)


def describe(spec: ModelFileSpec, batch_size: int = 2) -> dict[str, Any]:
    """What the check-model mode reports: the model built on the CPU and one training step's
    forward, loss and gradient on a small batch."""
    t0 = time.perf_counter()
    with tf.device("/CPU:0"):
        task = build_task(spec, batch_size, "cpu")
        inputs, targets = task.make_batch(batch_size)
        with tf.GradientTape() as tape:
            outputs, loss = _forward_and_loss(spec, task, inputs, targets)
        grads = spec.call("the gradient of the loss failed", tape.gradient, loss, _weights(task))
    if not any(g is not None for g in grads):
        raise spec.error(
            "the loss does not depend on the model's trainable weights (it has no gradient)",
            "loss" if spec.loss is not None else "TARGET",
        )
    return {
        "parameters": parameter_count(task.model),
        "composition": _composition(task.model, inputs, batch_size),
        "output_shape": list(outputs.shape) if hasattr(outputs, "shape") else None,
        "loss": float(loss),
        "framework_version": f"tensorflow {tf.__version__}, keras {keras.__version__}",
        "check_seconds": time.perf_counter() - t0,
    }


def _composition(model: keras.Model, inputs: Any, batch_size: int) -> dict[str, Any] | None:
    """What the model is made of: its FLOPs by kind of layer, counted as a run counts them
    (engine/worker/frameworks/tensorflow/flops.py), else its parameters by kind. A model the
    counter cannot follow (a shape it cannot read) is described by its parameters."""
    from engine.worker.frameworks.tensorflow import composition, flops

    try:
        with tf.device("/CPU:0"):
            by_kind = flops.training_step_flops(model, inputs, batch_size).by_kind
    except Exception:  # the count is a description here: the check itself has passed
        by_kind = {}
    return composition.of_model(by_kind, model)


def _weights(task: KerasFileTask) -> list[Any]:
    return list(task.model.trainable_weights)


def _batch_maker(spec: ModelFileSpec, device: str) -> Callable[[int], tuple[Any, Any]]:
    if spec.make_batch is not None:
        user = spec.wrap("make_batch failed", spec.make_batch, 2)

        def make_user_batch(batch_size: int) -> tuple[Any, Any]:
            batch = user(batch_size, device)
            if not (isinstance(batch, tuple | list) and len(batch) == 2):
                raise spec.error(
                    f"make_batch must return (inputs, targets), not {type(batch).__name__}",
                    "make_batch",
                )
            return batch[0], batch[1]

        return make_user_batch
    shape, dtype = spec.input_shape, spec.input_dtype
    vocab, target = spec.input_vocab, spec.target
    assert shape is not None and target is not None  # the loader requires them without make_batch

    def make_batch(batch_size: int) -> tuple[Any, Any]:
        size = (batch_size, *shape)
        if dtype.startswith("int"):
            x = keras.random.randint(size, 0, vocab or 1, dtype=dtype)
        else:
            x = keras.random.normal(size, dtype=dtype)
        if target.kind == "classes":
            y = keras.random.randint((batch_size,), 0, target.size, dtype="int32")
        elif target.kind == "tokens":
            y = keras.random.randint((batch_size, shape[0]), 0, target.size, dtype="int32")
        else:
            y = keras.random.normal((batch_size, target.size), dtype="float32")
        return x, y

    return make_batch


def _loss(spec: ModelFileSpec) -> Callable[[Any, Any], Any]:
    if spec.loss is not None:
        user = spec.wrap("loss(outputs, targets) failed", spec.loss, 2)
        return lambda targets, logits: user(logits, targets)
    target = spec.target
    assert target is not None  # the loader requires TARGET without a loss

    def default_loss(targets: Any, outputs: Any) -> Any:
        # Outputs come in the policy's compute dtype; the loss is taken in float32.
        logits = keras.ops.cast(outputs, "float32")
        try:
            if target.kind == "regression":
                return keras.ops.mean(keras.ops.square(logits - targets))
            return keras.ops.mean(
                keras.losses.sparse_categorical_crossentropy(targets, logits, from_logits=True)
            )
        except Exception as exc:  # Keras and TensorFlow raise several kinds for a bad shape
            raise spec.error(default_loss_help(target, outputs, exc)) from exc

    return default_loss


def _forward_and_loss(spec: ModelFileSpec, task: KerasFileTask, inputs: Any, targets: Any) -> Any:
    what = f"the model's forward failed on a batch of {_describe_input(inputs)}"
    outputs = spec.call(what, lambda x: task.model(x, training=True), inputs)
    loss = task.loss(targets, outputs)
    _check_loss(spec, loss)
    return outputs, loss


def _try_forward(spec: ModelFileSpec, task: KerasFileTask, batch_size: int) -> None:
    inputs, targets = task.make_batch(batch_size)
    _forward_and_loss(spec, task, inputs, targets)


def _describe_input(inputs: Any) -> str:
    if hasattr(inputs, "shape") and hasattr(inputs, "dtype"):
        return f"{tuple(inputs.shape)} {keras.backend.standardize_dtype(inputs.dtype)}"
    return type(inputs).__name__


def _check_loss(spec: ModelFileSpec, loss: Any) -> None:
    where = "loss" if spec.loss is not None else "TARGET"
    if not (hasattr(loss, "shape") and hasattr(loss, "dtype")):
        raise spec.error(f"the loss must be a scalar tensor, not {type(loss).__name__}", where)
    shape = tuple(loss.shape)
    if int(np.prod(shape)) != 1:
        raise spec.error(
            f"the loss must be a scalar (one number), not a tensor of shape {shape}; reduce it, "
            "e.g. with keras.ops.mean",
            where,
        )
    dtype = keras.backend.standardize_dtype(loss.dtype)
    if not dtype.startswith(("float", "bfloat")):
        raise spec.error(f"the loss must be a float tensor, not {dtype}", where)
