"""A minimal hand-written TensorFlow training loop: the reference the harness is measured against.

Prints one JSON line: {"throughput_samples_per_s": ...}, the faster of a hand-written
tf.function step and Keras's own compiled train step (benchmarks/keras_reference.py), with both
figures. Same model as epochcost's resnet18-cifar in TensorFlow (its Keras builder: the model is
not what this compares), SGD with momentum, a synthetic batch.
"""

from __future__ import annotations

import argparse
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["KERAS_BACKEND"] = "tensorflow"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()

    import tensorflow as tf
    from keras_reference import fastest

    from engine.worker.frameworks.tensorflow import models as keras_models
    from engine.workloads import registry

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    workload = registry.get("resnet18-cifar")
    rates = fastest(
        lambda: keras_models.build(workload).model, args.batch_size, args.warmup, args.steps
    )
    print(json.dumps(rates))


if __name__ == "__main__":
    main()
