"""Model files for tests: one that works, and each kind of mistake a user makes."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "assets" / "examples"

VALID = """\
from torch import nn

INPUT_SHAPE = (8,)
TARGET = ("classes", 3)
EPOCH_SAMPLES = 1_000


def build_model(batch_size, hints):
    return nn.Linear(8, 3)
"""

# name -> (file text, words the message must hold, the line it must point at or None)
# Each is a PyTorch file.
BAD: dict[str, tuple[str, str, int | None]] = {
    "syntax error": (
        "from torch import nn\n\ndef build_model(batch_size, hints)\n    return nn.Linear(8, 3)\n",
        "syntax error",
        3,
    ),
    "package not installed": (
        "import epochcost_no_such_package\n" + VALID,
        "No module named 'epochcost_no_such_package' (not installed for",
        1,
    ),
    "no build function": (
        VALID.replace("def build_model(batch_size, hints):", "def make_model(batch_size, hints):"),
        "no build_model function; define build_model(batch_size, hints)",
        None,
    ),
    "build raises": (
        VALID.replace(
            "    return nn.Linear(8, 3)",
            "    weights = hints['device'] + '/weights.pt'\n    raise FileNotFoundError(weights)",
        ),
        "build_model failed: FileNotFoundError: cpu/weights.pt",
        10,
    ),
    "forward fails on the declared input": (
        """\
from torch import nn

INPUT_SHAPE = (8,)
TARGET = ("classes", 3)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(7, 3)

    def forward(self, x):
        return self.fc(x)


def build_model(batch_size, hints):
    return Net()
""",
        "the model's forward failed on a batch of (2, 8) float32: RuntimeError: mat1 and mat2",
        13,
    ),
    "loss is not a scalar": (
        VALID + "\n\ndef loss(outputs, targets):\n    return (outputs ** 2).sum(dim=1)\n",
        "the loss must be a scalar (one number), not a tensor of shape (2,)",
        12,
    ),
    "build returns no model": (
        VALID.replace("    return nn.Linear(8, 3)", "    return {'layers': 3}"),
        "build_model returned dict, not a torch.nn.Module",
        8,
    ),
    "bad target": (
        VALID.replace('TARGET = ("classes", 3)', 'TARGET = "classes"'),
        "TARGET = 'classes' is not valid; use TARGET = ('classes', 10)",
        4,
    ),
    "says another framework": (
        'FRAMEWORK = "tensorflow"\n' + VALID,
        "the file says FRAMEWORK = 'tensorflow', but the run asks for torch",
        1,
    ),
    "waits for input": (
        "weights = input('weights file? ')\n" + VALID,
        "loading the file failed: EOFError: EOF when reading a line",
        1,
    ),
    "exits while loading": (
        "import sys\n\nsys.exit('no data here')\n" + VALID,
        "the file called sys.exit('no data here'); a model file must not exit",
        3,
    ),
}

HANGS = "import time\n\nwhile True:\n    time.sleep(0.05)\n" + VALID
KILLS_ITSELF = (
    "import os\nimport sys\n\nprint('leaving now', file=sys.stderr, flush=True)\nos._exit(7)\n"
    + VALID
)


def write(folder: Path, text: str, name: str = "model.py") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


KERAS_VALID = """\
import keras

FRAMEWORK = "tensorflow"
INPUT_SHAPE = (8,)
TARGET = ("classes", 3)


def build_model(batch_size, hints):
    return keras.Sequential([keras.Input((8,)), keras.layers.Dense(3)])
"""

KERAS_BAD: dict[str, tuple[str, str, int | None]] = {
    "outputs do not fit the target": (
        KERAS_VALID.replace("Dense(3)", "Dense(3), keras.layers.Reshape((3, 1))"),
        "the default loss for TARGET ('classes', 3) cannot use the model's outputs "
        "(shape (2, 3, 1)); the model must return logits of shape (batch, 3)",
        None,
    ),
    "loss is not a scalar": (
        KERAS_VALID
        + "\n\ndef loss(outputs, targets):\n    return keras.ops.sum(outputs, axis=1)\n",
        "the loss must be a scalar (one number), not a tensor of shape (2,)",
        12,
    ),
}
