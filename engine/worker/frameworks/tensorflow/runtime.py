"""What every TensorFlow session shares: Keras 3 on TensorFlow started as a config asks
(device, threads, memory cap, precision policy, seed), the training step's maths, and what the
result records about the runtime.

tensorflow and keras are imported inside start_runtime only; the worker loads this framework
(engine/worker/measure/session.py) and never imports torch beside it. Threads, visible devices
and GPU memory growth are set before TensorFlow initialises its devices (they cannot change
afterwards).
"""

from __future__ import annotations

import logging
import os
import warnings
from typing import Any

from engine.core.errors import RunFailed
from engine.measure.config import TrainingConfig
from engine.worker.frameworks.tensorflow.address_space import lift_cap, outside_cap
from engine.worker.frameworks.tensorflow.build import check_gpu

_POLICIES = {
    "fp32": "float32",
    "tf32": "float32",
    "fp16": "mixed_float16",
    "bf16": "mixed_bfloat16",
}
TF32_NEEDS = (
    "precision: tf32 needs an NVIDIA GPU of compute capability 8.0 or newer (Ampere); "
    "use fp32 or bf16 on the CPU, fp32 or fp16 on an older GPU"
)
TENSOR_CAP_NOTE = (
    "memory cap: TensorFlow ran with oneDNN off and its tensors in a BFC allocator held to the "
    "cap (so that running out is reported, not a crash); the speed is not that of an uncapped run"
)


def resolve_device(tf: Any, requested: str) -> int | None:
    """The GPU index to use (TensorFlow's order, as CUDA's), or None for the CPU.
    A device not here is a config error."""
    gpus = tf.config.list_physical_devices("GPU")  # lists without initialising the runtime
    if requested == "auto":
        return 0 if gpus else None
    if requested == "cpu":
        return None
    if requested == "mps":
        raise RunFailed(
            "config", "device: mps is PyTorch's Apple GPU; TensorFlow runs on cpu or cuda here"
        )
    if not gpus:
        raise RunFailed(
            "config",
            "device: TensorFlow sees no CUDA GPU here (the CPU build, or no driver); "
            "use --device cpu, or install tensorflow[and-cuda] (see docs/tensorflow.md)",
        )
    index = int(requested.split(":")[1]) if ":" in requested else 0
    if index >= len(gpus):
        raise RunFailed("config", f"device: cuda:{index} does not exist ({len(gpus)} GPUs)")
    return index


def _configure_devices(tf: Any, gpu: int | None, threads: int | None) -> None:
    """Before the runtime starts: threads, only the chosen GPU visible, memory growth on it
    (TensorFlow otherwise maps nearly all GPU memory, and the peak would say nothing)."""
    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    gpus = tf.config.list_physical_devices("GPU")
    if gpu is None:
        tf.config.set_visible_devices([], "GPU")
        return
    tf.config.set_visible_devices([gpus[gpu]], "GPU")
    tf.config.experimental.set_memory_growth(gpus[gpu], True)


def _cap_tensor_memory(limit_bytes: int) -> None:
    """The worker's memory cap, for TensorFlow on the CPU: its tensors come from its BFC
    allocator held to the cap (read when the runtime starts), so that a batch too large fails as
    ResourceExhaustedError. The runner's address-space cap is lifted: under it TensorFlow
    crashes (SIGSEGV in Eigen's or oneDNN's own buffers) in whichever allocation fails first."""
    os.environ["TF_CPU_ALLOCATOR_USE_BFC"] = "true"
    os.environ["TF_CPU_BFC_MEM_LIMIT_IN_MB"] = str(max(1, limit_bytes >> 20))
    lift_cap()


