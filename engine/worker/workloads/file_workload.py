"""A loaded model file as a Workload: what results, reports and the measuring loop see."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.measure.config import TrainingConfig
from engine.worker.workloads import model_file
from engine.worker.workloads.model_file import ModelFileSpec
from engine.workloads.model_file_source import DEFAULT_EPOCH_SAMPLES
from engine.workloads.registry import Workload


def workload_of(spec: ModelFileSpec) -> FileWorkload:
    """The registry-like description of a loaded file (what results and reports show)."""
    shape = spec.input_shape or ()
    target = spec.target
    image = target is not None and len(shape) == 3 and spec.input_dtype.startswith(("float", "b"))
    if target is None:
        task, unit = "custom", "samples"
    elif target.kind == "classes":
        task, unit = ("image-classification", "images") if image else ("classification", "samples")
    elif target.kind == "tokens":
        task, unit = "language-model", "sequences"
    else:
        task, unit = "regression", "samples"
    epoch = spec.epoch_samples or DEFAULT_EPOCH_SAMPLES
    data_set = (
        f"{epoch:,} samples per epoch (EPOCH_SAMPLES)"
        if spec.epoch_samples
        else f"EPOCH_SAMPLES not set: an epoch is taken as {epoch:,} samples"
    )
    return FileWorkload(
        name=spec.name,
        task=task,
        description=f"your model, from {Path(spec.path).name}",
        input_shape=shape,
        num_classes=target.size if target else 0,
        epoch_samples=epoch,
        epoch_unit=unit,
        frameworks=(spec.framework,),
        data_set=data_set,
        sequence_length=shape[0] if target and target.kind == "tokens" and shape else None,
        path=spec.path,
        sha256=spec.source.sha256,
        epoch_samples_declared=spec.epoch_samples is not None,
        family=spec.family,  # as the file states it; "": read from its layers
        spec=spec,
    )


@dataclass(frozen=True)
class FileWorkload(Workload):
    """A Workload built from a model file; `spec` is the loaded file (worker only)."""

    path: str = ""
    sha256: str = ""
    epoch_samples_declared: bool = True
    spec: ModelFileSpec | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in vars(self).items() if k != "spec"}
        data["input_shape"] = list(self.input_shape)
        data["frameworks"] = list(self.frameworks)
        return data

    def epoch_warning(self, epoch_samples_given: int | None) -> list[str]:
        """A warning for the result when nobody said how large an epoch is."""
        if self.epoch_samples_declared or epoch_samples_given:
            return []
        return [
            f"EPOCH_SAMPLES is not set in {Path(self.path).name}: an epoch is taken as "
            f"{self.epoch_samples:,} samples; set it (or --epoch-samples) for your data set"
        ]


def own_dataset(
    workload: Workload, config: TrainingConfig, device: str
) -> tuple[Any, ModelFileSpec] | None:
    """A model file's make_dataset(hints), called with the run's hints and batch size, and the
    file's spec (whose error names the file); None for a workload that defines none. Each
    framework checks what it returned (engine/worker/frameworks/*/data.py)."""
    if not isinstance(workload, FileWorkload) or workload.spec is None:
        return None
    spec = workload.spec
    if spec.make_dataset is None:
        return None
    hints = model_file.hints(config.framework, device, config.precision, config.seed)
    dataset = spec.call(
        "make_dataset", spec.make_dataset, hints | {"batch_size": config.batch_size}
    )
    return dataset, spec


def own_dataset_record(spec: ModelFileSpec) -> dict[str, Any]:
    """What a result says of a model file's own data set."""
    return {"kind": "model-file", "source": f"make_dataset in {spec.path}"}
