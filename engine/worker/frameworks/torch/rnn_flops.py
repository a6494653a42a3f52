"""FLOPs of the nn.LSTM calls that torch.utils.flop_counter does not see.

PyTorch's counter counts nn.RNN and nn.GRU (they run as matmuls it sees) but nn.LSTM runs as
one fused aten op it has no formula for, and counts 0. For each LSTM call that added nothing
to the counter, this adds the same analytic count the counter gives RNN and GRU, and
engine/worker/frameworks/tensorflow/flops.py gives Keras's LSTM:

    forward = 2 x batch x steps x 4 gates x hidden x (input features + hidden), per layer
              and direction (a layer above the first reads hidden x directions features)
    training step = 3 x forward (the backward pass is twice the forward)

Projections (proj_size) are not modelled: such an LSTM is counted without them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

LSTM_GATES = 4
TRAINING_FACTOR = 3  # forward + backward (2 x forward)


def lstm_forward_flops(
    batch: int, steps: int, input_size: int, hidden: int, layers: int, directions: int
) -> int:
    total = 0
    features = input_size
    for _ in range(layers):
        total += 2 * batch * steps * LSTM_GATES * hidden * (features + hidden) * directions
        features = hidden * directions
    return total


def _batch_and_steps(module: Any, x: Any) -> tuple[int, int]:
    if getattr(x, "data", None) is not None and hasattr(x, "batch_sizes"):  # PackedSequence
        sizes = x.batch_sizes
        return int(sizes[0]), int(sizes.sum()) // max(int(sizes[0]), 1)
    if x.dim() == 2:  # unbatched: (steps, features)
        return 1, int(x.shape[0])
    if module.batch_first:
        return int(x.shape[0]), int(x.shape[1])
    return int(x.shape[1]), int(x.shape[0])


@contextmanager
def uncounted_lstm_flops(model: Any, counted: Callable[[], int]) -> Iterator[list[int]]:
    """While open, every nn.LSTM call in `model` that `counted()` (the counter's running
    total) did not grow for adds its analytic training-step FLOPs to the yielded list."""
    import torch

    missing: list[int] = []
    handles = []
    before: dict[int, int] = {}

    def pre(module: Any, args: tuple[Any, ...]) -> None:
        before[id(module)] = counted()

    def post(module: Any, args: tuple[Any, ...], output: Any) -> None:
        if counted() != before.pop(id(module), None):
            return  # the counter saw this call (a future PyTorch may count LSTM itself)
        batch, steps = _batch_and_steps(module, args[0])
        forward = lstm_forward_flops(
            batch,
            steps,
            module.input_size,
            module.hidden_size,
            module.num_layers,
            2 if module.bidirectional else 1,
        )
        missing.append(TRAINING_FACTOR * forward)

    for sub in model.modules():
        if isinstance(sub, torch.nn.LSTM):
            handles.append(sub.register_forward_pre_hook(pre))
            handles.append(sub.register_forward_hook(post))
    try:
        yield missing
    finally:
        for handle in handles:
            handle.remove()