def _check_precision(tf: Any, gpu: int | None, precision: str) -> None:
    if precision == "fp16" and gpu is None:
        raise RunFailed("config", "precision: fp16 needs a GPU; use bf16 or fp32 on the CPU")
    if precision in ("bf16", "tf32") and gpu is not None:
        details = tf.config.experimental.get_device_details(
            tf.config.list_physical_devices("GPU")[gpu]
        )
        if details.get("compute_capability", (0, 0)) < (8, 0):
            if precision == "tf32":
                raise RunFailed("config", TF32_NEEDS)
            raise RunFailed("config", "precision: this GPU has no bf16; use fp16 or fp32")
    if precision == "tf32" and gpu is None:
        raise RunFailed("config", TF32_NEEDS)
    # TensorFlow's own default runs float32 matmuls and convolutions as TF32 on Ampere and
    # newer: fp32 leaves it, tf32 asks for it. The run's environment records which (tf32_matmul).
    if precision == "tf32":
        tf.config.experimental.enable_tensor_float_32_execution(True)


def _quiet(tf: Any) -> None:
    """TensorFlow's and Keras's Python-side chatter off (the C++ side is TF_CPP_MIN_LOG_LEVEL,
    set by the worker); real errors still come as exceptions, and so as `failed` events."""
    if os.environ.get("EPOCHCOST_VERBOSE"):
        return
    tf.get_logger().setLevel(logging.ERROR)
    logging.getLogger("absl").setLevel(logging.ERROR)
    for module in ("keras", "tensorflow"):
        warnings.filterwarnings("ignore", module=module)


class TfRuntime:
    """What a TensorFlow session (timed runs) and trainer (cost to accuracy) share: the started
    runtime, the device, the tensor cap, and what the result records about them."""

    def __init__(self, tf: Any, keras: Any, config: TrainingConfig, gpu: int | None) -> None:
        self._tf = tf
        self._keras = keras
        self._gpu = gpu
        self._precision = config.precision
        self._xla = bool(config.compile)
        self.device = "cpu" if gpu is None else f"cuda:{gpu}"
        # With one GPU visible it is TensorFlow's GPU:0, whatever its CUDA index.
        self._tf_device = "/CPU:0" if gpu is None else "/GPU:0"
        self._tensor_cap = config.memory_limit_bytes if gpu is None else None
        self._memory_total = gpu_memory_total(self.device) if gpu is not None else None

    def device_memory(self) -> dict[str, Any] | None:
        if self._gpu is None:
            return None  # the runner reports the process's peak RSS
        info = self._tf.config.experimental.get_memory_info("GPU:0")
        return {
            # With memory growth on, the allocator's peak is what the model used; NVML's
            # per-process figure (with the CUDA context) wins in the result when larger.
            "peak_bytes": int(info["peak"]),
            "total_bytes": self._memory_total,
            "source": "tf.config.experimental.get_memory_info",
        }

    def environment(self) -> dict[str, Any]:
        tf, build = self._tf, self._tf.sysconfig.get_build_info()
        env: dict[str, Any] = {
            "framework": "tensorflow",
            "framework_version": tf.__version__,
            "keras_version": self._keras.__version__,
            "device": self.device,
            # 0 means TensorFlow's default: one thread per CPU this process may run on.
            "threads": tf.config.threading.get_intra_op_parallelism_threads()
            or len(os.sched_getaffinity(0)),
            "inter_op_threads": tf.config.threading.get_inter_op_parallelism_threads() or None,
            "cuda": build.get("cuda_version"),
            "cudnn": build.get("cudnn_version"),
            "xla": self._xla,
            "precision_policy": _POLICIES[self._precision],
            "data_format": "channels_last",  # Keras's native layout; --channels-last is moot
            # oneDNN kernels change CPU speed a lot; None is TensorFlow's default (on, on x86).
            "onednn_opts": os.environ.get("TF_ENABLE_ONEDNN_OPTS"),
            "tensor_memory_cap_bytes": self._tensor_cap,
        }
        if self._gpu is not None:
            details = tf.config.experimental.get_device_details(
                tf.config.list_physical_devices("GPU")[self._gpu]  # physical: all GPUs
            )
            env["device_name"] = details.get("device_name")
            capability = details.get("compute_capability")
            env["device_capability"] = ".".join(map(str, capability)) if capability else None
            env["device_memory_bytes"] = self._memory_total
            # Which peak MFU is measured against for fp32 (engine/measure/utilisation.py).
            env["tf32_matmul"] = bool(tf.config.experimental.is_tensor_float_32_execution_enabled())
        return env


