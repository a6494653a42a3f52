"""Keras 3 (TensorFlow backend) builders for the registry's workloads. Imported only by
engine/worker/frameworks/tensorflow/session.py, inside the worker.

Each builder returns a KerasTask: the model with random weights, a function that makes one
synthetic batch (call it under the device scope), and the loss. Shapes, classes and losses are
those of the PyTorch twins in torch_models.py; images are NHWC, Keras's own layout. Nothing is
downloaded (keras.applications with weights=None).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import keras
import tensorflow as tf
from keras import layers

from engine.workloads.registry import Workload

# torch's BatchNorm2d defaults (momentum 0.1 is Keras's 0.9), so the two twins do the same work.
_BN = {"momentum": 0.9, "epsilon": 1e-5}


@dataclass
class KerasTask:
    model: keras.Model
    make_batch: Callable[[int], tuple[Any, Any]]
    loss: Callable[[Any, Any], Any]  # (targets, logits) -> scalar float32


def build(workload: Workload) -> KerasTask:
    """The KerasTask for a registry workload."""
    builder = _BUILDERS.get(workload.name)
    if builder is None:
        raise KeyError(f"{workload.name} has no Keras builder")
    return builder(workload)


def parameter_count(model: keras.Model) -> int:
    """Trainable scalars: what torch's parameters() counts (BatchNorm's moving mean and
    variance are buffers in torch and non-trainable weights here; neither side counts them)."""
    return sum(int(tf.size(v)) for v in model.trainable_weights)


def _sparse_cross_entropy(targets: Any, logits: Any) -> Any:
    # Logits come in the policy's compute dtype; the loss is taken in float32 as torch's
    # autocast does.
    logits = tf.cast(logits, tf.float32)
    return tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits)
    )


# ---- image classifiers -----------------------------------------------------------------------


def _image_task(model: keras.Model, workload: Workload) -> KerasTask:
    classes = workload.num_classes

    def make_batch(batch_size: int) -> tuple[Any, Any]:
        x = tf.random.normal((batch_size, *workload.input_shape))
        y = tf.random.uniform((batch_size,), 0, classes, dtype=tf.int32)
        return x, y

    return KerasTask(model, make_batch, _sparse_cross_entropy)


# torch's initialisations, so that twins start training from the same distribution (what a
# cost-to-accuracy run compares): nn.Linear's and nn.Conv2d's default, uniform in
# +-1/sqrt(fan_in), and torchvision ResNets' convolutions, He-normal over fan_out.
def _torch_default_init() -> keras.initializers.Initializer:
    return keras.initializers.VarianceScaling(1 / 3, "fan_in", "uniform")


def _torchvision_conv_init() -> keras.initializers.Initializer:
    return keras.initializers.VarianceScaling(2.0, "fan_out", "untruncated_normal")


def _torch_dense(units: int, fan_in: int, **kwargs: Any) -> layers.Dense:
    """A Dense layer initialised as torch's nn.Linear (weights and bias)."""
    bound = 1.0 / math.sqrt(fan_in)
    return layers.Dense(
        units,
        kernel_initializer=_torch_default_init(),
        bias_initializer=keras.initializers.RandomUniform(-bound, bound),
        **kwargs,
    )


def _conv_bn(
    x: Any, filters: int, kernel: int, stride: int = 1, relu: bool = True, stem: bool = False
) -> Any:
    """Convolution, batch norm, ReLU. The CIFAR stem is a plain nn.Conv2d on the torch side
    (set after torchvision initialised the rest), so it keeps torch's default initialisation."""
    init = _torch_default_init() if stem else _torchvision_conv_init()
    x = layers.Conv2D(
        filters, kernel, strides=stride, padding="same", use_bias=False, kernel_initializer=init
    )(x)
    x = layers.BatchNormalization(**_BN)(x)
    return layers.ReLU()(x) if relu else x


def _basic_block(x: Any, planes: int, stride: int) -> Any:
    """torchvision's BasicBlock: two 3x3 convolutions, projection shortcut when shapes change."""
    shortcut = x
    y = _conv_bn(x, planes, 3, stride)
    y = _conv_bn(y, planes, 3, relu=False)
    if stride != 1 or x.shape[-1] != planes:
        shortcut = _conv_bn(x, planes, 1, stride, relu=False)
    return layers.ReLU()(layers.Add()([y, shortcut]))


