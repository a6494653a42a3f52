"""What a PyTorch model is made of (engine/worker/frameworks/torch/composition.py): its counted
FLOPs by kind of layer, against hand counts. PyTorch runs in this process (as in test_flops);
the Keras twin runs in a TensorFlow worker (tests/engine/test_model_file_family.py)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from engine.measure.config import RunConfig
from engine.worker.frameworks.torch.composition import by_parameters, counted, op_kind
from engine.worker.measure.session import load
from engine.workloads import family, registry


def _step(model: nn.Module, x: torch.Tensor) -> dict:
    with counted(model) as count:
        out = model(x)
        (out[0] if isinstance(out, tuple) else out).float().pow(2).mean().backward()
    assert count.total > 0
    return count.composition


class _Recurrent(nn.Module):
    def __init__(self, layer: nn.Module) -> None:
        super().__init__()
        self.rnn, self.head = layer, nn.Linear(32, 50)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.rnn(x)[0])


def test_an_lstm_is_recurrent_by_the_flops_the_counter_misses():
    # LSTM 16 -> 32 over 10 steps, batch 4: 2 x 4 x 10 x 4 gates x 32 x (16 + 32) = 491,520
    # forward, x3 for the step = 1,474,560; the head 32 -> 50 on 40 positions: 2 x 40 x 32 x 50
    # = 128,000 forward, and its backward twice that (input and weight gradients): 384,000.
    comp = _step(_Recurrent(nn.LSTM(16, 32, batch_first=True)), torch.randn(4, 10, 16))
    assert comp["by"] == "flops"
    assert comp["recurrent"] == pytest.approx(1_474_560 / (1_474_560 + 384_000), rel=1e-9)
    assert comp["linear"] == pytest.approx(384_000 / (1_474_560 + 384_000), rel=1e-9)
    assert family.measured(comp).name == "recurrent"


def test_a_gru_is_recurrent_though_its_work_is_matrix_products():
    # The counter sees a GRU's mm/addmm: everything the GRU module ran is recurrent. Its
    # forward: 2 x 4 x 10 x 3 gates x 32 x 48 = 368,640; the step x3, less the gradients
    # nobody needs: the input's (2 x 40 x 96 x 16 = 122,880) and the zero first state's
    # (2 x 4 x 96 x 32 = 24,576): 958,464, against the head's 384,000 (above).
    comp = _step(_Recurrent(nn.GRU(16, 32, batch_first=True)), torch.randn(4, 10, 16))
    assert comp["recurrent"] == pytest.approx(958_464 / (958_464 + 384_000), rel=1e-9)
    assert comp["convolution"] == comp["attention"] == 0.0


def test_convolutions_and_matrix_products_by_operator():
    # Conv 3 -> 8, 3x3 'same' on 8x8, batch 2: 2 x 2 x 64 x 8 x 27 = 55,296 forward, and the
    # weight gradient as much (the input's is not needed); the head 512 -> 10: 20,480 forward,
    # 61,440 with its backward.
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.Flatten(), nn.Linear(512, 10))
    comp = _step(model, torch.randn(2, 3, 8, 8))
    assert comp["convolution"] == pytest.approx(110_592 / (110_592 + 61_440), rel=1e-9)
    assert family.measured(comp).name == "convolutional"


def test_each_counted_operator_has_its_kind():
    aten = torch.ops.aten
    assert op_kind(aten.convolution) == op_kind(aten.convolution_backward) == "convolution"
    assert op_kind(aten._scaled_dot_product_flash_attention) == "attention"
    assert op_kind(aten.bmm) == op_kind(aten.baddbmm) == "attention"  # hand-written attention
    assert op_kind(aten.mm) == op_kind(aten.addmm) == "linear"


def test_parameters_stand_in_where_nothing_is_counted():
    # conv 3*8*9 + 8 = 224, attention 3*16*16 + 48 in-projection, 16*16 + 16 out (a Linear)
    model = nn.ModuleDict(
        {
            "conv": nn.Conv2d(3, 8, 3),
            "attention": nn.MultiheadAttention(16, 2),
            "embedding": nn.Embedding(100, 16),  # a lookup: not counted
        }
    )
    comp = by_parameters(model)
    total = 224 + 816 + 272
    assert comp["by"] == "parameters"
    assert comp["convolution"] == pytest.approx(224 / total)
    assert comp["attention"] == pytest.approx(816 / total)
    assert comp["linear"] == pytest.approx(272 / total)
    assert by_parameters(nn.Embedding(10, 4)) is None


def _composition(model: str) -> dict:
    backend = load("torch")
    config = RunConfig(model=model, batch_size=2, device="cpu").validated()
    gen = backend.open_session(config, registry.get(model), "t")
    try:
        while True:
            next(gen)
    except StopIteration as done:
        session = done.value
    session.flops_per_step()
    return session.composition


def test_a_timed_runs_count_says_what_the_builtin_is_made_of():
    assert _composition("tiny-mlp") == {"by": "flops"} | {
        k: float(k == "linear") for k in family.KINDS
    }
    # the character CNN, highway and softmax layers around two LSTMs: 39% recurrent
    char_lm = _composition("lstm-char-cnn")
    assert 0.35 < char_lm["recurrent"] < 0.45 and char_lm["convolution"] > 0.03
    assert family.measured(char_lm).name == registry.get("lstm-char-cnn").family
