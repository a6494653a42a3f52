"""The family of your own model, through the real worker: what the model check reads from a
PyTorch or Keras file's layers, a FAMILY the file states, and what a run's result keeps and its
estimates say (engine/workloads/family.py). The test process never imports the files (and
never TensorFlow: Keras files are checked in a TensorFlow worker)."""

from __future__ import annotations

import copy

import pytest

from engine.core.events import Finished
from engine.pricing import catalog
from engine.pricing.projection import Basis
from engine.pricing.result_projection import project_result
from engine.process.launcher import WorkerProcess
from engine.process.model_check import check_model_file
from engine.results.schema import validate
from engine.results.store import Store
from tests.engine.helpers import TINY
from tests.engine.model_files import write

CONV = """\
from torch import nn

INPUT_SHAPE = (3, 32, 32)
TARGET = ("classes", 10)
EPOCH_SAMPLES = 1_000


def build_model(batch_size, hints):
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(4),
        nn.Flatten(),
        nn.Linear(32 * 16, 10),
    )
"""

ATTENTION = """\
from torch import nn

INPUT_SHAPE = (16,)
INPUT_DTYPE = "int64"
TARGET = ("tokens", 50)
EPOCH_SAMPLES = 1_000


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 32)
        self.block = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
        self.head = nn.Linear(32, 50)

    def forward(self, x):
        return self.head(self.block(self.embed(x)))


def build_model(batch_size, hints):
    return Net()
"""

LSTM = """\
from torch import nn

INPUT_SHAPE = (20,)
INPUT_DTYPE = "int64"
TARGET = ("tokens", 40)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(40, 32)
        self.lstm = nn.LSTM(32, 64, num_layers=2, batch_first=True)
        self.head = nn.Linear(64, 40)

    def forward(self, x):
        return self.head(self.lstm(self.embed(x))[0])


def build_model(batch_size, hints):
    return Net()
"""

KERAS_CONV = """\
import keras

INPUT_SHAPE = (32, 32, 3)
TARGET = ("classes", 10)


def build_model(batch_size, hints):
    return keras.Sequential([
        keras.Input(INPUT_SHAPE),
        keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
        keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(10),
    ])
"""

KERAS_ATTENTION = """\
import keras

INPUT_SHAPE = (16,)
INPUT_DTYPE = "int32"
TARGET = ("tokens", 50)


def build_model(batch_size, hints):
    x = keras.Input(INPUT_SHAPE, dtype="int32")
    h = keras.layers.Embedding(50, 32)(x)
    h = keras.layers.LayerNormalization()(h + keras.layers.MultiHeadAttention(4, 8)(h, h))
    h = keras.layers.Dense(64, activation="relu")(h)
    return keras.Model(x, keras.layers.Dense(50)(h))
"""

KERAS_LSTM = """\
import keras

INPUT_SHAPE = (20,)
INPUT_DTYPE = "int32"
TARGET = ("tokens", 40)


def build_model(batch_size, hints):
    return keras.Sequential([
        keras.Input(INPUT_SHAPE, dtype="int32"),
        keras.layers.Embedding(40, 32),
        keras.layers.LSTM(64, return_sequences=True),
        keras.layers.Dense(40),
    ])
"""

_READ = [
    (CONV, "convolutional", "of FLOPs in convolutions", "convolution"),
    (ATTENTION, "transformer", "of FLOPs in attention and matrix products", "linear"),
    (LSTM, "recurrent", "of FLOPs in recurrent layers", "recurrent"),
]


def _family(path, framework=None) -> dict:
    check = check_model_file(str(path), framework)
    assert check.ok, check.message + check.traceback
    return check.info


@pytest.mark.parametrize(("text", "name", "why", "most"), _READ)
def test_the_check_reads_a_torch_files_family_from_its_flops(tmp_path, text, name, why, most):
    info = _family(write(tmp_path, text))
    composition = info["composition"]
    assert composition["by"] == "flops"
    assert max(composition, key=lambda k: -1 if k == "by" else composition[k]) == most
    assert info["family"]["name"] == name and info["family"]["source"] == "measured"
    assert why in info["family"]["why"] and info["family"]["stated"] is None


