"""Each Keras model against its PyTorch twin: the same parameter count, or a documented reason.

PyTorch models are built here; the Keras ones in a subprocess (this process never imports
tensorflow).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from engine.process.launcher import _engine_root
from engine.worker.frameworks.torch import models as torch_models
from engine.workloads import registry

# Where the two differ, and why (in trainable parameters, Keras minus PyTorch):
DIFFERENCES = {
    # keras.applications' ResNet50 gives its convolutions a bias (torchvision's have none).
    "resnet50": 26_560,
    # keras.applications' InceptionV3 has BatchNormalization without a scale (gamma).
    "inception-v3": -17_216,
    # Keras's LSTM has one bias per gate; torch's has two (b_ih and b_hh): 2 layers x 4 x 650.
    "lstm-char-cnn": -5_200,
}

_KERAS_COUNTS = """
import json
from engine.workloads import registry
from engine.worker.frameworks.tensorflow import models as keras_models
print(json.dumps({
    w.name: keras_models.parameter_count(keras_models.build(w).model)
    for w in registry.WORKLOADS
}))
"""


@pytest.fixture(scope="module")
def keras_counts() -> dict[str, int]:
    env = {**os.environ, "PYTHONPATH": _engine_root(), "TF_CPP_MIN_LOG_LEVEL": "2"}
    proc = subprocess.run(
        [sys.executable, "-c", _KERAS_COUNTS],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", registry.names())
def test_keras_model_has_the_parameters_of_its_pytorch_twin(name, keras_counts):
    torch_count = torch_models.parameter_count(torch_models.build(registry.get(name)).model)
    assert keras_counts[name] - torch_count == DIFFERENCES.get(name, 0)
    assert abs(keras_counts[name] / torch_count - 1) < 0.01
