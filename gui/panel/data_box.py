"""The Data box of the configuration panel: where a timed run's batches come from, and how they
are loaded (RunConfig.data, loader_workers, pin_memory; docs/measuring.md, "Input pipelines").

Synthetic batches (the default) measure the model alone; an image folder or CIFAR-10 adds
reading, decoding and augmenting every step, as real training pays. A model that takes no
images is offered synthetic only (gui/panel/run_rules.py data_kinds, RunConfig's own rule).

A folder is checked in full (every class folder walked, each image's first bytes read:
engine/workloads/data/imagefolder.py) only once it is chosen: Browse…, Enter or leaving the
field, a restored form, or Run. Checked on each keystroke, a half-typed "/home" would walk
the whole home folder. Until then the config's cheap check (the folder exists) stands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.measure.config import MAX_LOADER_WORKERS
from engine.workloads.data import source as data_source
from gui.common import settings
from gui.common.field_error import ErrorLabel
from gui.common.number_field import InputError, NumberField
from gui.panel.run_rules import DATA_KINDS, data_files, data_kinds, data_spec

FIELDS = ("data", "loader_workers", "pin_memory")  # the RunConfig fields this box gives
NO_FOLDER = "choose the image folder (Browse…): class folders of JPEG, PNG or BMP images"


class DataBox(QGroupBox):
    """The Data field (a source and its folder), loader workers and pinned memory, each with
    its reason beside it (`error_labels`, shown by the panel)."""

    changed = Signal()  # any of the three changed, or a folder was checked

    def __init__(self, prefs: settings.Settings | None = None) -> None:
        super().__init__("Data")
        self.prefs = prefs
        self.kind = QComboBox(objectName="data_kind")
        self.kind.setToolTip(
            "Where each step's batch comes from: synthetic (one batch made once, the model "
            "alone: the upper bound), an image folder or CIFAR-10 (read, decoded and augmented "
            "every step, as real training pays)"
        )
        self.folder = QLineEdit(objectName="data_folder")
        self.folder.setToolTip("The folder: PATH/CLASS/IMAGE.jpg (JPEG, PNG or BMP)")
        self.browse_button = QPushButton("Browse…", objectName="data_browse")
        self.workers = NumberField(
            "Loader workers",
            name="loader_workers",
            object_name="loader_workers",
            integer=True,
            optional=True,
            minimum=0,
            maximum=MAX_LOADER_WORKERS,
            placeholder="automatic",
            tooltip=(
                "PyTorch's DataLoader worker processes, TensorFlow's parallel calls; 0 loads in "
                "the training loop itself; empty: one per core up to 4 (PyTorch), AUTOTUNE "
                "(TensorFlow)"
            ),
        )
        self.pin = QCheckBox("Pinned memory", objectName="pin_memory")
        self.pin.setToolTip("Page-locked host batches, for an asynchronous copy to a GPU")
        self.error_labels = {name: ErrorLabel(name) for name in FIELDS}

        self.folder_row = QWidget()
        row = QHBoxLayout(self.folder_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.folder, 1)
        row.addWidget(self.browse_button)
        source = QVBoxLayout()
        source.setSpacing(1)
        for widget in (self.kind, self.folder_row, self.error_labels["data"]):
            source.addWidget(widget)
        workers = QVBoxLayout()
        workers.setSpacing(1)
        workers.addWidget(self.workers)
        workers.addWidget(self.error_labels["loader_workers"])
        pin = QVBoxLayout()
        pin.setSpacing(1)
        pin.addWidget(self.pin)
        pin.addWidget(self.error_labels["pin_memory"])
        self.form = QFormLayout(self)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.addRow("Source", source)
        self.form.addRow("Loader workers", workers)
        self.form.addRow("", pin)

        # Folder checks done (the spec -> (images, problem)); a spec not here is not chosen yet.
        self._checked: dict[str, tuple[int | None, str | None]] = {}
        self.epoch_samples: int | None = None  # the checked source's images (None: unknown)
        self.set_kinds(["synthetic"])
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.folder.textChanged.connect(self.changed)
        self.folder.editingFinished.connect(self.commit)
        self.browse_button.clicked.connect(self.browse)
        self.workers.textChanged.connect(self.changed)
        self.pin.toggled.connect(self.changed)

    # choices ------------------------------------------------------------------------------

    def set_kinds(self, kinds: list[str]) -> None:
        """Offer these sources (run_rules.data_kinds), keeping the choice where it is offered."""
        current = self.kind.currentData() or "synthetic"
        self.kind.blockSignals(True)
        self.kind.clear()
        for kind in kinds:
            self.kind.addItem(DATA_KINDS[kind], kind)
        self.kind.setCurrentIndex(max(0, self.kind.findData(current)))
        self.kind.blockSignals(False)
        self._kind_changed()

    def set_model(self, model: str, model_file: str | None) -> None:
        self.set_kinds(data_kinds(model, model_file))

    def _kind_changed(self) -> None:
        kind = self.current_kind
        self.folder_row.setVisible(kind in ("imagefolder", "cifar10"))
        default = data_source.default_cifar10_folder() if kind == "cifar10" else None
        self.folder.setPlaceholderText(
            f"empty: {default}" if default else "a folder of class folders"
        )
        loads = kind != "synthetic"
        self.form.setRowVisible(1, loads)
        self.form.setRowVisible(2, loads)
        self.commit()
        self.changed.emit()

    @property
    def current_kind(self) -> str:
        return str(self.kind.currentData() or "synthetic")

    @property
    def spec(self) -> str:
        """RunConfig.data as the box says it (a folder made absolute)."""
        return data_spec(self.current_kind, self.folder.text())

    # the folder -----------------------------------------------------------------------------

    def browse(self) -> None:
        """Choose the folder in a dialog that starts at the folder given, else the last one."""
        start = self.folder.text().strip() or (
            self.prefs.text(settings.LAST_FOLDER, str(Path.home())) if self.prefs else ""
        )
        title = "CIFAR-10 folder" if self.current_kind == "cifar10" else "Image folder"
        chosen = QFileDialog.getExistingDirectory(self, title, start)
        if not chosen:
            return
        if self.prefs is not None:
            self.prefs.set(settings.LAST_FOLDER, str(Path(chosen).parent))
        self.folder.setText(chosen)
        self.commit()

    def commit(self) -> None:
        """Check the source's files in full now (the folder is chosen), once per spec."""
        spec = self.spec
        if not self._reads_files() or spec in self._checked:
            return
        if self.current_kind == "imagefolder" and not self.folder.text().strip():
            return
        if len(self._checked) > 16:  # a few folders tried in one session; forget the oldest
            self._checked.pop(next(iter(self._checked)))
        self._checked[spec] = data_files(spec)
        self.changed.emit()

    def recheck(self) -> None:
        """Forget past checks (Run: the folder may have changed on disk since) and check again."""
        self._checked.clear()
        self.commit()

    def _reads_files(self) -> bool:
        return self.current_kind in ("imagefolder", "cifar10")

    # values ---------------------------------------------------------------------------------

    def values(self) -> tuple[dict[str, Any], dict[str, str]]:
        """RunConfig's data, loader_workers and pin_memory, and the fields holding a mistake."""
        kind = self.current_kind
        values: dict[str, Any] = {"data": self.spec, "loader_workers": None, "pin_memory": False}
        errors: dict[str, str] = {}
        self.epoch_samples = None
        if kind == "imagefolder" and not self.folder.text().strip():
            errors["data"] = NO_FOLDER
        elif self._reads_files() and values["data"] in self._checked:
            self.epoch_samples, problem = self._checked[values["data"]]
            if problem:
                errors["data"] = problem
        if kind != "synthetic":  # synthetic batches load nothing: the run says no loader
            values["pin_memory"] = self.pin.isChecked()
            try:
                values["loader_workers"] = self.workers.value()
            except InputError as exc:
                errors["loader_workers"] = exc.message
        return values, errors

    def show_errors(self, errors: dict[str, str]) -> None:
        for name, label in self.error_labels.items():
            label.show_error(errors.get(name))
        self.workers.set_error(errors.get("loader_workers"))

    # the form as typed ----------------------------------------------------------------------

    def state(self) -> dict[str, str]:
        return {
            "data": self.current_kind,
            "data_folder": self.folder.text(),
            "loader_workers": self.workers.text(),
            "pin_memory": "1" if self.pin.isChecked() else "",
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Put back a saved choice; a source no longer offered (another model) is skipped."""
        for key, edit in (("data_folder", self.folder), ("loader_workers", self.workers)):
            if isinstance(state.get(key), str):
                edit.setText(state[key])
        self.pin.setChecked(state.get("pin_memory") == "1")
        index = self.kind.findData(state.get("data"))
        if index >= 0:
            self.kind.setCurrentIndex(index)
        self.commit()
