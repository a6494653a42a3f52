"""A data-parallel run's process group in PyTorch (docs/scaling.md): each process started by
torch.distributed.run joins it from the environment torchrun set (env://), on its own device
(cuda:LOCAL_RANK, or the CPU), with NCCL on GPUs and gloo on the CPU; the model is wrapped in
DistributedDataParallel by the runtime. Loaded by the worker only.
"""

from __future__ import annotations

import contextlib
import datetime
import os
from collections.abc import Iterator
from typing import Any

from engine.core.errors import RunFailed
from engine.measure.config import RunConfig


def local_device(torch: Any, config: RunConfig) -> str:
    """The device this process trains on: its own GPU (cuda:LOCAL_RANK) when the run is on
    GPUs, else what the config asks (cpu)."""
    local = int(os.environ.get("LOCAL_RANK", "0"))
    wants_gpu = config.device == "cuda" or (config.device == "auto" and torch.cuda.is_available())
    if not wants_gpu:
        return "cpu" if config.device == "auto" else config.device
    if not torch.cuda.is_available():
        raise RunFailed("config", "device: CUDA is not available here; use --device cpu or auto")
    count = torch.cuda.device_count()
    if local >= count:
        raise RunFailed(
            "config",
            f"nproc: {config.nproc} processes on this node need {config.nproc} GPUs, one each; "
            f"this machine has {count} (give --nproc {count} or fewer, or --device cpu)",
        )
    return f"cuda:{local}"


def join(torch: Any, config: RunConfig, device: Any) -> TorchGroup:
    """Join the run's process group (every rank waits here for the others)."""
    import torch.distributed as dist

    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world != config.world_size:
        raise RunFailed(
            "config",
            f"nproc: the run asks for {config.world_size} processes, torchrun started {world}",
        )
    backend = "nccl" if device.type == "cuda" else "gloo"
    timeout = datetime.timedelta(seconds=config.rdzv_timeout_s)
    dist.init_process_group(backend=backend, timeout=timeout)
    return TorchGroup(torch, dist, device, backend, config.nnodes)


class TorchGroup:
    """engine.worker.measure.session.ProcessGroup over torch.distributed."""

    def __init__(self, torch: Any, dist: Any, device: Any, backend: str, nnodes: int) -> None:
        self._torch, self._dist = torch, dist
        # NCCL reduces tensors on the GPU, gloo on the CPU.
        self._on = device if backend == "nccl" else torch.device("cpu")
        self.backend = backend
        self.rank = dist.get_rank()
        self.world_size = dist.get_world_size()
        self.nnodes = nnodes

    def agree(self, values: list[int]) -> list[int]:
        tensor = self._torch.tensor(values, dtype=self._torch.int64, device=self._on)
        with self.guard():
            self._dist.all_reduce(tensor, op=self._dist.ReduceOp.MAX)
        return [int(v) for v in tensor.tolist()]

    def gather(self, value: float) -> list[float]:
        mine = self._torch.tensor([value], dtype=self._torch.float64, device=self._on)
        every = [self._torch.zeros_like(mine) for _ in range(self.world_size)]
        with self.guard():
            self._dist.all_gather(every, mine)
        return [float(t.item()) for t in every]

    def wrap(self, model: Any) -> Any:
        """The model in DistributedDataParallel (its gradients averaged over the ranks)."""
        from torch.nn.parallel import DistributedDataParallel

        ids = [self._on.index] if self.backend == "nccl" else None
        with self.guard():  # it broadcasts rank 0's weights
            return DistributedDataParallel(model, device_ids=ids)

    @contextlib.contextmanager
    def guard(self) -> Iterator[None]:
        """A collective that fails because another rank is gone: one line that says so."""
        try:
            yield
        except RuntimeError as exc:
            if not _peer_failure(self._torch, exc):
                raise
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise RunFailed(
                "crashed",
                f"another process of this {self.world_size}-process run ended or stopped "
                f"answering ({self.backend}: {first[:300]})",
            ) from None

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the others may be gone already
            self._dist.destroy_process_group()


def _peer_failure(torch: Any, exc: RuntimeError) -> bool:
    dist_error = getattr(torch.distributed, "DistError", ())
    text = str(exc)
    return isinstance(exc, dist_error) or any(
        word in text
        for word in ("Connection closed", "Connection reset", "gloo", "NCCL", "Broken pipe")
    )