class TrainingStep:
    """One training iteration with the PyTorch side's optimizers and maths: SGD (momentum 0.9,
    weight decay 5e-4 added to the gradient before momentum, as torch.optim.SGD does; Keras's
    own weight decay is decoupled) or Adam (torch's epsilon). Under fp16 the loss is scaled
    and overflowing steps skipped, as torch's GradScaler does. Build it inside the device
    scope; wrap it in tf.function. Called with (inputs, targets), it returns the loss."""

    def __init__(
        self, tf: Any, keras: Any, task: Any, name: str, precision: str, learning_rate: float
    ) -> None:
        self._tf = tf
        self._model = task.model
        self._loss_fn = task.loss
        if name == "sgd":
            optimizer = keras.optimizers.SGD(learning_rate=learning_rate, momentum=0.9)
        else:
            optimizer = keras.optimizers.Adam(learning_rate=learning_rate, epsilon=1e-8)
        self._weight_decay = 5e-4 if name == "sgd" else 0.0
        if precision == "fp16":
            optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
        optimizer.build(task.model.trainable_variables)
        self.optimizer = optimizer

    def __call__(self, inputs: Any, targets: Any) -> Any:
        tf, model, optimizer = self._tf, self._model, self.optimizer
        variables = model.trainable_variables
        with tf.GradientTape() as tape:
            loss = self._loss_fn(targets, model(inputs, training=True))
            scaled = optimizer.scale_loss(loss)  # the loss itself unless fp16 scales it
        grads = tape.gradient(scaled, variables)
        if self._weight_decay:
            decay = optimizer.scale_loss(self._weight_decay)  # scaled as the gradients are
            grads = [
                g if g is None else g + decay * v for g, v in zip(grads, variables, strict=True)
            ]
        optimizer.apply(grads, variables)
        return loss


def gpu_memory_total(device: str) -> int | None:
    """The GPU's memory (bytes) from NVML; TensorFlow has no call for it. None without NVML."""
    from engine.measure.probes import open_probe

    probe = open_probe(device)
    try:
        return None if probe.name == "cpu" else probe.read().memory_total_bytes
    finally:
        probe.close()


def start_runtime(config: TrainingConfig) -> tuple[Any, Any, int | None]:
    """Import Keras on TensorFlow and start TensorFlow's runtime as `config` asks (device,
    threads, memory cap, precision policy, seed); returns (tf, keras, gpu index or None)."""
    # Keras 3 picks its backend from KERAS_BACKEND at import: a user's "torch" or "jax" there
    # would load that framework into this process.
    os.environ["KERAS_BACKEND"] = "tensorflow"
    import keras
    import tensorflow as tf  # already imported by the backend's or the trainer's load()

    _quiet(tf)
    gpu = resolve_device(tf, config.device)
    if gpu is not None:
        check_gpu(tf, gpu)  # before anything runs a kernel there
    _check_precision(tf, gpu, config.precision)
    if gpu is None and config.memory_limit_bytes:
        _cap_tensor_memory(config.memory_limit_bytes)
    with outside_cap():  # the runtime's own start is not the model's memory
        _configure_devices(tf, gpu, config.threads)
        tf.config.list_logical_devices()  # starts the runtime: devices and thread pools
    keras.utils.set_random_seed(config.seed)
    keras.mixed_precision.set_global_policy(_POLICIES[config.precision])
    return tf, keras, gpu
