"""A small character-level GPT (decoder-only transformer), as an epochcost model file (Keras on
TensorFlow).

    epochcost models --model-file assets/examples/keras_char_lm.py
    epochcost run --model-file assets/examples/keras_char_lm.py --batch-size 32
"""

import keras
from keras import layers

NAME = "char-gpt-small-keras"
FRAMEWORK = "tensorflow"
VOCAB = 65  # the characters of Tiny Shakespeare
BLOCK = 128  # context length in characters
INPUT_SHAPE = (BLOCK,)  # one sequence of character ids
INPUT_DTYPE = "int32"  # ids are drawn from 0..VOCAB-1 (the tokens target's range)
TARGET = ("tokens", VOCAB)  # next character at each position; outputs (batch, BLOCK, VOCAB)
EPOCH_SAMPLES = 1_003_854 // BLOCK  # Tiny Shakespeare's training characters, in sequences


class PositionalEmbedding(layers.Layer):
    def __init__(self, vocab, block, width, **kwargs):
        super().__init__(**kwargs)
        self.token = layers.Embedding(vocab, width)
        self.position = layers.Embedding(block, width)

    def call(self, ids):
        positions = keras.ops.arange(keras.ops.shape(ids)[1])
        return self.token(ids) + self.position(positions)


def decoder_block(x, width, heads):
    h = layers.LayerNormalization()(x)
    h = layers.MultiHeadAttention(heads, width // heads, dropout=0.1)(h, h, use_causal_mask=True)
    x = x + h
    h = layers.LayerNormalization()(x)
    h = layers.Dense(4 * width, activation="gelu")(h)
    h = layers.Dropout(0.1)(layers.Dense(width)(h))
    return x + h


def build_model(batch_size, hints, width=128, depth=4, heads=4):
    ids = keras.Input((BLOCK,), dtype="int32")
    x = PositionalEmbedding(VOCAB, BLOCK, width)(ids)
    for _ in range(depth):
        x = decoder_block(x, width, heads)
    x = layers.LayerNormalization()(x)
    logits = layers.Dense(VOCAB, use_bias=False)(x)
    return keras.Model(ids, logits, name=NAME)
