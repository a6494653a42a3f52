"""PyTorch builders for the registry's workloads. Imported only inside the worker.

Each builder returns a TorchTask: the model with random weights, a function that makes one
synthetic batch directly on the device, and the loss. Nothing is downloaded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from engine.workloads.registry import Workload


@dataclass
class TorchTask:
    model: nn.Module
    make_batch: Callable[[int, torch.device], tuple[Any, torch.Tensor]]
    loss: Callable[[Any, torch.Tensor], torch.Tensor]
    # Whether inputs are images in NCHW (so channels_last applies to them).
    image_input: bool = False


def build(workload: Workload) -> TorchTask:
    """The TorchTask for a registry workload."""
    builder = _BUILDERS.get(workload.name)
    if builder is None:
        raise KeyError(f"{workload.name} has no PyTorch builder")
    return builder(workload)


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


# ---- image classifiers -----------------------------------------------------------------------


def _image_task(model: nn.Module, workload: Workload) -> TorchTask:
    height, width, channels = workload.input_shape
    classes = workload.num_classes

    def make_batch(batch_size: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.randn(batch_size, channels, height, width, device=device)
        y = torch.randint(0, classes, (batch_size,), device=device)
        return x, y

    return TorchTask(model, make_batch, nn.functional.cross_entropy, image_input=True)


def _cifar_stem(model: nn.Module) -> nn.Module:
    """The CIFAR variant of a torchvision ResNet: 3x3 stride-1 stem and no max-pool."""
    model.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
    model.maxpool = nn.Identity()
    return model


def _resnet18_cifar(w: Workload) -> TorchTask:
    from torchvision.models import resnet18

    return _image_task(_cifar_stem(resnet18(num_classes=w.num_classes)), w)


def _resnet50_cifar(w: Workload) -> TorchTask:
    from torchvision.models import resnet50

    return _image_task(_cifar_stem(resnet50(num_classes=w.num_classes)), w)


def _resnet50(w: Workload) -> TorchTask:
    from torchvision.models import resnet50

    return _image_task(resnet50(num_classes=w.num_classes), w)


def _inception_v3(w: Workload) -> TorchTask:
    from torchvision.models import inception_v3

    # No auxiliary head, as in keras.applications.InceptionV3, so the two frameworks match.
    model = inception_v3(num_classes=w.num_classes, aux_logits=False, init_weights=False)
    return _image_task(model, w)


def tiny_mlp(in_features: int, classes: int, hidden: int = 128) -> nn.Sequential:
    """Flatten, Linear, ReLU, Linear: a plain Sequential (a wrapping Module's own call cost 1%
    of this millisecond step, benchmarks/harness_overhead.py)."""
    return nn.Sequential(
        nn.Flatten(), nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, classes)
    )


def _tiny_mlp(w: Workload) -> TorchTask:
    h, wd, c = w.input_shape
    return _image_task(tiny_mlp(h * wd * c, w.num_classes), w)


# ---- character-aware language model (Kim, Jernite, Sontag, Rush 2016; LSTM-CharCNN-Large) -----


class Highway(nn.Module):
    def __init__(self, size: int, layers: int) -> None:
        super().__init__()
        self.transforms = nn.ModuleList(nn.Linear(size, size) for _ in range(layers))
        self.gates = nn.ModuleList(nn.Linear(size, size) for _ in range(layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for transform, gate in zip(self.transforms, self.gates, strict=True):
            g = torch.sigmoid(gate(x))
            x = g * torch.relu(transform(x)) + (1 - g) * x
        return x


class CharCNNLSTM(nn.Module):
    """Characters of each word -> CNN filters of widths 1..7 -> highway x2 -> LSTM 2x650."""

    def __init__(self, words: int, chars: int = 51, char_dim: int = 15, hidden: int = 650) -> None:
        super().__init__()
        widths = range(1, 8)
        filters = [min(200, 50 * w) for w in widths]  # 50, 100, 150, 200, 200, 200, 200
        self.char_embedding = nn.Embedding(chars, char_dim, padding_idx=0)
        self.convs = nn.ModuleList(
            nn.Conv1d(char_dim, n, kernel_size=w) for w, n in zip(widths, filters, strict=True)
        )
        self.highway = Highway(sum(filters), layers=2)
        self.lstm = nn.LSTM(sum(filters), hidden, num_layers=2, batch_first=True, dropout=0.5)
        self.dropout = nn.Dropout(0.5)
        self.decoder = nn.Linear(hidden, words)

    def forward(self, chars: torch.Tensor) -> torch.Tensor:
        batch, steps, word_len = chars.shape
        x = self.char_embedding(chars.reshape(batch * steps, word_len)).transpose(1, 2)
        x = torch.cat([torch.tanh(conv(x)).amax(dim=2) for conv in self.convs], dim=1)
        x = self.highway(x).reshape(batch, steps, -1)
        x, _ = self.lstm(x)
        return self.decoder(self.dropout(x))


def _lstm_char_cnn(w: Workload) -> TorchTask:
    steps, word_len = w.input_shape
    model = CharCNNLSTM(words=w.num_classes)

    def make_batch(batch_size: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.randint(1, 51, (batch_size, steps, word_len), device=device)
        y = torch.randint(0, w.num_classes, (batch_size, steps), device=device)
        return x, y

    def loss(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))

    return TorchTask(model, make_batch, loss)


# ---- BERT-base with a masked-LM head -------------------------------------------------------


class BertMLM(nn.Module):
    def __init__(
        self,
        vocab: int = 30_522,
        width: int = 768,
        layers: int = 12,
        heads: int = 12,
        ffn: int = 3072,
        max_positions: int = 512,
    ) -> None:
        super().__init__()
        self.word = nn.Embedding(vocab, width)
        self.position = nn.Embedding(max_positions, width)
        self.token_type = nn.Embedding(2, width)
        self.embed_norm = nn.LayerNorm(width, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(
                width,
                heads,
                ffn,
                dropout=0.1,
                activation="gelu",
                batch_first=True,
                layer_norm_eps=1e-12,
            )
            for _ in range(layers)
        )
        self.head_transform = nn.Linear(width, width)
        self.head_norm = nn.LayerNorm(width, eps=1e-12)
        self.decoder = nn.Linear(width, vocab)
        self.decoder.weight = self.word.weight  # tied, as in BERT

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.word(tokens) + self.position(positions) + self.token_type(torch.zeros_like(tokens))
        x = self.dropout(self.embed_norm(x))
        for layer in self.layers:
            x = layer(x)
        x = self.head_norm(nn.functional.gelu(self.head_transform(x)))
        return self.decoder(x)


def _bert_base(w: Workload) -> TorchTask:
    (length,) = w.input_shape
    model = BertMLM(vocab=w.num_classes)

    def make_batch(batch_size: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        tokens = torch.randint(0, w.num_classes, (batch_size, length), device=device)
        labels = torch.full_like(tokens, -100)  # -100: not predicted
        masked = torch.rand(batch_size, length, device=device) < 0.15
        labels[masked] = tokens[masked]
        return tokens, labels

    def loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=-100
        )

    return TorchTask(model, make_batch, loss)


_BUILDERS: dict[str, Callable[[Workload], TorchTask]] = {
    "resnet18-cifar": _resnet18_cifar,
    "resnet50-cifar": _resnet50_cifar,
    "resnet50": _resnet50,
    "inception-v3": _inception_v3,
    "lstm-char-cnn": _lstm_char_cnn,
    "bert-base": _bert_base,
    "tiny-mlp": _tiny_mlp,
}
