"""A small CNN for CIFAR-10-sized images, as an epochcost model file (Keras on TensorFlow).

    epochcost models --model-file assets/examples/keras_image_classifier.py
    epochcost run --model-file assets/examples/keras_image_classifier.py --batch-size 128
"""

import keras
from keras import layers

NAME = "small-cnn-cifar-keras"
FRAMEWORK = "tensorflow"
INPUT_SHAPE = (32, 32, 3)  # one image, channels last as Keras takes it
INPUT_DTYPE = "float32"
TARGET = ("classes", 10)  # the model returns logits (batch, 10); loss: cross-entropy
EPOCH_SAMPLES = 50_000  # CIFAR-10's training set


def build_model(batch_size, hints):
    inputs = keras.Input(INPUT_SHAPE)
    x = inputs
    for filters in (32, 64, 128):  # 16x16, 8x8, 4x4
        x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.MaxPooling2D(2)(x)
    x = layers.Flatten()(x)
    x = layers.Dropout(0.2)(x)
    outputs = layers.Dense(10)(x)  # logits: no softmax
    return keras.Model(inputs, outputs, name=NAME)
