"""FLOPs per training step, counted by the PyTorch backend, against published figures."""

from __future__ import annotations

import pytest

from engine.backends import load
from engine.config import RunConfig
from engine.workloads import registry


def _session(model: str, batch: int):
    backend = load("torch")
    config = RunConfig(model=model, batch_size=batch, device="cpu").validated()
    gen = backend.open_session(config, registry.get(model), "t")
    try:
        while True:
            next(gen)
    except StopIteration as done:
        return done.value


def test_resnet50_is_about_4_1_gmacs_forward_per_image():
    # He et al. report 3.8e9 multiply-adds; torchvision lists 4.09 GFLOPS (GMACs) at 224x224.
    # A training step is forward + backward, about 3x forward: 3 x 2 x 4.09e9 = 24.5e9 FLOPs.
    session = _session("resnet50", 1)
    per_sample = session.flops_per_step()
    assert per_sample == pytest.approx(3 * 2 * 4.09e9, rel=0.03)


def test_bert_base_forward_is_about_two_flops_per_parameter_per_token():
    # 2 x 109.5e6 parameters x 128 tokens x 3 (forward + backward) = 84.1e9 FLOPs per sequence;
    # the attention scores add 2 x 2 x 128 x 768 x 12 per token (about 2%).
    session = _session("bert-base", 1)
    per_token = session.flops_per_step() / 3 / 128
    assert per_token == pytest.approx(2 * session.parameters, rel=0.03)


def test_tiny_mlp_count_is_exact():
    # Two matmuls: 2 x (3072 x 128 + 128 x 10) FLOPs forward per sample; backward twice that
    # (no input gradient for the first layer is needed, but the counter counts what autograd
    # runs: weight gradients of both layers and the input gradient of the second).
    session = _session("tiny-mlp", 4)
    forward = 2 * (3072 * 128 + 128 * 10)
    flops = session.flops_per_step() / 4
    assert forward * 2 < flops <= forward * 3
