"""Keras models whose FLOPs tests/engine/test_keras_flops.py checks. Run as a script in its own
process (`python -m tests.engine.keras_flops_cases`): it imports TensorFlow, which the pytest
process never does. Prints one JSON object: case name -> counts."""

from __future__ import annotations

import json
import math
import os
import sys

os.environ["KERAS_BACKEND"] = "tensorflow"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _cases(keras, layers):  # noqa: ANN001, ANN202
    class Tied(layers.Layer):
        """Logits against another layer's matrix, with its own count (the hook)."""

        def __init__(self, embedding, **kwargs):  # noqa: ANN001, ANN003
            super().__init__(**kwargs)
            self.embedding = embedding

        def call(self, x):  # noqa: ANN001, ANN201
            return keras.ops.matmul(x, keras.ops.transpose(self.embedding.embeddings))

        def forward_flops(self, input_shape, output_shape):  # noqa: ANN001, ANN201
            return 2.0 * math.prod(input_shape) * self.embedding.input_dim

    class RawMatmul(layers.Layer):
        """A product the counter cannot see (no hook, no layers called)."""

        def build(self, input_shape):  # noqa: ANN001, ANN201
            self.w = self.add_weight(shape=(input_shape[-1], 3))

        def call(self, x):  # noqa: ANN001, ANN201
            return keras.ops.matmul(x, self.w)

    class Block(layers.Layer):
        """A custom block counted through the layers it calls."""

        def __init__(self, **kwargs):  # noqa: ANN003
            super().__init__(**kwargs)
            self.up = layers.Dense(12)
            self.down = layers.Dense(6)

        def call(self, x):  # noqa: ANN001, ANN201
            return x + self.down(keras.ops.relu(self.up(x)))

    image = keras.Input((8, 8, 3))
    x = layers.Conv2D(4, 3, padding="same")(image)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    x = layers.DepthwiseConv2D(3)(x)
    x = layers.SeparableConv2D(5, 3)(x)
    x = layers.Conv2DTranspose(2, 2, strides=2)(x)
    x = layers.MaxPooling2D(1)(x)
    conv = keras.Model(image, layers.Dense(7)(layers.Flatten()(x)))

    steps = keras.Input((10, 6))
    x = layers.LSTM(5, return_sequences=True)(steps)
    x = layers.GRU(4, return_sequences=True)(x)
    x = layers.Bidirectional(layers.SimpleRNN(3))(x)
    recurrent = keras.Model(steps, layers.Dense(2)(x))

    tokens = keras.Input((16,), dtype="int32")
    embedding = layers.Embedding(100, 32)
    x = embedding(tokens)
    x = layers.MultiHeadAttention(num_heads=4, key_dim=8)(x, x)
    x = layers.Dense(32)(layers.Dense(64)(x))
    x = layers.EinsumDense("abc,cd->abd", output_shape=(None, 10))(x)
    attention = keras.Model(tokens, x)

    x = embedding(tokens)
    x = Block()(layers.Dense(6)(x))
    vocabulary = layers.Embedding(50, 6)
    vocabulary.build((None,))
    custom = keras.Model(tokens, [Tied(vocabulary)(x), RawMatmul()(x)])
    return {
        "conv": (conv, (8, 8, 3), "float32"),
        "recurrent": (recurrent, (10, 6), "float32"),
        "attention": (attention, (16,), "int32"),
        "custom": (custom, (16,), "int32"),
        "resnet50": (keras.applications.ResNet50(weights=None), (224, 224, 3), "float32"),
    }


def main() -> None:
    import keras
    from keras import layers

    from engine.worker.frameworks.tensorflow import flops as keras_flops

    original_call = keras.layers.Layer.__call__
    out = {}
    for name, (model, shape, dtype) in _cases(keras, layers).items():
        one = keras.ops.zeros((1, *shape), dtype=dtype)
        four = keras.ops.zeros((4, *shape), dtype=dtype)
        single = keras_flops.count_forward(model, one)
        step = keras_flops.training_step_flops(model, four, 4)
        out[name] = {
            "forward": single.forward_flops,
            "forward_batch4": keras_flops.count_forward(model, four).forward_flops,
            "step_batch4": step.training_step_flops,
            "by_type": single.by_layer_type,
            "uncounted": list(single.uncounted),
            "method": step.method,
        }
    out["call_restored"] = keras.layers.Layer.__call__ is original_call
    out["torch_loaded"] = "torch" in sys.modules
    print(json.dumps(out))


if __name__ == "__main__":
    main()