def _bottleneck(x: Any, planes: int, stride: int) -> Any:
    """torchvision's Bottleneck (v1.5: the stride sits on the 3x3 convolution)."""
    shortcut = x
    y = _conv_bn(x, planes, 1)
    y = _conv_bn(y, planes, 3, stride)
    y = _conv_bn(y, planes * 4, 1, relu=False)
    if stride != 1 or x.shape[-1] != planes * 4:
        shortcut = _conv_bn(x, planes * 4, 1, stride, relu=False)
    return layers.ReLU()(layers.Add()([y, shortcut]))


def _cifar_resnet(workload: Workload, block: Callable[..., Any], depths: list[int]) -> KerasTask:
    """A torchvision ResNet with the CIFAR stem (3x3 stride-1 convolution, no max-pool)."""
    inputs = keras.Input(workload.input_shape)
    x = _conv_bn(inputs, 64, 3, stem=True)
    for stage, depth in enumerate(depths):
        for i in range(depth):
            x = block(x, 64 * 2**stage, 2 if stage > 0 and i == 0 else 1)
    x = layers.GlobalAveragePooling2D()(x)
    outputs = _torch_dense(workload.num_classes, x.shape[-1])(x)
    return _image_task(keras.Model(inputs, outputs, name=workload.name), workload)


def _resnet18_cifar(w: Workload) -> KerasTask:
    return _cifar_resnet(w, _basic_block, [2, 2, 2, 2])


def _resnet50_cifar(w: Workload) -> KerasTask:
    return _cifar_resnet(w, _bottleneck, [3, 4, 6, 3])


def _resnet50(w: Workload) -> KerasTask:
    model = keras.applications.ResNet50(
        weights=None, input_shape=w.input_shape, classes=w.num_classes, classifier_activation=None
    )
    return _image_task(model, w)


def _inception_v3(w: Workload) -> KerasTask:
    model = keras.applications.InceptionV3(
        weights=None, input_shape=w.input_shape, classes=w.num_classes, classifier_activation=None
    )
    return _image_task(model, w)


def _tiny_mlp(w: Workload) -> KerasTask:
    hidden = 128
    model = keras.Sequential(
        [
            keras.Input(w.input_shape),
            layers.Flatten(),
            _torch_dense(hidden, math.prod(w.input_shape), activation="relu"),
            _torch_dense(w.num_classes, hidden),
        ],
        name=w.name,
    )
    return _image_task(model, w)


# ---- character-aware language model (Kim, Jernite, Sontag, Rush 2016; LSTM-CharCNN-Large) -----


def _highway(x: Any, size: int, depth: int) -> Any:
    for _ in range(depth):
        gate = layers.Dense(size, activation="sigmoid")(x)
        transform = layers.Dense(size, activation="relu")(x)
        x = gate * transform + (1.0 - gate) * x
    return x


def _lstm_char_cnn(w: Workload) -> KerasTask:
    """Characters of each word -> CNN filters of widths 1..7 -> highway x2 -> LSTM 2x650."""
    steps, word_len = w.input_shape
    chars, char_dim, hidden = 51, 15, 650
    widths = range(1, 8)
    filters = [min(200, 50 * width) for width in widths]
    inputs = keras.Input((steps, word_len), dtype="int32")
    x = layers.Embedding(chars, char_dim)(inputs)  # (batch, steps, word_len, char_dim)
    # A (1, width) 2-D convolution over (steps, chars) is torch's Conv1d over each word's
    # characters: the same weights, with no reshape of the batch.
    pooled = [
        keras.ops.max(layers.Conv2D(n, (1, width), activation="tanh")(x), axis=2)
        for width, n in zip(widths, filters, strict=True)
    ]
    x = _highway(layers.Concatenate()(pooled), sum(filters), depth=2)
    x = layers.LSTM(hidden, return_sequences=True)(x)
    x = layers.Dropout(0.5)(x)  # torch's LSTM dropout=0.5 between its two layers
    x = layers.LSTM(hidden, return_sequences=True)(x)
    outputs = layers.Dense(w.num_classes)(layers.Dropout(0.5)(x))
    model = keras.Model(inputs, outputs, name=w.name)

    def make_batch(batch_size: int) -> tuple[Any, Any]:
        x = tf.random.uniform((batch_size, steps, word_len), 1, chars, dtype=tf.int32)
        y = tf.random.uniform((batch_size, steps), 0, w.num_classes, dtype=tf.int32)
        return x, y

    return KerasTask(model, make_batch, _sparse_cross_entropy)


# ---- BERT-base with a masked-LM head -------------------------------------------------------


