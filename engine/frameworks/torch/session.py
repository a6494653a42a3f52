"""PyTorch backend: builds a workload on a device and runs its training step.

torch is imported inside open_session only; this module is loaded only by the worker.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator
from typing import Any

from engine.core.errors import RunFailed
from engine.core.events import Event, Phase
from engine.frameworks.timers import DeviceEventTimer, WallTimer
from engine.measure.config import RunConfig
from engine.workloads.file_workload import FileWorkload
from engine.workloads.registry import Workload


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


def _autocast(torch: Any, device: Any, precision: str) -> Any:
    if precision == "fp32":
        return contextlib.nullcontext()
    dtype = torch.float16 if precision == "fp16" else torch.bfloat16
    return torch.autocast(device_type=device.type, dtype=dtype)


def _check_precision(torch: Any, device: Any, precision: str) -> None:
    if precision == "fp16" and device.type == "cpu":
        raise RunFailed("config", "precision: fp16 needs a GPU; use bf16 or fp32 on the CPU")
    if precision == "bf16" and device.type == "cuda" and not torch.cuda.is_bf16_supported():
        raise RunFailed("config", "precision: this GPU has no bf16; use fp16 or fp32")


class TorchSession:
    def __init__(self, torch: Any, config: RunConfig, workload: Workload, device: Any) -> None:
        from engine.frameworks.torch import models as torch_models

        self._torch = torch
        self._config = config
        self._device = device
        self.device = str(device)
        if isinstance(workload, FileWorkload) and workload.spec is not None:
            from engine.frameworks.torch import model_file as torch_model_file

            task = torch_model_file.build_task(
                workload.spec,
                config.batch_size,
                device,
                config.precision,
                config.seed,
                autocast=lambda: _autocast(torch, device, config.precision),
            )
        else:
            task = torch_models.build(workload)
        model = task.model.to(device)
        if config.channels_last and task.image_input:
            model = model.to(memory_format=torch.channels_last)
        model.train()
        self.parameters = torch_models.parameter_count(model)
        self._optimizer = (
            torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
            if config.optimizer == "sgd"
            else torch.optim.Adam(model.parameters(), lr=1e-3)
        )
        inputs, targets = task.make_batch(config.batch_size, device)
        if config.channels_last and task.image_input:
            inputs = inputs.contiguous(memory_format=torch.channels_last)
        self._inputs, self._targets = inputs, targets
        self._loss_fn = task.loss
        self._model = model
        self._forward = torch.compile(model) if config.compile else model
        self.compiles = config.compile
        self._scaler = torch.amp.GradScaler("cuda") if config.precision == "fp16" else None
        self._last_loss: Any = None
        if device.type == "cuda":
            self.timer: Any = DeviceEventTimer(lambda: torch.cuda.Event(enable_timing=True))
        elif device.type == "mps":
            self.timer = DeviceEventTimer(lambda: torch.mps.event.Event(enable_timing=True))
        else:
            self.timer = WallTimer()

    def step(self) -> None:
        torch, opt = self._torch, self._optimizer
        opt.zero_grad(set_to_none=True)
        with _autocast(torch, self._device, self._config.precision):
            loss = self._loss_fn(self._forward(self._inputs), self._targets)
        if self._scaler is not None:
            self._scaler.scale(loss).backward()
            self._scaler.step(opt)
            self._scaler.update()
        else:
            loss.backward()
            opt.step()
        self._last_loss = loss.detach()  # a tensor: reading it would synchronise

    def flops_per_step(self) -> float | None:
        """FLOPs of one training step (forward + backward), counted once on the eager model by
        torch.utils.flop_counter (matmul, convolution, attention at 2 FLOPs per multiply-add;
        element-wise work and the optimizer are not counted), plus the nn.LSTM calls it does
        not see (engine/frameworks/torch/rnn_flops.py)."""
        from torch.utils.flop_counter import FlopCounterMode

        from engine.frameworks.torch.rnn_flops import uncounted_lstm_flops

        torch = self._torch
        with FlopCounterMode(display=False) as counter:
            with (
                uncounted_lstm_flops(self._model, counter.get_total_flops) as lstm,
                _autocast(torch, self._device, self._config.precision),
            ):
                loss = self._loss_fn(self._model(self._inputs), self._targets)
            loss.backward()
        self._optimizer.zero_grad(set_to_none=True)
        return float(counter.get_total_flops() + sum(lstm))

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
        return None

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
        try:
            import torchvision

            env["torchvision_version"] = torchvision.__version__
        except ImportError:
            pass
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

    def close(self) -> None:
        # Drop the batch and the last loss so their device memory can go.
        self._inputs = self._targets = self._last_loss = None  # type: ignore[assignment]


def open_session(config: RunConfig, workload: Workload, run_id: str) -> Generator[Event, None, Any]:
    import torch  # already imported by engine.frameworks.session.load()

    if config.threads:
        torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    device = resolve_device(torch, config.device)
    _check_precision(torch, device, config.precision)
    if device.type == "cuda":
        torch.cuda.set_device(device)
        torch.backends.cudnn.benchmark = True  # shapes are fixed, so tuning once pays
    yield Phase(run_id=run_id, phase="building", detail=f"{workload.name} on {device}")
    return TorchSession(torch, config, workload, device)
