"""FLOPs of a Keras 3 model, counted per layer from the shapes of one forward pass.

The TensorFlow backend's twin of torch.utils.flop_counter, with the same convention: 2 FLOPs per
multiply-add, and only matrix products, convolutions and attention counted (BatchNormalization,
activations, pooling, element-wise merges and the optimizer are not; an Embedding is a lookup: 0).
Only the forward pass is counted; a training step is taken as 3x forward (the backward pass
computes the gradients of both inputs and weights: about twice the forward work). torch's counter
counts the backward that autograd really runs, which skips the input gradient of the first layer,
so for the same model it reads slightly below 3x forward.

How: every Layer call during one eager forward pass is recorded (Layer.__call__ is wrapped for
the duration of the count, then restored) with the shapes of its inputs and output. A layer type
below is counted by formula; a layer that calls other layers (a Functional model, a custom block)
is counted through them; a custom layer that calls none can say its own count by a method
`forward_flops(input_shape, output_shape) -> float`. Any other layer is listed as not counted
(its own raw ops, keras.ops.matmul say, are not seen), and the method text says so.

Counted (input/output shapes include the batch):
  Dense             2 x prod(input) x units
  EinsumDense       2 x product of the sizes of every index in its equation
  Conv1D/2D/3D      2 x prod(output) x prod(kernel_size) x input channels / groups
  ConvNDTranspose   2 x prod(input) x prod(kernel_size) x filters
  DepthwiseConvND   2 x prod(output) x prod(kernel_size)
  SeparableConvND   depthwise (as above, before the pointwise) + pointwise (1x1 convolution)
  LSTM / GRU / SimpleRNN   2 x batch x steps x gates x units x (input features + units),
                    gates 4 / 3 / 1
  MultiHeadAttention  its projections are EinsumDense layers (counted as such), plus the
                    scores and the weighted sum: 2 x batch' x heads x T x S x (key_dim + value_dim)
  Attention (dot)   2 x batch x T x S x (query features + value features)
  Dot               2 x prod(output) x the contracted size
Every formula is proportional to the batch size, so one sample's count times the batch is exact.

keras is imported inside functions only: this module is loaded in the TensorFlow worker.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.worker.frameworks.tensorflow.composition import layer_kind

# Layers in these Keras packages do no matrix product (activations, normalisation, pooling,
# reshaping, dropout/noise, preprocessing), Embedding is a lookup, InputLayer/Identity copy.
_FREE_PACKAGES = (
    "keras.src.layers.activations",
    "keras.src.layers.normalization",
    "keras.src.layers.pooling",
    "keras.src.layers.reshaping",
    "keras.src.layers.regularization",
    "keras.src.layers.preprocessing",
)
_FREE_CLASSES = {
    "Embedding",
    "InputLayer",
    "Identity",
    "Masking",
    "Add",
    "Subtract",
    "Multiply",
    "Average",
    "Maximum",
    "Minimum",
    "Concatenate",
}
_RNN_GATES = {"LSTM": 4, "GRU": 3, "SimpleRNN": 1}
Shape = tuple[int | None, ...]


@dataclass(frozen=True)
class KerasFlops:
    """The forward count of one call of a model, by layer type, and what was not counted."""

    forward_flops: float
    by_layer_type: dict[str, float] = field(default_factory=dict)
    uncounted: tuple[str, ...] = ()  # "name (Class)" of layers with compute not seen
    # By kind of layer (engine/worker/frameworks/tensorflow/composition.py layer_kind)
    by_kind: dict[str, float] = field(default_factory=dict)

    @property
    def training_step_flops(self) -> float:
        """Forward + backward, taken as 3x forward."""
        return 3.0 * self.forward_flops

    @property
    def method(self) -> str:
        text = "analytic per-layer count (Keras), forward x 3"
        if self.uncounted:
            shown = ", ".join(self.uncounted[:5]) + (", ..." if len(self.uncounted) > 5 else "")
            text += f"; not counted: {shown}"
        return text


@dataclass
class _Call:
    layer: Any
    args: Any = None
    kwargs: Any = None
    output: Any = None
    children: int = 0
    sealed: bool = False  # counted as a whole: the calls inside it are not recorded


def training_step_flops(model: Any, inputs: Any, batch_size: int) -> KerasFlops:
    """The count for a training step on a batch of `batch_size`: one sample of `inputs` (the
    first along axis 0) is counted and scaled by the batch, which is exact for every counted
    layer (each formula is proportional to the batch)."""
    import keras

    one = keras.tree.map_structure(lambda x: x[:1], inputs)
    single = count_forward(model, one)
    return KerasFlops(
        single.forward_flops * batch_size,
        {k: v * batch_size for k, v in single.by_layer_type.items()},
        single.uncounted,
        {k: v * batch_size for k, v in single.by_kind.items()},
    )


def count_forward(model: Any, inputs: Any) -> KerasFlops:
    """FLOPs of `model(inputs, training=False)`, counted per layer (runs the model once, eagerly;
    training=False so that BatchNormalization's moving statistics do not change)."""
    with _recording() as calls:
        model(inputs, training=False)
    total = 0.0
    by_type: dict[str, float] = {}
    by_kind: dict[str, float] = {}
    uncounted: list[str] = []
    for call in calls:
        flops = _layer_flops(call)
        kind = type(call.layer).__name__
        if flops is None:
            label = f"{call.layer.name} ({kind})"
            if label not in uncounted:
                uncounted.append(label)
        elif flops:
            total += flops
            by_type[kind] = by_type.get(kind, 0.0) + flops
            sort = layer_kind(call.layer) or "other"
            by_kind[sort] = by_kind.get(sort, 0.0) + flops
    return KerasFlops(total, by_type, tuple(uncounted), by_kind)


@contextlib.contextmanager
def _recording() -> Iterator[list[_Call]]:
    """Record each Layer call (layer, argument and output shapes, calls inside it) while open."""
    import keras

    base = keras.layers.Layer
    original = base.__call__
    calls: list[_Call] = []
    stack: list[_Call] = []

    def recording_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        parent = stack[-1] if stack else None
        call = _Call(self, sealed=bool(parent and parent.sealed) or _sealed(self))
        if parent is not None:
            parent.children += 1
        stack.append(call)
        try:
            out = original(self, *args, **kwargs)
        finally:
            stack.pop()
        if not (parent and parent.sealed):
            call.args, call.kwargs, call.output = _shapes(args), _shapes(kwargs), _shapes(out)
            calls.append(call)
        return out

    base.__call__ = recording_call
    try:
        yield calls
    finally:
        base.__call__ = original


def _sealed(layer: Any) -> bool:
    """Layers counted as a whole: the recurrent ones (their cell runs once per step, inside a
    loop) and those that give their own count."""
    return type(layer).__name__ in _RNN_GATES or hasattr(layer, "forward_flops")


def _shapes(structure: Any) -> Any:
    import keras

    def shape(x: Any) -> Any:
        return tuple(x.shape) if hasattr(x, "shape") and hasattr(x, "dtype") else None

    return keras.tree.map_structure(shape, structure)


def _first(call: _Call, name: str = "inputs", position: int = 0) -> Any:
    """The shape of a call's argument by position, else by keyword (None: not given)."""
    args = call.args or ()
    value = args[position] if len(args) > position else (call.kwargs or {}).get(name)
    if isinstance(value, list | tuple) and value and isinstance(value[0], tuple):
        return value[0]  # a list of tensors: the first
    return value


def _n(shape: Shape) -> int:
    """Elements in a shape (a missing dimension would make the count meaningless)."""
    if any(d is None for d in shape):
        raise ValueError(f"shape {shape} is not fully known")
    return math.prod(d for d in shape if d is not None)


def _layer_flops(call: _Call) -> float | None:
    """Forward FLOPs of one recorded call; 0 for a layer doing no matrix product (or counted
    through the layers it calls); None when this counter cannot see its work."""
    layer = call.layer
    kind = type(layer).__name__
    if hasattr(layer, "forward_flops"):
        return float(layer.forward_flops(_first(call), call.output))
    counter = _COUNTERS.get(kind) or _by_base(layer)
    if counter is not None:
        return float(counter(layer, call))
    if kind in _FREE_CLASSES or type(layer).__module__.startswith(_FREE_PACKAGES):
        return 0.0
    if call.children:
        return 0.0  # a container: its layers are counted
    return None


def _by_base(layer: Any) -> Any:
    """The counter for a layer by its Keras base class (Conv2D, DepthwiseConv1D, ...)."""
    for cls in type(layer).__mro__:
        counter = _BASE_COUNTERS.get(cls.__name__)
        if counter is not None:
            return counter
    return None


def _dense(layer: Any, call: _Call) -> float:
    return 2.0 * _n(_first(call)) * layer.units


def _einsum_dense(layer: Any, call: _Call) -> float:
    return 2.0 * einsum_macs(layer.equation, _first(call), tuple(layer.kernel.shape))


def einsum_macs(equation: str, left: Shape, right: Shape) -> int:
    """Multiply-adds of a two-operand einsum: the product of the sizes of all its indices
    (an ellipsis in the left operand stands for that operand's leading dimensions)."""
    inputs = equation.replace(" ", "").split("->")[0]
    lhs, rhs = inputs.split(",")
    sizes: dict[str, int] = {}
    for subscripts, shape in ((lhs, left), (rhs, right)):
        letters = subscripts
        if "..." in subscripts:
            fixed = len(subscripts) - 3
            extra = len(shape) - fixed
            letters = subscripts.replace("...", "".join(chr(0x100 + i) for i in range(extra)))
        for letter, size in zip(letters, shape, strict=True):
            if size is None:
                raise ValueError(f"einsum {equation}: shape {shape} is not fully known")
            sizes[letter] = size
    return math.prod(sizes.values())


def _conv(layer: Any, call: _Call) -> float:
    kernel = tuple(layer.kernel.shape)  # (*kernel_size, in_channels / groups, filters)
    return 2.0 * _n(call.output) * math.prod(kernel[:-1])


def _conv_transpose(layer: Any, call: _Call) -> float:
    kernel = tuple(layer.kernel.shape)  # (*kernel_size, filters, in_channels)
    return 2.0 * _n(_first(call)) * math.prod(kernel[:-1])


def _depthwise(layer: Any, call: _Call) -> float:
    return 2.0 * _n(call.output) * math.prod(layer.kernel_size)


def _separable(layer: Any, call: _Call) -> float:
    depthwise = tuple(layer.depthwise_kernel.shape)  # (*kernel_size, in_channels, multiplier)
    mid_channels = depthwise[-2] * depthwise[-1]
    positions = _n(call.output) // layer.filters  # batch x output positions
    return 2.0 * positions * mid_channels * (math.prod(depthwise[:-2]) + layer.filters)


def _rnn(layer: Any, call: _Call) -> float:
    batch, steps, features = _first(call, "sequences")[:3]
    gates = _RNN_GATES[type(layer).__name__]
    return 2.0 * _n((batch, steps)) * gates * layer.units * (_n((features,)) + layer.units)


def _multi_head_attention(layer: Any, call: _Call) -> float:
    query, value = _first(call, "query", 0), _first(call, "value", 1)
    key = _first(call, "key", 2) or value
    axes = layer.attention_axes or tuple(range(1, len(query) - 1))
    batch_dims = [query[i] for i in range(len(query) - 1) if i not in axes]
    t = _n(tuple(query[i] for i in axes))
    s = _n(tuple(key[i] for i in axes))
    value_dim = layer.value_dim or layer.key_dim
    return 2.0 * _n(tuple(batch_dims)) * layer.num_heads * t * s * (layer.key_dim + value_dim)


def _listed(call: _Call) -> Any:
    """The shapes of a layer called on a list of tensors (Attention, Dot)."""
    args = call.args or ((call.kwargs or {}).get("inputs"),)
    return args[0]


def _attention(layer: Any, call: _Call) -> float:
    query, value, *rest = _listed(call)
    key = rest[0] if rest else value
    batch, t, s = query[0], query[-2], key[-2]
    # Dot-product scores are a product; "concat" scores are element-wise (not counted).
    scores = query[-1] if getattr(layer, "score_mode", "dot") == "dot" else 0
    return 2.0 * _n((batch, t, s)) * (scores + value[-1])


def _dot(layer: Any, call: _Call) -> float:
    left = _listed(call)[0]
    axes = layer.axes if isinstance(layer.axes, int) else layer.axes[0]
    return 2.0 * _n(call.output) * left[axes % len(left)]


_COUNTERS = {
    "Dense": _dense,
    "EinsumDense": _einsum_dense,
    "LSTM": _rnn,
    "GRU": _rnn,
    "SimpleRNN": _rnn,
    "MultiHeadAttention": _multi_head_attention,
    "Attention": _attention,
    "Dot": _dot,
}
_BASE_COUNTERS = {
    "BaseSeparableConv": _separable,
    "BaseDepthwiseConv": _depthwise,
    "BaseConvTranspose": _conv_transpose,
    "BaseConv": _conv,
}


def describe(count: KerasFlops) -> str:
    """A few lines: the total and the share of each layer type (for logs and tests)."""
    lines = [f"forward {count.forward_flops:.4g} FLOPs"]
    for kind, flops in sorted(count.by_layer_type.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {kind:20s} {flops:.4g} ({flops / count.forward_flops:.1%})")
    if count.uncounted:
        lines.append("  not counted: " + ", ".join(count.uncounted))
    return "\n".join(lines)
