"""Does a planned run fit on its GPUs? Model states (weights, gradients, optimizer state) and an
estimate of the batch's activations, against the GPU's memory.

Model states per parameter, as Rajbhandari et al. 2020 count them ("ZeRO: Memory Optimizations
Toward Training Trillion Parameter Models", arXiv:1910.02054, section 3.1):
    fp32 / tf32:  weights 4 B + gradients 4 B + optimizer state
    fp16 / bf16 (mixed precision): weights 2 B + gradients 2 B + optimizer state, which holds
                  an fp32 master copy of the weights (4 B) besides its own moments
    optimizer state: Adam and AdamW 8 B (two fp32 moments), SGD with momentum 4 B, plain SGD 0
So Adam costs 16 B a parameter at either precision (ZeRO's "16 Psi").
Activations of a transformer (Korthikanti et al. 2022, "Reducing Activation Recomputation in
Large Transformer Models", arXiv:2205.05198, section 4.1): s b h (34 + 5 a s / h) bytes a layer
at 16 bits, s the context, b the batch, h the width, a the heads. The second term is the
attention-score matrix, which fused attention (FlashAttention) does not keep, so 34 s b h a
layer is taken; twice that at fp32. Without layers, context, width and a batch the activations
are not estimated and the check says so. The framework's own workspace (CUDA context, allocator
fragmentation, often 1 to 2 GB) is not counted: a run that needs most of the memory may not fit.
With sharding (ZeRO-3, FSDP) the model states divide over the GPUs; each GPU keeps its own
batch's activations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.core.errors import ConfigError

GB = 1e9  # GPU memory is sold in GB
OPTIMIZERS = ("adam", "adamw", "sgd-momentum", "sgd")
OPTIMIZER_BYTES = {"adam": 8.0, "adamw": 8.0, "sgd-momentum": 4.0, "sgd": 0.0}
OPTIMIZER_NAMES = {"adam": "Adam", "adamw": "AdamW", "sgd-momentum": "SGD momentum", "sgd": "SGD"}
MIXED = ("fp16", "bf16")
ACTIVATION_BYTES_16BIT = 34.0  # per token, per unit of width, per layer (Korthikanti et al.)


@dataclass(frozen=True)
class Shape:
    """What the activation estimate needs; any None leaves activations out."""

    layers: int | None = None
    seq_len: int | None = None
    width: int | None = None
    batch: int | None = None  # sequences per GPU per step

    @property
    def complete(self) -> bool:
        return None not in (self.layers, self.seq_len, self.width, self.batch)


@dataclass(frozen=True)
class MemoryCheck:
    """Bytes (GB) a run needs on each GPU against what one holds, and the verdict in words."""

    weights_gb: float
    gradients_gb: float
    optimizer_gb: float
    activations_gb: float | None
    need_gb: float  # on one GPU: the model states over `count` GPUs (sharded) + activations
    device_gb: float | None
    count: int
    fits: bool | None  # None: the GPU's memory is unknown
    gpus_needed: int | None  # sharded over this many, the model states fit (None: unknown)
    text: str
    basis: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "weights_gb": self.weights_gb,
            "gradients_gb": self.gradients_gb,
            "optimizer_gb": self.optimizer_gb,
            "activations_gb": self.activations_gb,
            "need_gb": self.need_gb,
            "device_gb": self.device_gb,
            "count": self.count,
            "fits": self.fits,
            "gpus_needed": self.gpus_needed,
            "text": self.text,
            "basis": self.basis,
        }


def check_optimizer(optimizer: str) -> str:
    if optimizer not in OPTIMIZERS:
        raise ConfigError("optimizer", f"{optimizer!r} is not one of {', '.join(OPTIMIZERS)}")
    return optimizer


def _gb(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def check(
    params: float,
    precision: str,
    optimizer: str,
    shape: Shape,
    device_gb: float | None,
    count: int = 1,
) -> MemoryCheck:
    """The memory a run of `params` parameters needs on each of `count` GPUs of `device_gb`."""
    check_optimizer(optimizer)
    mixed = precision in MIXED
    weights = params * (2.0 if mixed else 4.0) / GB
    gradients = weights
    optimizer_gb = params * (OPTIMIZER_BYTES[optimizer] + (4.0 if mixed else 0.0)) / GB
    states = weights + gradients + optimizer_gb
    activations = None
    if shape.complete:
        assert shape.layers and shape.seq_len and shape.width and shape.batch
        per = ACTIVATION_BYTES_16BIT * (1.0 if mixed else 2.0)
        activations = shape.layers * shape.seq_len * shape.width * shape.batch * per / GB
    need = states / count + (activations or 0.0)
    name = OPTIMIZER_NAMES[optimizer]
    parts = (
        f"weights {_gb(weights)}, gradients {_gb(gradients)}, {name} state {_gb(optimizer_gb)}"
        + (f", activations {_gb(activations)} for a batch of {shape.batch}" if activations else "")
    )
    basis = (
        f"{'mixed precision' if mixed else precision}, {name}: "
        f"{(weights + gradients + optimizer_gb) * GB / params:g} bytes a parameter (ZeRO, "
        "Rajbhandari et al. 2020)"
        + (
            "; activations 34 x context x width x batch bytes a layer at 16 bits "
            "(Korthikanti et al. 2022, fused attention)"
            if activations
            else "; activations not estimated (give layers, context, width and a batch size)"
        )
        + "; the framework's own workspace not counted"
    )
    sharded = f" each, sharded over {count} GPUs" if count > 1 else ""
    if device_gb is None:
        text = f"needs about {_gb(need)} GB{sharded} ({parts}); the GPU's memory is unknown"
        return MemoryCheck(
            weights, gradients, optimizer_gb, activations, need, None, count, None, None, text,
            basis,
        )  # fmt: skip
    room = device_gb - (activations or 0.0)
    # Sharded over this many, the model states fit beside the batch's activations (beside
    # none, when the activations alone fill the GPU and must shrink first).
    needed = math.ceil(states / (room if room > 0 else device_gb))
    fits = need <= device_gb
    if fits:
        text = f"fits in {_gb(device_gb)} GB: needs about {_gb(need)} GB{sharded} ({parts})"
    else:
        text = f"does not fit in {_gb(device_gb)} GB: needs about {_gb(need)} GB{sharded}"
        advice = []
        if activations and room <= 0:
            advice.append("a smaller batch or activation checkpointing")
        if needed > count:
            advice.append(f"{needed} GPUs with sharding (ZeRO-3, FSDP) or a smaller model")
        text += f"; use {' and '.join(advice)} ({parts})"
    return MemoryCheck(
        weights, gradients, optimizer_gb, activations, need, device_gb, count, fits, needed, text,
        basis,
    )  # fmt: skip
