"""FLOPs of a PyTorch training step, and what the model is made of: its FLOPs by kind of layer.

One count, torch.utils.flop_counter's (matrix products, convolutions and attention at 2 FLOPs
per multiply-add) plus the nn.LSTM calls it does not see
(engine/worker/frameworks/torch/rnn_flops.py), shared out into the kinds of
engine/workloads/family.py:

- by operator: convolutions (aten.convolution and its backward); attention (scaled dot-product
  attention's kernels, and batched matrix products, aten.bmm/baddbmm, which attention written
  by hand runs); the other matrix products (aten.mm/addmm: linear layers, attention's
  projections);
- by module: whatever an nn.RNN, nn.GRU or nn.LSTM (or an RNN cell) ran is recurrent, forward and
  backward (the counter attributes each operator to the modules it ran in).

Where the counter counted nothing, the shares are of the parameters held by convolutions,
attention, linear and recurrent modules instead.

Imported only in the worker: by the torch session and the check-model mode.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from engine.worker.frameworks.torch.rnn_flops import uncounted_lstm_flops
from engine.workloads import family


@dataclass
class StepCount:
    """What `counted` found, once its block has ended."""

    total: float = 0.0  # FLOPs of what ran in the block
    composition: dict[str, Any] | None = None  # engine/workloads/family.py composition()


@contextmanager
def counted(model: Any) -> Iterator[StepCount]:
    """Count the FLOPs of what runs in the block (a forward of `model`, a loss, a backward);
    when the block ends, the yielded StepCount holds the total and the model's composition."""
    from torch.utils.flop_counter import FlopCounterMode

    count = StepCount()
    counter = FlopCounterMode(display=False)
    with counter, uncounted_lstm_flops(model, counter.get_total_flops) as lstm:
        yield count
    count.total = float(counter.get_total_flops() + sum(lstm))
    found = by_flops(model, counter.get_flop_counts(), float(sum(lstm)))
    count.composition = found or by_parameters(model)


def op_kind(op: Any) -> str:
    """The kind of layer an operator the counter counts belongs to (not knowing the module)."""
    name = str(getattr(op, "__name__", op)).removeprefix("aten.").split(".")[0]
    if "conv" in name:
        return "convolution"
    if "attention" in name or name in ("bmm", "baddbmm"):
        return "attention"
    return "linear"


def by_flops(
    model: Any, counts: dict[str, dict[Any, int]], lstm_flops: float = 0.0
) -> dict[str, Any] | None:
    """The composition from the counter's counts (module name -> operator -> FLOPs, "Global"
    the whole) and the LSTM FLOPs it missed; None where nothing was counted."""
    totals: dict[str, float] = defaultdict(float)
    for op, flops in counts.get("Global", {}).items():
        totals[op_kind(op)] += flops
    for name in recurrent_names(model):
        for op, flops in counts.get(name, {}).items():
            totals[op_kind(op)] -= flops
            totals["recurrent"] += flops
    totals["recurrent"] += lstm_flops
    return family.composition(totals, "flops")


def recurrent_names(model: Any) -> list[str]:
    """The counter's names (torch.utils.module_tracker: the root's class name, then the
    attribute path) of the recurrent modules in `model`, none inside another."""
    root = type(model).__name__
    found: list[str] = []
    for path, module in model.named_modules():
        name = f"{root}.{path}" if path else root
        if module_kind(module) == "recurrent" and not any(name.startswith(f + ".") for f in found):
            found.append(name)
    return found


def module_kind(module: Any) -> str | None:
    """The kind of layer a module is, by its class; None for one of none (a container, a
    normalisation, an embedding's lookup)."""
    from torch import nn

    if isinstance(module, nn.RNNBase | nn.RNNCellBase):
        return "recurrent"
    if isinstance(module, nn.modules.conv._ConvNd):
        return "convolution"
    if isinstance(module, nn.MultiheadAttention):
        return "attention"
    if isinstance(module, nn.Linear | nn.Bilinear):
        return "linear"
    return None


def by_parameters(model: Any) -> dict[str, Any] | None:
    """The composition by the parameters each kind of module holds itself; None for a model
    of no such module."""
    totals: dict[str, float] = defaultdict(float)
    for module in model.modules():
        kind = module_kind(module)
        if kind is not None:
            totals[kind] += sum(p.numel() for p in module.parameters(recurse=False))
    return family.composition(totals, "parameters")
