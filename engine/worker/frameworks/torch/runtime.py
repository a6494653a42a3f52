"""What every PyTorch session shares: the device, the precision, the optimizer, one training
step's maths, and what the result records about them.

torch is imported by the worker only (engine/worker/measure/session.py loads this framework); the
modules here receive it as an argument.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
from pathlib import Path
from typing import Any

from engine.core.errors import RunFailed
from engine.measure.config import TrainingConfig
from engine.worker.frameworks.torch.build import check_gpu


def resolve_device(torch: Any, requested: str) -> Any:
    """auto -> CUDA if available, then MPS, then CPU. A device not here is a config error."""
    mps = getattr(torch.backends, "mps", None)
    mps_ok = bool(mps and mps.is_available())
    if requested == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda", torch.cuda.current_device())
        return torch.device("mps" if mps_ok else "cpu")
    if requested.startswith("cuda"):
        if not torch.cuda.is_available():
            raise RunFailed(
                "config", "device: CUDA is not available here; use --device cpu or auto"
            )
        index = int(requested.split(":")[1]) if ":" in requested else 0
        if index >= torch.cuda.device_count():
            raise RunFailed(
                "config", f"device: cuda:{index} does not exist ({torch.cuda.device_count()} GPUs)"
            )
        return torch.device("cuda", index)
    if requested == "mps" and not mps_ok:
        raise RunFailed("config", "device: MPS is not available here; use --device cpu or auto")
    return torch.device(requested)


def torchvision_version() -> str | None:
    """torchvision's version with its build ("0.29.1+cu130"), read from its version.py, not
    imported: importing it costs about 1.5 s of a worker's start where the model does not need
    it (it loads torch._dynamo). None where it is not installed."""
    spec = importlib.util.find_spec("torchvision")
    if spec is None or spec.origin is None:
        return None
    try:
        text = (Path(spec.origin).parent / "version.py").read_text(encoding="utf-8")
    except OSError:
        return None
    found = re.search(r"^__version__ = ['\"]([^'\"]+)['\"]", text, re.M)
    return found.group(1) if found else None


TF32_NEEDS = (
    "precision: tf32 needs an NVIDIA GPU of compute capability 8.0 or newer (Ampere); "
    "use fp32 or bf16 on the CPU, fp32 or fp16 on an older GPU"
)


def autocast(torch: Any, device: Any, precision: str) -> Any:
    if precision in ("fp32", "tf32"):  # float32 tensors; tf32 is set_tf32's matmul mode
        return contextlib.nullcontext()
    dtype = torch.float16 if precision == "fp16" else torch.bfloat16
    return torch.autocast(device_type=device.type, dtype=dtype)


def check_precision(torch: Any, device: Any, precision: str) -> None:
    if precision == "fp16" and device.type == "cpu":
        raise RunFailed("config", "precision: fp16 needs a GPU; use bf16 or fp32 on the CPU")
    if precision == "bf16" and device.type == "cuda" and not torch.cuda.is_bf16_supported():
        raise RunFailed("config", "precision: this GPU has no bf16; use fp16 or fp32")
    if precision == "tf32" and (
        device.type != "cuda" or torch.cuda.get_device_capability(device) < (8, 0)
    ):
        raise RunFailed("config", TF32_NEEDS)


def set_tf32(torch: Any, precision: str) -> None:
    """tf32 runs float32 matmuls and cuDNN's convolutions as TF32; fp32 leaves PyTorch's own
    default (convolutions TF32, matmuls full FP32), what a user's own fp32 training gets and
    what the published fp32 tables of Ampere GPUs measured. The run's environment records
    which ran (tf32_matmul, tf32_conv)."""
    if precision == "tf32":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True


def start(config: TrainingConfig, requested: str | None = None) -> tuple[Any, Any]:
    """Set threads and the seed, resolve and check the device (`requested`, else the
    config's); returns (torch, device)."""
    import torch  # already imported by engine.worker.measure.session.load()

    if config.threads:
        torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    device = resolve_device(torch, requested or config.device)
    if device.type == "cuda":
        check_gpu(torch, device)  # before anything runs a kernel there
    check_precision(torch, device, config.precision)
    if device.type == "cuda":
        set_tf32(torch, config.precision)
        torch.cuda.set_device(device)
        torch.backends.cudnn.benchmark = True  # training shapes are fixed, so tuning once pays
    return torch, device


class TorchRuntime:
    """A model on a device with its optimizer: the training step's maths, sync, the loss, the
    device's memory and the environment. A session adds where its batches come from."""

    def __init__(self, torch: Any, config: TrainingConfig, device: Any, group: Any = None) -> None:
        self._torch = torch
        self.group = (
            group  # a data-parallel run's TorchGroup (engine/worker/frameworks/torch/distributed)
        )
        self._config = config
        self._device = device
        self.device = str(device)
        self._last_loss: Any = None
        self._loss_fn: Any = None  # the task's, set by the session with its model
        self._scaler = torch.amp.GradScaler("cuda") if config.precision == "fp16" else None

    def _take_model(self, model: Any, channels_last: bool) -> Any:
        """Place the model, build its optimizer (SGD with momentum 0.9 and weight decay 5e-4,
        or Adam) at the config's learning rate, and the (compiled) forward."""
        from engine.worker.frameworks.torch import models as torch_models

        torch, config = self._torch, self._config
        model = model.to(self._device)
        if channels_last:
            model = model.to(memory_format=torch.channels_last)
        model.train()
        trained = model if self.group is None else self.group.wrap(model)
        self.parameters = torch_models.parameter_count(model)
        lr = config.resolved_learning_rate
        self._optimizer = (
            torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
            if config.optimizer == "sgd"
            else torch.optim.Adam(model.parameters(), lr=lr)
        )
        self._model = model
        self._forward = torch.compile(trained) if config.compile else trained
        return model

    def _autocast(self) -> Any:
        return autocast(self._torch, self._device, self._config.precision)

    def _train_on(self, inputs: Any, targets: Any) -> None:
        """Forward, backward, optimizer step on one batch; queued on the device."""
        opt = self._optimizer
        opt.zero_grad(set_to_none=True)
        if self._config.precision == "fp32":  # no context at all: a millisecond step feels one
            loss = self._loss_fn(self._forward(inputs), targets)
        else:
            with self._autocast():
                loss = self._loss_fn(self._forward(inputs), targets)
        if self._scaler is not None:
            self._scaler.scale(loss).backward()
            self._scaler.step(opt)
            self._scaler.update()
        else:
            loss.backward()
            opt.step()
        # Detached: the loss itself would hold the step's graph until the next step, and with
        # it whatever a model file's autograd Function keeps on its ctx (the next step's peak
        # memory). Not read: reading it would synchronise.
        self._last_loss = loss.detach()

    def sync(self) -> None:
        if self._device.type == "cuda":
            self._torch.cuda.synchronize(self._device)
        elif self._device.type == "mps":
            self._torch.mps.synchronize()

    def loss(self) -> float | None:
        return None if self._last_loss is None else float(self._last_loss.float().item())

    def device_memory(self) -> dict[str, Any] | None:
        torch = self._torch
        if self._device.type == "cuda":
            _, total = torch.cuda.mem_get_info(self._device)
            return {
                # Reserved = live tensors + the allocator's cache; the CUDA context is not in it
                # (the monitor's NVML per-process reading is, and wins when larger).
                "peak_bytes": int(torch.cuda.max_memory_reserved(self._device)),
                "total_bytes": int(total),
                "source": "torch.cuda.max_memory_reserved",
            }
        if self._device.type == "mps":
            return {
                "peak_bytes": int(torch.mps.driver_allocated_memory()),
                "total_bytes": int(torch.mps.recommended_max_memory()),
                "source": "torch.mps.driver_allocated_memory",
            }
        return None  # the runner reports the process's peak RSS

    def reset_peak_memory(self) -> None:
        if self._device.type == "cuda":
            self._torch.cuda.reset_peak_memory_stats(self._device)

    def environment(self) -> dict[str, Any]:
        torch = self._torch
        env: dict[str, Any] = {
            "framework": "torch",
            "framework_version": torch.__version__,
            "device": self.device,
            "threads": torch.get_num_threads(),
            "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version()
            if torch.backends.cudnn.is_available()
            else None,
        }
        version = torchvision_version()
        if version:
            env["torchvision_version"] = version
        if self._device.type == "cuda":
            props = torch.cuda.get_device_properties(self._device)
            env["device_name"] = props.name
            env["device_capability"] = f"{props.major}.{props.minor}"
            env["device_memory_bytes"] = int(props.total_memory)
            # Which peak MFU is measured against for fp32 (engine/measure/utilisation.py).
            env["tf32_matmul"] = torch.get_float32_matmul_precision() != "highest"
            env["tf32_conv"] = bool(torch.backends.cudnn.allow_tf32)
        elif self._device.type == "mps":
            env["device_name"] = "Apple MPS"
        return env

    def window_warnings(self) -> list[str]:
        return []

    def warnings(self) -> list[str]:
        return []
