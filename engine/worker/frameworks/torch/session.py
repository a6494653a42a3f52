"""PyTorch sessions: a workload's model trained on a device, one step at a time.

Two sources of batches over one runtime (engine/worker/frameworks/torch/runtime.py): TorchSession
trains on one fixed synthetic batch (timed runs: the model's speed, not the input pipeline's),
TorchTrainer on a real data set with evaluation (cost to accuracy; the input pipeline is
engine.workloads.data.batches in numpy plus the copy to the device, inside every step).
This module is loaded only by the worker.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import Any

from engine.core.events import Event, Phase
from engine.measure.accuracy_config import AccuracyConfig
from engine.measure.config import RunConfig
from engine.worker.accuracy import inputs
from engine.worker.frameworks.timers import DeviceEventTimer, WallTimer
from engine.worker.frameworks.torch import data as torch_data
from engine.worker.frameworks.torch import runtime
from engine.worker.frameworks.torch.runtime import TorchRuntime
from engine.worker.measure import input_wait
from engine.worker.workloads.file_workload import FileWorkload
from engine.workloads.data import Dataset
from engine.workloads.registry import Workload


class TorchSession(TorchRuntime):
    """Timed runs: the same batch every step, on the device from the start; or, with an input
    pipeline (--data, make_dataset), the next batch loaded and copied there every step."""

    def __init__(
        self, torch: Any, config: RunConfig, workload: Workload, device: Any, group: Any = None
    ) -> None:
        from engine.worker.frameworks.torch import models as torch_models

        super().__init__(torch, config, device, group)
        if isinstance(workload, FileWorkload) and workload.spec is not None:
            from engine.worker.frameworks.torch import model_file as torch_model_file

            task = torch_model_file.build_task(
                workload.spec,
                config.batch_size,
                device,
                config.precision,
                config.seed,
                autocast=self._autocast,
            )
        else:
            task = torch_models.build(workload)
        channels_last = config.channels_last and task.image_input
        self._take_model(task.model, channels_last)
        self._loss_fn = task.loss
        inputs, targets = task.make_batch(config.batch_size, device)
        if channels_last:
            inputs = inputs.contiguous(memory_format=torch.channels_last)
        self._inputs: Any = inputs
        self._targets: Any = targets
        self._feed = torch_data.open_feed(torch, config, workload, device, channels_last)
        # Host seconds each step waited for its batch and its copy to the device; None with
        # synthetic batches, whose step stays as it was (nothing added to it).
        self.input_waits: list[float] | None = None
        self.data_record: dict[str, Any] | None = None
        self.data_samples: int | None = None
        if self._feed is not None:
            self.input_waits, self.data_record = [], self._feed.record
            model_file = workload.path if isinstance(workload, FileWorkload) else None
            self._data_limit = (config.max_seconds, input_wait.source_name(config.data, model_file))
            self.data_samples = self._feed.samples
            self.step = self._step_fed  # type: ignore[method-assign]
        self.compiles = config.compile
        self.composition: dict[str, Any] | None = None  # set by flops_per_step
        if device.type == "cuda":
            self.timer: Any = DeviceEventTimer(
                lambda: torch.cuda.Event(enable_timing=True), torch.cuda.current_stream(device)
            )
        elif device.type == "mps":
            self.timer = DeviceEventTimer(lambda: torch.mps.event.Event(enable_timing=True))
        else:
            self.timer = WallTimer()

    def step(self) -> None:
        if self.group is None:
            self._train_on(self._inputs, self._targets)
            return
        with self.group.guard():  # DDP's gradient all-reduce meets the other ranks
            self._train_on(self._inputs, self._targets)

    def _step_fed(self) -> None:
        t0 = time.perf_counter()
        with input_wait.bounded(*self._data_limit):  # the time limit holds for the wait too
            inputs, targets = self._feed.next()  # type: ignore[union-attr]
        self.input_waits.append(time.perf_counter() - t0)  # type: ignore[union-attr]
        self._train_on(inputs, targets)

    def flops_per_step(self) -> float | None:
        """FLOPs of one training step (forward + backward), counted once on the eager model by
        torch.utils.flop_counter (matmul, convolution, attention at 2 FLOPs per multiply-add;
        element-wise work and the optimizer are not counted), plus the nn.LSTM calls it does
        not see (engine/worker/frameworks/torch/rnn_flops.py). The same count says what the
        model is made of (`composition`: engine/worker/frameworks/torch/composition.py)."""
        from engine.worker.frameworks.torch.composition import counted

        with counted(self._model) as count:
            with self._autocast():
                loss = self._loss_fn(self._model(self._inputs), self._targets)
            loss.backward()
        self._optimizer.zero_grad(set_to_none=True)
        self.composition = count.composition
        return count.total

    def close(self) -> None:
        # Drop the batch and the last loss so their device memory can go.
        self._inputs = self._targets = self._last_loss = None
        if self._feed is not None:
            self._feed.close()
        if self.group is not None:
            self.group.close()


class TorchTrainer(TorchRuntime):
    """Cost to accuracy: the next batch of a real data set every step, and evaluation on its
    held-out split."""

    def __init__(
        self, torch: Any, config: AccuracyConfig, workload: Workload, data: Dataset, device: Any
    ) -> None:
        from engine.worker.frameworks.torch import models as torch_models

        super().__init__(torch, config, device)
        self._channels_last = config.channels_last
        task = torch_models.build(workload)
        self._take_model(task.model, self._channels_last)
        self._loss_fn = task.loss
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
        images, labels = self._batches.next()
        self._train_on(self._to_device(images), self._torch.from_numpy(labels).to(self._device))

    def evaluate(self) -> tuple[float, float]:
        torch = self._torch
        functional = torch.nn.functional
        correct = torch.zeros((), dtype=torch.int64, device=self._device)
        loss_sum = torch.zeros((), dtype=torch.float32, device=self._device)
        # The eager model, not a compiled one: eval mode and a last partial chunk would
        # otherwise recompile it (the weights are the same).
        self._model.eval()
        try:
            with torch.inference_mode(), self._autocast():
                for part in self._eval_slices:
                    logits = self._model(self._x_test[part]).float()
                    y = self._y_test[part]
                    loss_sum += functional.cross_entropy(logits, y, reduction="sum")
                    correct += (logits.argmax(dim=1) == y).sum()
        finally:
            self._model.train()
        count = len(self._y_test)
        return int(correct.item()) / count, float(loss_sum.item()) / count  # .item() syncs

    def close(self) -> None:
        # Drop the held-out split and the last loss so their device memory can go.
        self._x_test = self._y_test = self._last_loss = None


def open_session(config: RunConfig, workload: Workload, run_id: str) -> Generator[Event, None, Any]:
    if not config.distributed:
        torch, device = runtime.start(config)
        yield Phase(run_id=run_id, phase="building", detail=f"{workload.name} on {device}")
        return TorchSession(torch, config, workload, device)
    import torch as torch_module

    from engine.worker.frameworks.torch import distributed

    torch, device = runtime.start(config, distributed.local_device(torch_module, config))
    yield Phase(
        run_id=run_id,
        phase="building",
        detail=f"joining {config.world_size} processes ({config.nnodes} node(s)) on {device}",
    )
    group = distributed.join(torch, config, device)
    yield Phase(
        run_id=run_id,
        phase="building",
        detail=f"{workload.name} on {device}, one of {group.world_size} ({group.backend})",
    )
    return TorchSession(torch, config, workload, device, group)


def open_trainer(
    config: AccuracyConfig, workload: Workload, data: Dataset, run_id: str
) -> Generator[Event, None, Any]:
    torch, device = runtime.start(config)
    yield Phase(
        run_id=run_id,
        phase="building",
        detail=f"{workload.name} on {device}, data set {data.info.name}",
    )
    return TorchTrainer(torch, config, workload, data, device)
