"""What to train, validated at the edge into ConfigError with an actionable message.

TrainingConfig is the base both pipelines share: the timed run (RunConfig, here) and the
cost-to-accuracy run (engine/measure/accuracy_config.py). It holds the model, framework, device and
numeric set-up, and one Price. Times in seconds, money in USD, memory in bytes.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, ClassVar, Self

from engine.core.checks import choice, int_range, number_range
from engine.core.errors import ConfigError
from engine.pricing.cost import Price
from engine.workloads import model_file_source
from engine.workloads.data import source as data_source

FRAMEWORKS = ("torch", "tensorflow")
# fp32: float32 with the framework's own TF32 default (PyTorch: convolutions TF32, matmuls FP32;
# TensorFlow: both TF32, on Ampere and newer); tf32: float32 tensors with TF32 matmuls and
# convolutions (NVIDIA Ampere and newer); fp16, bf16: mixed precision (autocast, Keras's mixed
# policies). The result's environment records what ran as TF32.
PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
OPTIMIZERS = ("sgd", "adam")
_DEVICE_RE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")
# host:port of the node that hosts a multi-node run's rendezvous (torch.distributed.run).
_ENDPOINT_RE = re.compile(r"^[A-Za-z0-9.\-_]+:\d{1,5}$")
MAX_PROCESSES = 1024
MAX_LOADER_WORKERS = 256

MAX_BATCH_SIZE = 1 << 20
# Stop when precise enough (docs/measuring.md): the target the command line and the app start
# with, in percent, and the range a target may take (0.01% is unreachable in practice, 100%
# met at once).
DEFAULT_TARGET_PRECISION_PCT = 3.0
TARGET_PRECISION_PCT = (0.01, 100.0)
# The optimizers: SGD with momentum 0.9 and weight decay 5e-4, or Adam; their learning rates.
DEFAULT_LEARNING_RATE = {"sgd": 0.01, "adam": 1e-3}


@dataclass(frozen=True)
class TrainingConfig:
    """The fields and checks every training run shares; a subclass adds its own."""

    worker_mode: ClassVar[str]  # the worker's subcommand for this config

    model: str = "resnet18-cifar"
    framework: str = "torch"
    batch_size: int = 64
    device: str = "auto"
    precision: str = "fp32"
    optimizer: str = "sgd"
    channels_last: bool = False
    compile: bool = False  # torch.compile, or XLA jit_compile in TensorFlow
    threads: int | None = None  # CPU threads; None: the framework's default
    memory_limit_bytes: int | None = None  # worker-enforced cap (tests, max-fit on CPU)
    seed: int = 0
    usd_per_hour: float | None = None  # the Price, stored flat (see `price`)
    price_source: str = "user"
    price_as_of: str | None = None

    @property
    def model_file(self) -> str | None:
        """Your own model's Python file, when a run builds one (RunConfig has the field); the
        launcher reads it to watch the file's build."""
        return None

    def import_environment(self) -> dict[str, str]:
        """What the framework reads as it is imported and that depends on this run: the worker
        sets it before the import (engine/worker/main.py), and a worker forked from a warm
        process that imported the framework without it is not forked (engine/process/forked.py).
        Under a memory cap TensorFlow's oneDNN kernels crash (SIGSEGV) when an allocation fails,
        and without them TensorFlow reports the OOM (the result records that oneDNN was off);
        otherwise TF_ENABLE_ONEDNN_OPTS is left as the user has it."""
        if self.framework == "tensorflow" and self.memory_limit_bytes:
            return {"TF_ENABLE_ONEDNN_OPTS": "0"}
        return {}

    @property
    def resolved_learning_rate(self) -> float:
        """The learning rate every framework uses: the optimizer's default (a cost-to-accuracy
        run may set its own)."""
        return DEFAULT_LEARNING_RATE[self.optimizer]

    @property
    def price(self) -> Price | None:
        """The one price of this run (stored flat in the three fields above); None: unpriced."""
        return Price.of(self.to_dict())

    def with_price(self, price: Price | None) -> Self:
        fields = price.fields() if price else {"usd_per_hour": None, "price_as_of": None}
        return self.with_changes(**fields)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def known_fields(cls) -> set[str]:
        return {f.name for f in fields(cls)}

    @classmethod
    def _from_known(cls, data: Any) -> Self:
        if not isinstance(data, dict):
            raise ConfigError("config", "must be a JSON object")
        known = cls.known_fields()
        return cls(**{k: v for k, v in data.items() if k in known})

    def with_changes(self, **changes: Any) -> Self:
        return replace(self, **changes).validated()

    def validated(self) -> Self:
        raise NotImplementedError

    def _check_shared(self) -> None:
        """The shared fields; the model's name is checked by the subclass (a file or a
        registry model)."""
        choice("framework", self.framework, FRAMEWORKS)
        int_range("batch_size", self.batch_size, 1, MAX_BATCH_SIZE)
        if not isinstance(self.device, str) or not _DEVICE_RE.match(self.device):
            raise ConfigError("device", f"{self.device!r}: use auto, cpu, cuda, cuda:N or mps")
        choice("precision", self.precision, PRECISIONS)
        choice("optimizer", self.optimizer, OPTIMIZERS)
        if self.threads is not None:
            int_range("threads", self.threads, 1, 4096)
        if self.memory_limit_bytes is not None:
            int_range("memory_limit_bytes", self.memory_limit_bytes, 1 << 20, 1 << 50)
        int_range("seed", self.seed, 0, 2**31 - 1)
        # The price's own checks; its date is checked even with no $/h (a form's leftover).
        Price(self.usd_per_hour or 0.0, self.price_source or "user", self.price_as_of).validated()

    def _check_registry_model(self) -> None:
        from engine.workloads import registry

        if not isinstance(self.model, str) or not self.model:
            raise ConfigError("model", "give a model name (see `epochcost models`)")
        if not registry.exists(self.model):
            known = ", ".join(registry.names())
            raise ConfigError("model", f"unknown model {self.model!r}; known: {known}")
        choice("framework", self.framework, FRAMEWORKS)
        workload = registry.get(self.model)
        if self.framework not in workload.frameworks:
            supported = ", ".join(workload.frameworks)
            raise ConfigError(
                "framework", f"{self.model} runs on {supported}, not {self.framework}"
            )


