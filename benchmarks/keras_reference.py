"""The fastest honest TensorFlow reference for a hand loop: the faster of a hand-written
tf.function step and Keras's own compiled train step (`model.compile` then the train function
`fit` runs, fed one synthetic batch again and again), timed the same way on the same model,
optimizer and batch. A harness ratio above 1 against it then means the harness is faster than
Keras itself, not faster than a slow hand loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

WEIGHT_DECAY = 5e-4  # torch.optim.SGD's, added to the gradient (engine's TrainingStep does so)


def _timed(step: Callable[[], Any], warmup: int, steps: int, batch_size: int) -> float:
    import tensorflow as tf

    for _ in range(warmup):  # the first call traces the function
        step()
    tf.test.experimental.sync_devices()  # start timing from an idle device
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    tf.test.experimental.sync_devices()  # every step's work done before the clock is read
    return steps * batch_size / (time.perf_counter() - t0)


def fastest(build: Callable[[], Any], batch_size: int, warmup: int, steps: int) -> dict:
    """Samples/s of both references on fresh models from `build()`, and the faster one."""
    import keras
    import tensorflow as tf

    x = tf.random.normal((batch_size, 32, 32, 3))
    y = tf.random.uniform((batch_size,), 0, 10, dtype=tf.int32)

    def optimizer() -> Any:
        # Momentum 0.9, weight decay added to the gradient below: torch.optim.SGD's maths, as
        # the harness's step does it (Keras's own weight_decay is decoupled and costs more).
        return keras.optimizers.SGD(learning_rate=0.01, momentum=0.9)

    class CoupledDecaySGD(keras.optimizers.SGD):  # type: ignore[misc]
        """Keras's SGD with the weight decay added to each gradient before momentum, as
        torch.optim.SGD and the harness do: Keras's own train step then does the same maths."""

        def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
            decayed = keras.ops.add(gradient, keras.ops.multiply(variable, WEIGHT_DECAY))
            super().update_step(decayed, variable, learning_rate)

    keras.utils.set_random_seed(0)
    model, opt = build(), optimizer()
    opt.build(model.trainable_variables)

    @tf.function
    def hand_step() -> tf.Tensor:
        variables = model.trainable_variables
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            )
        grads = tape.gradient(loss, variables)
        opt.apply([g + WEIGHT_DECAY * v for g, v in zip(grads, variables, strict=True)], variables)
        return loss

    hand = _timed(hand_step, warmup, steps, batch_size)

    keras.utils.set_random_seed(0)
    compiled = build()
    compiled.compile(
        optimizer=CoupledDecaySGD(learning_rate=0.01, momentum=0.9),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    # Keras's own train function, as fit() calls it: one step per call from an iterator, with
    # the weight decay in its optimizer's update (until 2026-11-26 it had none, and did less).
    compiled.make_train_function()
    train = compiled.train_function
    batches = iter(tf.data.Dataset.from_tensors((x, y)).repeat())
    own = _timed(lambda: train(batches), warmup, steps, batch_size)
    return {
        "throughput_samples_per_s": max(hand, own),
        "tf_function_samples_per_s": hand,
        "keras_train_step_samples_per_s": own,
    }
