"""TensorFlow sessions: a workload's Keras 3 model trained by one compiled tf.function step.

Two sources of batches over one runtime (engine/worker/frameworks/tensorflow/runtime.py): TfSession
trains on one fixed synthetic batch (timed runs), TfTrainer on a real data set with evaluation
(cost to accuracy), with the PyTorch side's input pipeline, optimizers and timing: the numpy
batch (engine.workloads.data.batches, channels last: Keras's layout) is copied into a tensor
inside every step. This module is loaded only by the worker.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import Any

from engine.core.events import Event, Phase
from engine.measure.accuracy_config import AccuracyConfig
from engine.measure.config import RunConfig
from engine.worker.accuracy import inputs
from engine.worker.frameworks.tensorflow import data as tf_data
from engine.worker.frameworks.tensorflow.runtime import (
    TENSOR_CAP_NOTE,
    TfRuntime,
    TrainingStep,
    start_runtime,
)
from engine.worker.frameworks.timers import WallTimer
from engine.worker.measure import input_wait
from engine.worker.workloads.file_workload import FileWorkload
from engine.workloads.data import Dataset
from engine.workloads.registry import Workload


class TfSession(TfRuntime):
    """Timed runs: one synthetic batch every step; or, with an input pipeline (--data,
    make_dataset), the next tf.data batch every step."""

    def __init__(
        self, tf: Any, keras: Any, config: RunConfig, workload: Workload, gpu: int | None
    ) -> None:
        from engine.worker.frameworks.tensorflow import models as keras_models

        super().__init__(tf, keras, config, gpu)
        self._config = config
        with tf.device(self._tf_device):
            task = _build_task(workload, config, self.device)
            self._inputs, self._targets = task.make_batch(config.batch_size)
            training = TrainingStep(
                tf,
                keras,
                task,
                config.optimizer,
                config.precision,
                config.resolved_learning_rate,
            )
        self.parameters = keras_models.parameter_count(task.model)
        self._model = task.model
        self._feed = tf_data.open_feed(tf, config, workload, self._tf_device, gpu is not None)
        # Host seconds each step waited for its batch (and its copy to a GPU); None with
        # synthetic batches, whose step stays as it was.
        self.input_waits: list[float] | None = None
        self.data_record: dict[str, Any] | None = None
        self.data_samples: int | None = None
        if self._feed is not None:
            self.input_waits, self.data_record = [], self._feed.record
            model_file = workload.path if isinstance(workload, FileWorkload) else None
            self._data_limit = (config.max_seconds, input_wait.source_name(config.data, model_file))
            self.data_samples = self._feed.samples
            self.step = self._step_fed  # type: ignore[method-assign]
        # tf.function traces on its first call (and XLA compiles then, with jit_compile), so
        # the measuring loop keeps that call out of the window and reports its time apart.
        # jit_compile None (not False) leaves TensorFlow's own default when XLA is not asked for.
        jit = True if config.compile else None
        if self._feed is None:
            # The synthetic batch is the same at every step: the step closes over it. Passed
            # as arguments, tf.function's handling of them cost a millisecond step 7%
            # (benchmarks/harness_overhead.py, tiny-mlp), which a hand loop does not pay.
            inputs, targets = self._inputs, self._targets
            self._train_step = tf.function(lambda: training(inputs, targets), jit_compile=jit)
        else:
            self._train_step = tf.function(training, jit_compile=jit)
        self.compiles = True
        self.flops_method: str | None = None  # set by flops_per_step
        self.composition: dict[str, Any] | None = None  # set by flops_per_step
        self._traces_after_first: int | None = None
        self._notes: list[str] = []  # for the result, with the first window's warnings
        if self._tensor_cap:
            self._notes.append(TENSOR_CAP_NOTE)
        self._last_loss: Any = None
        # On the CPU the call returns when its kernels have run, so the clock around it is the
        # step. On a GPU the call returns once the kernels are queued; TensorFlow has no device
        # timing events, so these are host times, which follow the device once CUDA's launch
        # queue is full; the window's throughput stands on its two synchronisations either way.
        self.timer: Any = WallTimer()

    def step(self) -> None:
        self._last_loss = self._train_step()  # not read: no sync
        if self._traces_after_first is None:
            self._traces_after_first = self._train_step.experimental_get_tracing_count()

    def _step_fed(self) -> None:
        t0 = time.perf_counter()
        with input_wait.bounded(*self._data_limit):  # the time limit holds for the wait too
            inputs, targets = self._feed.next()  # type: ignore[union-attr]
        self.input_waits.append(time.perf_counter() - t0)  # type: ignore[union-attr]
        self._last_loss = self._train_step(inputs, targets)
        if self._traces_after_first is None:
            self._traces_after_first = self._train_step.experimental_get_tracing_count()

    def flops_per_step(self) -> float | None:
        """FLOPs of one training step (forward + backward), counted once per layer from the
        shapes of one eager forward (engine/worker/frameworks/tensorflow/flops.py: matrix products,
        convolutions, attention at 2 FLOPs per multiply-add; a step is 3x the forward)."""
        from engine.worker.frameworks.tensorflow import composition
        from engine.worker.frameworks.tensorflow import flops as keras_flops

        with self._tf.device(self._tf_device):
            count = keras_flops.training_step_flops(
                self._model, self._inputs, self._config.batch_size
            )
        self.flops_method = count.method
        self.composition = composition.of_model(count.by_kind, self._model)
        return count.training_step_flops

    def sync(self) -> None:
        # Waits for every device's queued kernels (a GPU stream); on the CPU it returns at
        # once because each step has already run.
        self._tf.test.experimental.sync_devices()

    def loss(self) -> float | None:
        return None if self._last_loss is None else float(self._last_loss.numpy())

    def reset_peak_memory(self) -> None:
        if self._gpu is not None:
            self._tf.config.experimental.reset_memory_stats("GPU:0")

    def window_warnings(self) -> list[str]:
        out, self._notes = self._notes, []
        traces = self._train_step.experimental_get_tracing_count()
        if self._traces_after_first is not None and traces != self._traces_after_first:
            out.append(
                f"the training step was traced again {traces - self._traces_after_first} "
                "time(s) after its first call; a trace inside the measured window makes it "
                "slower than training is"
            )
            self._traces_after_first = traces
        return out

    def close(self) -> None:
        # Drop the batch, the pipeline and the last loss so their memory can go.
        self._inputs = self._targets = self._last_loss = self._feed = None


def _build_task(workload: Workload, config: RunConfig, device: str) -> Any:
    """The built-in workload's Keras task, or the user's model file's (a KerasFileTask: the
    same model / make_batch / loss)."""
    if isinstance(workload, FileWorkload) and workload.spec is not None:
        from engine.worker.frameworks.tensorflow import model_file as keras_model_file

        return keras_model_file.build_task(
            workload.spec, config.batch_size, device, config.precision, config.seed
        )
    from engine.worker.frameworks.tensorflow import models as keras_models

    return keras_models.build(workload)


class TfTrainer(TfRuntime):
    def __init__(
        self,
        tf: Any,
        keras: Any,
        config: AccuracyConfig,
        workload: Workload,
        data: Dataset,
        gpu: int | None,
    ) -> None:
        from engine.worker.frameworks.tensorflow import models as keras_models

        super().__init__(tf, keras, config, gpu)
        self._config = config
        prepared = inputs.prepare(data, config, channels_first=False)
        self._batches = prepared.train
        self._eval_slices = prepared.eval_slices()
        with tf.device(self._tf_device):
            task = keras_models.build(workload)
            training = TrainingStep(
                tf, keras, task, config.optimizer, config.precision, config.resolved_learning_rate
            )
            # The held-out split goes to the device once, before training. A numpy array's
            # tensor is made in host memory; tf.identity copies it to the device (on the CPU it
            # hands the same buffer on).
            self._x_test = tf.identity(self._tensor(prepared.x_test))
            self._y_test = tf.identity(self._tensor(prepared.y_test))
        self._model = task.model
        self.parameters = keras_models.parameter_count(task.model)
        self._last_loss: Any = None
        self._train_step, self._eval_part = self._functions(training, data.info.input_shape)

    def _functions(self, training: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
        """The training step and a held-out forward pass as tf.functions, traced here, at
        set-up (the graph is built once, like the model): the first step runs a finished graph.
        Fixed signatures, so nothing traces again. XLA (--compile) compiles at the first call,
        inside the time to accuracy, as torch.compile does on the PyTorch side."""
        tf, batch = self._tf, self._config.batch_size
        step = tf.function(
            training,
            input_signature=[
                tf.TensorSpec((batch, *shape), tf.float32),
                tf.TensorSpec((batch,), tf.int64),
            ],
            jit_compile=True if self._config.compile else None,
        )
        evaluate = tf.function(
            self._eval_fn,
            input_signature=[
                tf.TensorSpec((None, *shape), tf.float32),
                tf.TensorSpec((None,), tf.int64),
            ],
        )
        t0 = time.perf_counter()
        step.get_concrete_function()  # traces without running: the weights are untouched
        evaluate.get_concrete_function()
        self._trace_seconds = time.perf_counter() - t0
        return step, evaluate

    def _eval_fn(self, images: Any, labels: Any) -> tuple[Any, Any]:
        """(correct predictions, summed cross-entropy) of one held-out forward pass."""
        tf = self._tf
        logits = tf.cast(self._model(images, training=False), tf.float32)
        losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        correct = tf.equal(tf.argmax(logits, axis=1), labels)
        return tf.reduce_sum(tf.cast(correct, tf.int64)), tf.reduce_sum(losses)

    def _tensor(self, array: Any) -> Any:
        """A numpy array as a tensor (a copy). Under the tensor cap TensorFlow crashes (SIGSEGV)
        when such a copy does not fit its allocator, so an op first takes the same size: that
        fails as ResourceExhaustedError (out of memory), or frees the room the copy then takes."""
        tf = self._tf
        if self._tensor_cap:
            tf.raw_ops.Empty(shape=array.shape, dtype=tf.as_dtype(array.dtype), init=False)
        return tf.constant(array)

    def step(self) -> None:
        images, labels = self._batches.next()
        # The numpy batch becomes the step's input tensors (on a GPU the step copies them
        # there); the loss is not read, so nothing waits for the device.
        self._last_loss = self._train_step(self._tensor(images), self._tensor(labels))

    def evaluate(self) -> tuple[float, float]:
        parts = [self._eval_part(self._x_test[s], self._y_test[s]) for s in self._eval_slices]
        correct = self._tf.add_n([c for c, _ in parts])
        loss_sum = self._tf.add_n([loss for _, loss in parts])
        count = int(self._y_test.shape[0])
        # .numpy() waits until the device has computed them.
        return int(correct.numpy()) / count, float(loss_sum.numpy()) / count

    def sync(self) -> None:
        # Waits for every device's queued kernels (a GPU stream); on the CPU each step has
        # already run when its call returns.
        self._tf.test.experimental.sync_devices()

    def loss(self) -> float | None:
        return None if self._last_loss is None else float(self._last_loss.numpy())

    def warnings(self) -> list[str]:
        return [TENSOR_CAP_NOTE] if self._tensor_cap else []

    def environment(self) -> dict[str, Any]:
        env = super().environment()
        env["trace_seconds"] = self._trace_seconds  # part of set-up, not of the time to accuracy
        return env

    def close(self) -> None:
        # Drop the held-out split and the last loss so their device memory can go.
        self._x_test = self._y_test = self._last_loss = None


def open_session(config: RunConfig, workload: Workload, run_id: str) -> Generator[Event, None, Any]:
    tf, keras, gpu = start_runtime(config)
    device = "cpu" if gpu is None else f"cuda:{gpu}"
    yield Phase(run_id=run_id, phase="building", detail=f"{workload.name} on {device}")
    return TfSession(tf, keras, config, workload, gpu)


def open_trainer(
    config: AccuracyConfig, workload: Workload, data: Dataset, run_id: str
) -> Generator[Event, None, Any]:
    tf, keras, gpu = start_runtime(config)
    device = "cpu" if gpu is None else f"cuda:{gpu}"
    yield Phase(
        run_id=run_id,
        phase="building",
        detail=f"{workload.name} on {device}, data set {data.info.name}",
    )
    return TfTrainer(tf, keras, config, workload, data, gpu)
