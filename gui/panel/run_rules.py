"""The configuration panel's rules, without its widgets: which frameworks a model is offered
with, the panel's number fields, and every wrong field's reason at once (RunConfig's rules,
the CLI's own). No Qt here; the panel (gui/panel/panel.py) lays out the fields and shows what
these say.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Collection
from dataclasses import fields as dataclass_fields
from typing import Any

from engine.core.errors import ConfigError
from engine.measure.config import RunConfig
from engine.workloads import registry

# The Python package each framework imports as (looked up, never imported, in the GUI).
FRAMEWORK_PACKAGES = {"torch": "torch", "tensorflow": "tensorflow"}

# Number fields (gui/common/number_field.py reads them): field -> (label, whole number?,
# optional?, unit). Their ranges are RunConfig's, checked by validate_all().
NUMBER_FIELDS = {
    "batch_size": ("Batch size", True, False, None),
    "warmup_steps": ("Warm-up steps", True, False, None),
    "min_steps": ("Min. measured steps", True, False, None),
    "max_steps": ("Max. measured steps", True, False, None),
    "max_seconds": ("Max. window (s)", False, False, "s"),
    "epoch_samples": ("Samples per epoch", True, True, None),
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
