"""What a Keras model is made of: its counted FLOPs by kind of layer (engine/workloads/family.py),
or its parameters by kind where no FLOPs were counted.

The FLOPs come from the analytic per-layer count (engine/worker/frameworks/tensorflow/flops.py,
which sorts each counted layer by `layer_kind`): convolutions (Conv, its transposed, depthwise
and separable forms), attention (MultiHeadAttention's scores and weighted sum, Attention, Dot),
matrix products (Dense, EinsumDense: attention's projections among them), recurrent layers
(LSTM, GRU, SimpleRNN, any keras.layers.RNN) and what a custom layer counts itself (other).

Imported only in the TensorFlow worker; keras itself is not imported here.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from engine.workloads import family

# Keras classes (a layer's own or a base of it) and the kind of layer each is.
_KINDS = (
    ("recurrent", {"RNN", "LSTM", "GRU", "SimpleRNN"}),
    ("convolution", {"BaseConv", "BaseConvTranspose", "BaseDepthwiseConv", "BaseSeparableConv"}),
    (
        "attention",
        {"MultiHeadAttention", "GroupedQueryAttention", "Attention", "AdditiveAttention", "Dot"},
    ),
    ("linear", {"Dense", "EinsumDense"}),
)


def layer_kind(layer: Any) -> str | None:
    """The kind of layer `layer` is, by its class and its bases; "other" for a custom layer that
    counts its own FLOPs (forward_flops), None for one of none (a container, a normalisation)."""
    names = {cls.__name__ for cls in type(layer).__mro__}
    for kind, classes in _KINDS:
        if names & classes:
            return kind
    return "other" if hasattr(layer, "forward_flops") else None


def of_model(by_kind: dict[str, float], model: Any) -> dict[str, Any] | None:
    """The composition from the count's FLOPs by kind, else by the model's parameters."""
    return family.composition(by_kind, "flops") or by_parameters(model)


def by_parameters(model: Any) -> dict[str, Any] | None:
    """The composition by the trainable parameters each kind of layer holds (a layer of a kind
    with the layers inside it); None for a model of no such layer."""
    totals: dict[str, float] = defaultdict(float)
    seen: set[int] = set()

    def walk(layer: Any) -> None:
        if id(layer) in seen:
            return
        seen.add(id(layer))
        kind = layer_kind(layer)
        if kind is not None:
            totals[kind] += sum(_size(w.shape) for w in layer.trainable_weights)
            return
        for child in getattr(layer, "_layers", None) or []:
            walk(child)

    walk(model)
    return family.composition(totals, "parameters")


def _size(shape: Any) -> int:
    size = 1
    for dim in shape:
        size *= int(dim)
    return size
