"""A minimal hand-written TensorFlow training loop: the reference the harness is measured against.

Prints one JSON line: {"throughput_samples_per_s": ...}. Same model as epochcost's resnet18-cifar
in TensorFlow (its Keras builder: the model is not what this compares), SGD with momentum, a
synthetic batch, one tf.function step; everything else written here by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["KERAS_BACKEND"] = "tensorflow"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()

    import keras
    import tensorflow as tf

    from engine.worker.frameworks.tensorflow import models as keras_models
    from engine.workloads import registry

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    keras.utils.set_random_seed(0)
    model = keras_models.build(registry.get("resnet18-cifar")).model
    opt = keras.optimizers.SGD(learning_rate=0.01, momentum=0.9, weight_decay=5e-4)
    opt.build(model.trainable_variables)
    x = tf.random.normal((args.batch_size, 32, 32, 3))
    y = tf.random.uniform((args.batch_size,), 0, 10, dtype=tf.int32)

    @tf.function
    def step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            )
        opt.apply(tape.gradient(loss, model.trainable_variables), model.trainable_variables)
        return loss

    for _ in range(args.warmup):  # the first call traces the function
        step(x, y)
    tf.test.experimental.sync_devices()  # start timing from an idle device
    t0 = time.perf_counter()
    for _ in range(args.steps):
        step(x, y)
    tf.test.experimental.sync_devices()  # every step's work done before the clock is read
    seconds = time.perf_counter() - t0
    print(json.dumps({"throughput_samples_per_s": args.steps * args.batch_size / seconds}))


if __name__ == "__main__":
    main()