class BertEmbeddings(layers.Layer):
    """Word + position + token-type embeddings (all sequences are one segment, type 0)."""

    def __init__(self, vocab: int, width: int, max_positions: int = 512, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.word = layers.Embedding(vocab, width)
        self.position = layers.Embedding(max_positions, width)
        self.token_type = layers.Embedding(2, width)

    def call(self, tokens: Any) -> Any:
        positions = keras.ops.arange(keras.ops.shape(tokens)[1])
        return (
            self.word(tokens)
            + self.position(positions)[None]
            + self.token_type(keras.ops.zeros_like(tokens))
        )


class EncoderLayer(layers.Layer):
    """torch's TransformerEncoderLayer (post-norm, GELU, dropout 0.1), in Keras layers."""

    def __init__(self, width: int, heads: int, ffn: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.attention = layers.MultiHeadAttention(heads, width // heads, dropout=0.1)
        self.norm1 = layers.LayerNormalization(epsilon=1e-12)
        self.norm2 = layers.LayerNormalization(epsilon=1e-12)
        self.up = layers.Dense(ffn, activation="gelu")
        self.down = layers.Dense(width)
        self.dropout_attention = layers.Dropout(0.1)
        self.dropout_ffn = layers.Dropout(0.1)
        self.dropout_out = layers.Dropout(0.1)

    def call(self, x: Any, training: bool | None = None) -> Any:
        attended = self.attention(x, x, training=training)
        x = self.norm1(x + self.dropout_attention(attended, training=training))
        y = self.down(self.dropout_ffn(self.up(x), training=training))
        return self.norm2(x + self.dropout_out(y, training=training))


class TiedDecoder(layers.Layer):
    """Logits against the word embedding matrix (tied, as in BERT) plus a bias per word."""

    def __init__(self, embedding: layers.Embedding, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.embedding = embedding

    def build(self, input_shape: Any) -> None:
        self.bias = self.add_weight(
            shape=(self.embedding.input_dim,), initializer="zeros", name="bias"
        )

    def call(self, x: Any) -> Any:
        matrix = keras.ops.cast(self.embedding.embeddings, self.compute_dtype)
        return keras.ops.matmul(x, keras.ops.transpose(matrix)) + self.bias

    def forward_flops(self, input_shape: tuple[int, ...], output_shape: Any) -> float:
        """For engine/worker/frameworks/tensorflow/flops.py, which cannot see a raw matmul: 2
        FLOPs per multiply-add of the product with the (width x vocabulary) matrix."""
        return 2.0 * math.prod(input_shape) * self.embedding.input_dim


def _bert_base(w: Workload) -> KerasTask:
    (length,) = w.input_shape
    vocab, width = w.num_classes, 768
    inputs = keras.Input((length,), dtype="int32")
    embeddings = BertEmbeddings(vocab, width)
    x = layers.LayerNormalization(epsilon=1e-12)(embeddings(inputs))
    x = layers.Dropout(0.1)(x)
    for _ in range(12):
        x = EncoderLayer(width, heads=12, ffn=3072)(x)
    x = layers.Dense(width, activation="gelu")(x)
    x = layers.LayerNormalization(epsilon=1e-12)(x)
    outputs = TiedDecoder(embeddings.word)(x)
    model = keras.Model(inputs, outputs, name=w.name)

    def make_batch(batch_size: int) -> tuple[Any, Any]:
        tokens = tf.random.uniform((batch_size, length), 0, vocab, dtype=tf.int32)
        masked = tf.random.uniform((batch_size, length)) < 0.15
        labels = tf.where(masked, tokens, -100)  # -100: not predicted
        return tokens, labels

    def loss(labels: Any, logits: Any) -> Any:
        predicted = labels >= 0
        per_token = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.where(predicted, labels, 0), logits=tf.cast(logits, tf.float32)
        )
        weights = tf.cast(predicted, tf.float32)
        return tf.reduce_sum(per_token * weights) / tf.maximum(tf.reduce_sum(weights), 1.0)

    return KerasTask(model, make_batch, loss)


_BUILDERS: dict[str, Callable[[Workload], KerasTask]] = {
    "resnet18-cifar": _resnet18_cifar,
    "resnet50-cifar": _resnet50_cifar,
    "resnet50": _resnet50,
    "inception-v3": _inception_v3,
    "lstm-char-cnn": _lstm_char_cnn,
    "bert-base": _bert_base,
    "tiny-mlp": _tiny_mlp,
}