@dataclass(frozen=True)
class RunConfig(TrainingConfig):
    """One timed training run."""

    worker_mode: ClassVar[str] = "run"

    warmup_steps: int = 10
    min_steps: int = 10
    max_steps: int = 100
    max_seconds: float = 60.0
    stability_threshold: float = 0.10  # stop when IQR/median of step times falls under this
    epoch_samples: int | None = None  # None: the workload's usual data set
    repeats: int = 3  # measured windows: the interval comes from their spread
    # Your own model: a Python file (engine/worker/workloads/model_file.py has the contract).
    # When set, `model` is only a label (the file's NAME) and the registry is not consulted.
    model_file: str | None = None
    # Data-parallel (docs/scaling.md): processes per node and nodes, started by PyTorch's
    # torch.distributed.run; batch_size is each process's, the global batch nproc x nnodes x it.
    nproc: int = 1
    nnodes: int = 1
    node_rank: int = 0
    rdzv_endpoint: str | None = None  # host:port; needed with nnodes > 1
    rdzv_timeout_s: float = 300.0  # how long the processes may take to meet
    # Where the batches come from (engine/workloads/data/source.py): auto, synthetic,
    # imagefolder:PATH or cifar10[:PATH]; the loader's worker processes (PyTorch) or parallel
    # calls (TensorFlow), None: automatic; pinned host memory for the copy to a GPU.
    data: str = "auto"
    loader_workers: int | None = None
    pin_memory: bool = False
    # Stop when precise enough (engine/core/precision_target.py): windows (at least `repeats`,
    # and 3) go on until the 95% interval's farthest end lies within this percentage of the
    # figure, max_seconds being then the budget of all the windows together; None: `repeats`
    # windows of up to max_seconds each. The command line and the app start at
    # DEFAULT_TARGET_PRECISION_PCT; None here, so a config stored before there was a target
    # reads as what it ran.
    target_precision_pct: float | None = None

    @property
    def measuring_seconds(self) -> float:
        """The most time the measured windows may take together."""
        if self.target_precision_pct is not None:
            return self.max_seconds
        return self.repeats * self.max_seconds

    @property
    def measuring_text(self) -> str:
        """How long it measures, in words: '3 windows of up to 60 s', or 'windows until its
        95% interval is within ±3%, 60 s in all'."""
        if self.target_precision_pct is not None:
            return (
                f"windows until its 95% interval is within ±{self.target_precision_pct:g}%, "
                f"{self.max_seconds:g} s in all"
            )
        n = self.repeats
        return f"{n} window{'s' if n != 1 else ''} of up to {self.max_seconds:g} s"

    @property
    def world_size(self) -> int:
        """Processes in the run, over every node."""
        return self.nproc * self.nnodes

    @property
    def distributed(self) -> bool:
        """Started through torch.distributed.run (more than one process, or several nodes)."""
        return self.world_size > 1

    @classmethod
    def from_dict(cls, data: dict[str, Any], check_files: bool = True) -> RunConfig:
        """Build from a dict (JSON), ignoring unknown keys, then validate. check_files=False
        accepts a model file that is not on this machine (an imported result)."""
        return cls._from_known(data).validated(check_files)

    def validated(self, check_files: bool = True) -> Self:
        """Return self if every field is valid, else raise ConfigError naming the field.
        A model file is checked for being there (check_files) but never imported here."""
        if self.model_file is None:
            self._check_registry_model()
        elif not isinstance(self.model, str) or not self.model:
            raise ConfigError("model", "give a model name (see `epochcost models`)")
        elif check_files:
            model_file_source.check_path(self.model_file)
        elif not isinstance(self.model_file, str) or not self.model_file:
            raise ConfigError("model_file", "must be the path of a Python file")
        self._check_shared()
        int_range("warmup_steps", self.warmup_steps, 0, 100_000)
        int_range("min_steps", self.min_steps, 3, 1_000_000)
        int_range("max_steps", self.max_steps, self.min_steps, 1_000_000)
        number_range("max_seconds", self.max_seconds, 0.1, 7 * 86400)
        number_range("stability_threshold", self.stability_threshold, 0.0, 10.0)
        if self.epoch_samples is not None:
            int_range("epoch_samples", self.epoch_samples, 1, 10**13)
        int_range("repeats", self.repeats, 1, 1000)
        if self.target_precision_pct is not None:
            number_range("target_precision_pct", self.target_precision_pct, *TARGET_PRECISION_PCT)
        self._check_distributed()
        self._check_data(check_files)
        return self

    def _check_data(self, check_files: bool) -> None:
        spec = data_source.check(self.data, files=check_files)
        if self.loader_workers is not None:
            int_range("loader_workers", self.loader_workers, 0, MAX_LOADER_WORKERS)
        if not isinstance(self.pin_memory, bool):
            raise ConfigError("pin_memory", f"{self.pin_memory!r} is not true or false")
        if not spec.reads_files:
            return
        if self.distributed:
            raise ConfigError(
                "data", "an input pipeline is measured in one process for now; leave out --nproc"
            )
        if self.model_file is None and registry_task(self.model) != "image-classification":
            raise ConfigError(
                "data",
                f"{self.model} does not take images; {spec.kind} needs an image model "
                "(see `epochcost models`), or use --data synthetic",
            )

    @property
    def data_spec(self) -> data_source.DataSpec:
        """The parsed `data` field (the config is validated)."""
        return data_source.parse(self.data)

    def _check_distributed(self) -> None:
        int_range("nproc", self.nproc, 1, MAX_PROCESSES)
        int_range("nnodes", self.nnodes, 1, MAX_PROCESSES)
        int_range("node_rank", self.node_rank, 0, self.nnodes - 1)
        number_range("rdzv_timeout_s", self.rdzv_timeout_s, 1.0, 86_400.0)
        if self.rdzv_endpoint is not None and (
            not isinstance(self.rdzv_endpoint, str) or not _ENDPOINT_RE.match(self.rdzv_endpoint)
        ):
            raise ConfigError(
                "rdzv_endpoint", f"{self.rdzv_endpoint!r}: give HOST:PORT (node 0's address)"
            )
        if self.nnodes > 1 and not self.rdzv_endpoint:
            raise ConfigError(
                "rdzv_endpoint", "several nodes meet at one address: give HOST:PORT of node 0"
            )
        if not self.distributed:
            return
        if self.framework == "tensorflow":
            raise ConfigError(
                "nproc",
                "TensorFlow is not supported with --nproc yet; measure one process, or use "
                "--framework torch for a data-parallel run",
            )
        if self.device.startswith("cuda:") or self.device == "mps":
            raise ConfigError(
                "device",
                f"{self.device}: with --nproc each process takes a device of its own; give "
                "--device cuda (process N on cuda:N), auto or cpu",
            )

    @property
    def resolved_epoch_samples(self) -> int:
        """Samples in one epoch: the option, else the data source's images (a folder's count),
        else the workload's data set. For a model file,
        its literal EPOCH_SAMPLES as written (read, not run), else the default."""
        from engine.workloads import registry

        if self.epoch_samples:
            return self.epoch_samples
        from_files = data_source.samples(self.data_spec)
        if from_files:
            return from_files
        if self.model_file is not None:
            declared = model_file_source.declared(self.model_file).epoch_samples
            return declared or model_file_source.DEFAULT_EPOCH_SAMPLES
        return registry.get(self.model).epoch_samples


def registry_task(model: str) -> str:
    """A built-in workload's task (image-classification, language-model, ...)."""
    from engine.workloads import registry

    return registry.get(model).task
