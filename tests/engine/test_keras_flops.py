"""The analytic Keras FLOP counter (engine/worker/frameworks/tensorflow/flops.py) against hand
counts and the published ResNet-50 figure. Keras runs in a subprocess: the pytest process never
imports TensorFlow."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from engine.process.launcher import _engine_root


@pytest.fixture(scope="module")
def counts():
    env = {**os.environ, "PYTHONPATH": str(_engine_root()), "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-m", "tests.engine.keras_flops_cases"],
        cwd=_engine_root(),
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_conv_layers_count_exactly(counts):
    # Per sample, FLOPs = 2 x multiply-adds:
    # Conv2D 4 filters 3x3 'same' on 8x8x3: 8*8*4 outputs x 3*3*3        = 6912 MACs
    # DepthwiseConv2D 3x3 'valid' -> 6x6x4: 144 outputs x 9              = 1296
    # SeparableConv2D 5, 3x3 -> 4x4x5: depthwise 16*4*9 + pointwise 16*4*5 = 896
    # Conv2DTranspose 2 filters 2x2 stride 2, 4x4x5 in: 80 inputs x 2*2*2 = 640
    # Flatten 8*8*2 = 128 -> Dense 7: 128*7                              = 896
    # BatchNormalization, ReLU, MaxPooling: not counted (as torch's counter)
    case = counts["conv"]
    assert case["by_type"] == {
        "Conv2D": 2 * 6912,
        "DepthwiseConv2D": 2 * 1296,
        "SeparableConv2D": 2 * 896,
        "Conv2DTranspose": 2 * 640,
        "Dense": 2 * 896,
    }
    assert case["forward"] == 2 * (6912 + 1296 + 896 + 640 + 896) == 21280
    assert case["uncounted"] == []


def test_recurrent_layers_count_exactly(counts):
    # 10 steps of 6 features. Per step: gates x units x (inputs + units) MACs.
    # LSTM(5): 4*5*(6+5) = 220; GRU(4): 3*4*(5+4) = 108; SimpleRNN(3) each way: 1*3*(4+3) = 21
    # x10 steps: 2200, 1080, 2 x 210; Dense(2) on the 6 concatenated: 12.
    case = counts["recurrent"]
    assert case["by_type"] == {
        "LSTM": 2 * 2200,
        "GRU": 2 * 1080,
        "SimpleRNN": 2 * 420,
        "Dense": 2 * 12,
    }


def test_attention_is_two_flops_per_weight_per_token_plus_the_scores(counts):
    # 16 tokens of width 32. Weights (no biases, no embedding): attention Q, K, V, output
    # 4 x 32*32 = 4096; Dense 32*64 + 64*32 = 4096; EinsumDense 32*10 = 320; total 8512.
    # Scores and weighted sum: 4 heads x 16 x 16 x (8 + 8) = 16384 MACs per sequence.
    # Forward = 2 x (16 x 8512 + 16384) = 305152 FLOPs: 2 x weights per token plus attention.
    case = counts["attention"]
    assert case["forward"] == 2 * (16 * 8512 + 16384) == 305152
    assert case["by_type"]["MultiHeadAttention"] == 2 * 16384
    assert case["by_type"]["EinsumDense"] == 2 * 16 * (4 * 32 * 32 + 32 * 10)


def test_a_training_step_is_three_forwards_and_scales_with_the_batch(counts):
    for name in ("conv", "recurrent", "attention", "custom", "resnet50"):
        case = counts[name]
        assert case["forward_batch4"] == 4 * case["forward"], name
        assert case["step_batch4"] == 3 * 4 * case["forward"], name


def test_custom_layers_hook_containers_and_what_is_not_seen(counts):
    # Dense(6) on 16 x 32, then a block calling Dense(12) and Dense(6): 16*(32*6 + 6*12 + 12*6)
    # MACs; the hooked layer gives 2 x 16*6 x 50; the raw matmul is listed, not guessed.
    case = counts["custom"]
    assert case["by_type"] == {"Dense": 2 * 16 * (192 + 72 + 72), "Tied": 2 * 16 * 6 * 50}
    assert case["uncounted"] == ["raw_matmul (RawMatmul)"]
    assert "not counted: raw_matmul (RawMatmul)" in case["method"]


def test_keras_resnet50_is_he_et_al_3_8_gmacs(counts):
    # keras.applications.ResNet50 is ResNet v1 (stride 2 on the first 1x1 convolution of a
    # stage); He et al. 2016, Table 1, give it 3.8e9 multiply-adds at 224x224. torchvision's is
    # v1.5 (stride on the 3x3), 4.09e9 MACs: the figure tests/engine/test_flops.py checks.
    forward = counts["resnet50"]["forward"]
    assert forward == pytest.approx(2 * 3.8e9, rel=0.03)
    assert counts["resnet50"]["by_type"]["Dense"] == 2 * 2048 * 1000


def test_the_count_leaves_keras_as_it_was(counts):
    assert counts["call_restored"] is True
    assert counts["torch_loaded"] is False
