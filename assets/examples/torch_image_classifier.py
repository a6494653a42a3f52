"""A small CNN for CIFAR-10-sized images, as an epochcost model file (PyTorch).

    epochcost models --model-file assets/examples/torch_image_classifier.py
    epochcost run --model-file assets/examples/torch_image_classifier.py --batch-size 128
"""

from torch import nn

NAME = "small-cnn-cifar"
FRAMEWORK = "torch"
INPUT_SHAPE = (3, 32, 32)  # one image, channels first as PyTorch takes it
INPUT_DTYPE = "float32"
TARGET = ("classes", 10)  # the model returns logits (batch, 10); loss: cross-entropy
EPOCH_SAMPLES = 50_000  # CIFAR-10's training set


def block(c_in: int, c_out: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
    )


def build_model(batch_size, hints):
    return nn.Sequential(
        block(3, 32),  # 16x16
        block(32, 64),  # 8x8
        block(64, 128),  # 4x4
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(128 * 4 * 4, 10),
    )
