"""The registry of built-in workloads. Pure data: importing it loads no framework.

A workload's builder for a framework lives in that framework's model module
(engine/worker/frameworks/torch/models.py, ...), found by the workload's name.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Workload:
    """A model to time. Shapes are per sample, channels last for images (H, W, C)."""

    name: str
    task: str  # image-classification | language-model | masked-lm | classification
    description: str
    input_shape: tuple[int, ...]
    num_classes: int
    epoch_samples: int
    epoch_unit: str  # what one sample is, for people
    frameworks: tuple[str, ...]
    data_set: str
    sequence_length: int | None = None
    # What the projection to another GPU compares it with (engine/pricing/published.py):
    # convolutional, transformer or recurrent; "" for none of them (every family is used).
    family: str = ""
    # The same model in the published table, when it is one (Lambda's resnet50: ImageNet, 224).
    published_as: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_CIFAR = 50_000
_IMAGENET = 1_281_167
# Penn Treebank: 929,589 training words, cut into 35-word sequences (Kim et al., 2016).
_PTB_SEQUENCES = 929_589 // 35
# BERT pre-training corpus (BooksCorpus + English Wikipedia, 3.3e9 words) in 128-token sequences.
_BERT_SEQUENCES = 3_300_000_000 // 128

WORKLOADS: tuple[Workload, ...] = (
    Workload(
        name="resnet18-cifar",
        task="image-classification",
        description="ResNet-18 for CIFAR-10 (3x3 stem, no max-pool), the quick default",
        input_shape=(32, 32, 3),
        num_classes=10,
        epoch_samples=_CIFAR,
        epoch_unit="images",
        frameworks=("torch", "tensorflow"),
        data_set="CIFAR-10 train (50,000 images)",
        family="convolutional",
    ),
    Workload(
        name="resnet50-cifar",
        task="image-classification",
        description="ResNet-50 for CIFAR-10, the setting of published cost-benefit studies",
        input_shape=(32, 32, 3),
        num_classes=10,
        epoch_samples=_CIFAR,
        epoch_unit="images",
        frameworks=("torch", "tensorflow"),
        data_set="CIFAR-10 train (50,000 images)",
        family="convolutional",
    ),
    Workload(
        name="resnet50",
        task="image-classification",
        description="ResNet-50 on ImageNet at 224x224",
        input_shape=(224, 224, 3),
        num_classes=1000,
        epoch_samples=_IMAGENET,
        epoch_unit="images",
        frameworks=("torch", "tensorflow"),
        data_set="ImageNet-1k train (1,281,167 images)",
        family="convolutional",
        published_as="resnet50",
    ),
    Workload(
        name="inception-v3",
        task="image-classification",
        description="Inception-v3 on ImageNet at 299x299 (no auxiliary head)",
        input_shape=(299, 299, 3),
        num_classes=1000,
        epoch_samples=_IMAGENET,
        epoch_unit="images",
        frameworks=("torch", "tensorflow"),
        data_set="ImageNet-1k train (1,281,167 images)",
        family="convolutional",
    ),
    Workload(
        name="lstm-char-cnn",
        task="language-model",
        description="Character-aware CNN + highway + 2-layer LSTM language model (Kim et al.)",
        input_shape=(35, 21),  # 35 words of up to 21 characters
        num_classes=10_000,  # word vocabulary
        epoch_samples=_PTB_SEQUENCES,
        epoch_unit="35-word sequences",
        frameworks=("torch", "tensorflow"),
        data_set="Penn Treebank train (929,589 words)",
        sequence_length=35,
        family="recurrent",
    ),
    Workload(
        name="bert-base",
        task="masked-lm",
        description="BERT-base encoder (12 layers, 768 wide) with masked-LM head, 128 tokens",
        input_shape=(128,),
        num_classes=30_522,  # WordPiece vocabulary
        epoch_samples=_BERT_SEQUENCES,
        epoch_unit="128-token sequences",
        frameworks=("torch", "tensorflow"),
        data_set="BooksCorpus + Wikipedia (3.3e9 words; set --epoch-samples for yours)",
        sequence_length=128,
        family="transformer",
    ),
    Workload(
        name="tiny-mlp",
        task="image-classification",
        description="A two-layer perceptron on 32x32x3 inputs, for fast tests",
        input_shape=(32, 32, 3),
        num_classes=10,
        epoch_samples=_CIFAR,
        epoch_unit="images",
        frameworks=("torch", "tensorflow"),
        data_set="CIFAR-10 sized (50,000 samples)",
    ),
)

_BY_NAME = {w.name: w for w in WORKLOADS}
DEFAULT_MODEL = "resnet18-cifar"


def names() -> list[str]:
    return [w.name for w in WORKLOADS]


def exists(name: str) -> bool:
    return name in _BY_NAME


def get(name: str) -> Workload:
    """The workload called `name`; KeyError with the known names otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown model {name!r}; known: {', '.join(names())}") from None
