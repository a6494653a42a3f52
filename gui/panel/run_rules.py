"""The configuration panel's rules, without its widgets: which frameworks a model is offered
with, the panel's number fields, every wrong field's reason at once (RunConfig's rules, the
CLI's own), and the Data field's choices and folder check. No Qt here: the fields are laid out
by gui/panel/fields.py, and the panel (gui/panel/panel.py) shows what these say.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Collection
from dataclasses import fields as dataclass_fields
from typing import Any

from engine.core.errors import ConfigError
from engine.measure.config import DEFAULT_TARGET_PRECISION_PCT, RunConfig
from engine.workloads import registry
from engine.workloads.data import source as data_source

# The Python package each framework imports as (looked up, never imported, in the GUI).
FRAMEWORK_PACKAGES = {"torch": "torch", "tensorflow": "tensorflow"}

# Number fields (gui/common/number_field.py reads them): field -> (label, whole number?,
# optional?, unit). Their ranges are RunConfig's, checked by validate_all().
NUMBER_FIELDS = {
    "batch_size": ("Batch size", True, False, None),
    "warmup_steps": ("Warm-up steps", True, False, None),
    "min_steps": ("Min. measured steps", True, False, None),
    "max_steps": ("Max. measured steps", True, False, None),
    "target_precision_pct": ("Target precision (±%)", False, True, "%"),
    "max_seconds": ("Max. time (s)", False, False, "s"),
    "epoch_samples": ("Samples per epoch", True, True, None),
}
# A field's text in a new form where it is not RunConfig's default: the command line's target
# precision (RunConfig's own is None, so that a config stored before targets reads as it ran).
FORM_DEFAULTS = {"target_precision_pct": DEFAULT_TARGET_PRECISION_PCT}
TOOLTIPS = {
    "epoch_samples": "Leave empty for the workload's usual data set",
    "max_seconds": "With a target precision, the time all the windows together may take; "
    "without one, each window's",
    "target_precision_pct": "Measure windows until the figure's 95% interval is within "
    "± this many percent of it, within Max. time (docs/measuring.md). Empty: three windows",
}


def usable(framework: str, configured: Collection[str]) -> bool:
    """Whether `framework` can train here: installed (found, not imported) or given an
    interpreter of its own in File > Settings (`configured`: those frameworks)."""
    package = FRAMEWORK_PACKAGES.get(framework, framework)
    return framework in configured or importlib.util.find_spec(package) is not None


def installed_frameworks(
    workload: registry.Workload, configured: Collection[str] = ()
) -> list[str]:
    """Frameworks this workload supports that are installed here (found, not imported) or
    given an interpreter of their own in File > Settings."""
    return [f for f in workload.frameworks if usable(f, configured)]


def validate_all(values: dict[str, Any]) -> tuple[RunConfig | None, dict[str, str]]:
    """(config, {}) when valid, else (None, {field: reason}) for every field found wrong.

    RunConfig.validated() stops at the first bad field; that field is set back to its default
    and the check repeated, so each wrong field gets its own reason.
    """
    defaults = RunConfig().to_dict()
    values = dict(values)
    errors: dict[str, str] = {}
    for _ in range(len(dataclass_fields(RunConfig)) + 1):
        try:
            config = RunConfig(**values).validated()
        except ConfigError as exc:
            if exc.field in errors or exc.field not in defaults:
                errors.setdefault(exc.field, exc.message)
                return None, errors
            errors[exc.field] = exc.message
            values[exc.field] = defaults[exc.field]
            continue
        return (None, errors) if errors else (config, {})
    return None, errors


# The Data field's choices (engine/workloads/data/source.py): kind -> what the box says.
DATA_KINDS = {
    "synthetic": "Synthetic (the model alone)",
    "auto": "The model file's own data set",
    "imagefolder": "Image folder",
    "cifar10": "CIFAR-10",
}


def data_kinds(model: str, model_file: str | None) -> list[str]:
    """The data sources offered for a model: synthetic for every model; an image folder and
    CIFAR-10 for a model that takes images (RunConfig.validated's rule: an image-classification
    workload, or a model file, which may take anything); auto (the file's make_dataset, else
    synthetic) for a model file."""
    if model_file is not None:
        return ["synthetic", "auto", "imagefolder", "cifar10"]
    if registry.get(model).task == "image-classification":
        return ["synthetic", "imagefolder", "cifar10"]
    return ["synthetic"]


def data_spec(kind: str, folder: str) -> str:
    """RunConfig.data for a kind and the folder typed for it (empty: none; CIFAR-10 then reads
    the data folder's cifar10), the folder made absolute."""
    folder = folder.strip()
    if kind in ("synthetic", "auto") or not folder and kind == "cifar10":
        return kind
    return data_source.normalized(f"{kind}:{folder}")


def data_files(spec: str) -> tuple[int | None, str | None]:
    """(images in one epoch, None) for a source whose files can be used (None images: the
    source has none), else (None, why not): the full check of an image folder or CIFAR-10's
    files (engine/workloads/data/imagefolder.py scan), naming the folder or file."""
    try:
        return data_source.samples(data_source.check(spec)), None
    except ConfigError as exc:
        return None, exc.message
