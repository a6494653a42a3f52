"""The user's own model files that passed the check ("Add model file..."), remembered across
restarts in the settings file (gui/common/settings.py, key MODEL_FILES).

An entry keeps what the check in the worker found (engine/process/model_check.py), so the list shows
names and sizes without running the file again. A file that has since moved or been deleted
stays listed: choosing it says so beside the field (RunConfig's own path check), and nothing
else the user stored is touched.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gui.common import settings

# A model box entry's data for a file: this prefix and the absolute path (built-ins: their name).
FILE_PREFIX = "file:"
FRAMEWORKS = ("torch", "tensorflow")


@dataclass(frozen=True)
class ModelFile:
    path: str  # absolute, as the worker loads it and results record it
    name: str
    framework: str  # torch | tensorflow
    parameters: int | None = None
    input_shape: list[int] | None = None
    epoch_samples: int | None = None
    epoch_unit: str = "samples"
    epoch_samples_declared: bool = False
    # The family projections to other GPUs use, and why ("convolutional (82% of FLOPs in
    # convolutions)"), as the check found it (engine/workloads/family.py); "": not said
    family: str = ""

    @property
    def key(self) -> str:
        return FILE_PREFIX + self.path

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelFile:
        """From a passed check's `info` (engine/worker/workloads/model_file_check.py) or a settings
        entry; ValueError for an entry that is not one (a hand-edited settings file)."""
        path, name, framework = data.get("path"), data.get("name"), data.get("framework")
        if not (isinstance(path, str) and isinstance(name, str) and framework in FRAMEWORKS):
            raise ValueError("a model file entry needs path, name and framework")
        shape = data.get("input_shape")
        if isinstance(shape, list) and not all(_int_or_none(d) is not None for d in shape):
            raise ValueError("input_shape must be whole numbers")
        return cls(
            path=path,
            name=name,
            framework=framework,
            parameters=_int_or_none(data.get("parameters")),
            input_shape=list(shape) if isinstance(shape, list) else None,
            epoch_samples=_int_or_none(data.get("epoch_samples")),
            epoch_unit=str(data.get("epoch_unit") or "samples"),
            epoch_samples_declared=bool(data.get("epoch_samples_declared")),
            family=_family_text(data.get("family")),
        )

    def describe(self) -> str:
        """One line for the panel: what the file is, as the check found it."""
        parts = [f"Your model file {Path(self.path).name} ({self.framework})"]
        if self.parameters is not None:
            parts.append(f"{self.parameters:,} parameters")
        if self.input_shape:
            parts.append("input " + " x ".join(str(d) for d in self.input_shape))
        text = ", ".join(parts) + "."
        if self.epoch_samples:
            text += f" One epoch: {self.epoch_samples:,} {self.epoch_unit}"
            if not self.epoch_samples_declared:
                text += " (the file sets no EPOCH_SAMPLES: $/epoch is per million samples)"
            text += "."
        if self.family:
            text += f" Family: {self.family}."
        return text


def _family_text(value: Any) -> str:
    """The check's family ({"name", "why"}) in words, or a settings entry's text as it is."""
    if isinstance(value, str):
        return value
    if not isinstance(value, dict) or not isinstance(value.get("why"), str):
        return ""
    return f"{value.get('name') or 'none'} ({value['why']})"


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def load(prefs: settings.Settings) -> list[ModelFile]:
    """The remembered files, in the order added; unreadable entries are left out."""
    entries = prefs.mapping(settings.MODEL_FILES).get("files", [])
    found: list[ModelFile] = []
    for data in entries if isinstance(entries, list) else []:
        try:
            entry = ModelFile.from_dict(data if isinstance(data, dict) else {})
        except ValueError:
            continue
        if all(e.path != entry.path for e in found):
            found.append(entry)
    return found


def save(prefs: settings.Settings, files: list[ModelFile]) -> None:
    prefs.set(settings.MODEL_FILES, {"files": [asdict(f) for f in files]})
    prefs.sync()