@pytest.mark.parametrize(
    ("text", "name", "why"),
    [
        (KERAS_CONV, "convolutional", "of FLOPs in convolutions"),
        (KERAS_ATTENTION, "transformer", "of FLOPs in attention and matrix products"),
        (KERAS_LSTM, "recurrent", "of FLOPs in recurrent layers"),
    ],
)
def test_the_check_reads_a_keras_files_family_from_its_flops(tmp_path, text, name, why):
    info = _family(write(tmp_path, text), "tensorflow")
    assert info["framework"] == "tensorflow" and info["composition"]["by"] == "flops"
    assert info["family"]["name"] == name and why in info["family"]["why"]


def test_a_family_the_file_states_wins(tmp_path):
    text = CONV.replace("EPOCH_SAMPLES = 1_000\n", 'EPOCH_SAMPLES = 1_000\nFAMILY = "Recurrent"\n')
    info = _family(write(tmp_path, text))
    assert info["composition"]["convolution"] > 0.9  # what it is made of, still said
    assert info["family"] == {
        "name": "recurrent",
        "why": "stated by the model file's FAMILY",
        "source": "stated",
        "stated": "recurrent",
    }


def test_a_bad_family_is_a_message_at_its_line(tmp_path):
    text = CONV.replace("EPOCH_SAMPLES = 1_000\n", 'EPOCH_SAMPLES = 1_000\nFAMILY = "cnn"\n')
    check = check_model_file(str(write(tmp_path, text)))
    assert not check.ok and check.kind == "config"
    assert check.line == 6 and check.code == 'FAMILY = "cnn"'
    assert check.message.startswith("model.py, line 6: FAMILY = 'cnn' is not a family; use ")
    assert "'convolutional' (a CNN)" in check.message


def test_a_run_keeps_what_the_model_is_made_of_and_its_estimates_say_the_family(tmp_path):
    stated = ATTENTION.replace(
        "EPOCH_SAMPLES = 1_000\n", 'EPOCH_SAMPLES = 1_000\nFAMILY = "transformer"\n'
    )
    path = write(tmp_path, stated)
    config = TINY.with_changes(model=path.stem, model_file=str(path), batch_size=4, max_steps=8)
    worker = WorkerProcess(config).start()
    try:
        last = list(worker.events())[-1]
    finally:
        worker.close()
    assert isinstance(last, Finished), last
    result = validate(last.result)
    workload = result["workload"]
    assert workload["family_stated"] == "transformer"
    assert workload["composition"]["by"] == "flops"
    assert workload["composition"]["linear"] + workload["composition"]["attention"] > 0.99
    Store().add(result)
    assert Store().get(result["run_id"])["workload"] == workload

    # The same result as if it had run on a GTX 1080 Ti (no GPU here): its estimate on a V100
    # rests on the published transformer models and says why.
    on_gpu = copy.deepcopy(result)
    on_gpu["config"]["device"] = on_gpu["environment"]["device"] = "cuda:0"
    on_gpu["environment"]["device_name"] = "NVIDIA GeForce GTX 1080 Ti"
    cat = catalog.load()
    proj = project_result(
        on_gpu, cat.gpu("GeForce GTX 1080 Ti"), cat.gpu("Tesla V100 SXM2 16GB"), Basis.of(cat)
    )
    assert proj.status == "estimated" and "published transformer models" in proj.basis
    assert "family: transformer (stated by the model file's FAMILY)" in proj.basis
    del on_gpu["workload"]["family_stated"]  # read from its layers instead
    proj = project_result(
        on_gpu, cat.gpu("GeForce GTX 1080 Ti"), cat.gpu("Tesla V100 SXM2 16GB"), Basis.of(cat)
    )
    assert "family: transformer (100% of FLOPs in attention and matrix products)" in proj.basis
