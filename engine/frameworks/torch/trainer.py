"""PyTorch Trainer for cost-to-accuracy runs: a workload's model trained on a real data set.

torch is imported inside open_trainer only; this module is loaded only by the worker. The input
pipeline is engine.workloads.data.batches (numpy) plus the copy to the device, inside every step.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from engine.accuracy import inputs
from engine.accuracy.config import AccuracyConfig
from engine.core.events import Event, Phase
from engine.frameworks.torch.session import _autocast, _check_precision, resolve_device
from engine.workloads.data import Dataset
from engine.workloads.registry import Workload


class TorchTrainer:
    def __init__(
        self, torch: Any, config: AccuracyConfig, workload: Workload, data: Dataset, device: Any
    ) -> None:
        from engine.frameworks.torch import models as torch_models

        self._torch = torch
        self._config = config
        self._device = device
        self.device = str(device)
        self._channels_last = config.channels_last
        task = torch_models.build(workload)
        self._model = task.model.to(device)
        if self._channels_last:
            self._model = self._model.to(memory_format=torch.channels_last)
        self._model.train()
        self.parameters = torch_models.parameter_count(self._model)
        lr = config.resolved_learning_rate
        params = self._model.parameters()
        self._optimizer = (
            torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=5e-4)
            if config.optimizer == "sgd"
            else torch.optim.Adam(params, lr=lr)
        )
        self._loss_fn = task.loss
        self._forward = torch.compile(self._model) if config.compile else self._model
        self._scaler = torch.amp.GradScaler("cuda") if config.precision == "fp16" else None
        self._last_loss: Any = None
        prepared = inputs.prepare(data, config, channels_first=True)
        self._batches = prepared.train
        self._eval_slices = prepared.eval_slices()
        # The held-out split goes to the device once, before training.
        self._x_test = self._to_device(prepared.x_test)
        self._y_test = torch.from_numpy(prepared.y_test).to(device)

    def _to_device(self, images: Any) -> Any:
        x = self._torch.from_numpy(images).to(self._device)  # on the CPU: no copy
        if self._channels_last:
            x = x.contiguous(memory_format=self._torch.channels_last)
        return x

    def step(self) -> None:
        torch, opt = self._torch, self._optimizer
        images, labels = self._batches.next()
        x = self._to_device(images)
        y = torch.from_numpy(labels).to(self._device)
        opt.zero_grad(set_to_none=True)
        with _autocast(torch, self._device, self._config.precision):
            loss = self._loss_fn(self._forward(x), y)
        if self._scaler is not None:
            self._scaler.scale(loss).backward()
            self._scaler.step(opt)
            self._scaler.update()
        else:
            loss.backward()
            opt.step()
        self._last_loss = loss.detach()  # a tensor: reading it would synchronise

    def evaluate(self) -> tuple[float, float]:
        torch = self._torch
        functional = torch.nn.functional
        correct = torch.zeros((), dtype=torch.int64, device=self._device)
        loss_sum = torch.zeros((), dtype=torch.float32, device=self._device)
        # The eager model, not a compiled one: eval mode and a last partial chunk would
        # otherwise recompile it (the weights are the same).
        self._model.eval()
        try:
            with torch.inference_mode(), _autocast(torch, self._device, self._config.precision):
                for part in self._eval_slices:
                    logits = self._model(self._x_test[part]).float()
                    y = self._y_test[part]
                    loss_sum += functional.cross_entropy(logits, y, reduction="sum")
                    correct += (logits.argmax(dim=1) == y).sum()
        finally:
            self._model.train()
        count = len(self._y_test)
        return int(correct.item()) / count, float(loss_sum.item()) / count  # .item() syncs

    def sync(self) -> None:
        if self._device.type == "cuda":
            self._torch.cuda.synchronize(self._device)
        elif self._device.type == "mps":
            self._torch.mps.synchronize()

    def loss(self) -> float | None:
        return None if self._last_loss is None else float(self._last_loss.float().item())

    def device_memory(self) -> dict[str, Any] | None:
        torch = self._torch
        if self._device.type != "cuda":
            return None  # the runner reports the process's peak RSS
        _, total = torch.cuda.mem_get_info(self._device)
        return {
            "peak_bytes": int(torch.cuda.max_memory_reserved(self._device)),
            "total_bytes": int(total),
            "source": "torch.cuda.max_memory_reserved",
        }

    def warnings(self) -> list[str]:
        return []

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
        if self._device.type == "cuda":
            props = torch.cuda.get_device_properties(self._device)
            env["device_name"] = props.name
            env["device_memory_bytes"] = int(props.total_memory)
        elif self._device.type == "mps":
            env["device_name"] = "Apple MPS"
        return env

    def close(self) -> None:
        # Drop the held-out split and the last loss so their device memory can go.
        self._x_test = self._y_test = self._last_loss = None


def open_trainer(
    config: AccuracyConfig, workload: Workload, data: Dataset, run_id: str
) -> Generator[Event, None, Any]:
    import torch  # already imported by engine.frameworks.trainer.load()

    if config.threads:
        torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    device = resolve_device(torch, config.device)
    _check_precision(torch, device, config.precision)
    if device.type == "cuda":
        torch.cuda.set_device(device)
        torch.backends.cudnn.benchmark = True  # training shapes are fixed (last batch dropped)
    yield Phase(
        run_id=run_id,
        phase="building",
        detail=f"{workload.name} on {device}, data set {data.info.name}",
    )
    return TorchTrainer(torch, config, workload, data, device)
