"""The cost-to-accuracy study's own inputs: data set, goal, evaluation, batch sizes, repeats.

Model, framework, device, precision and price come from the configuration panel on the left;
`plan(base)` joins them with this form into a validated StudyPlan, or raises the engine's
ConfigError naming the field (the engine's rules, as the CLI applies them). Accuracies and
the band are typed in percent and points here; the engine takes fractions.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from engine.accuracy.study import StudyPlan
from engine.core.errors import ConfigError
from engine.measure.accuracy_config import AccuracyConfig
from engine.workloads import data
from gui.common.field_error import ErrorLabel, field_cell
from gui.common.number_field import NumberField, mark_invalid

FOLDER = "__folder__"  # the data set combo's entry for a CIFAR-10 folder

# Number fields: name -> (label, default text, rules beyond the engine's). Percent and points
# are bounded here: the engine's messages speak in fractions.
NUMBERS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "target_percent": (
        "Target accuracy (%)",
        "80",
        {"unit": "%", "minimum": 0, "exclusive_minimum": True, "maximum": 100},
    ),
    "band_points": ("Within ± points", "0.5", {"unit": "%", "minimum": 0, "maximum": 100}),
    "patience": ("For K evaluations", "5", {"integer": True}),
    "eval_every": ("Evaluate every", "50", {"integer": True}),
    "repeats": ("Repeats", "3", {"integer": True}),
    "max_iterations": ("Max. iterations", f"{AccuracyConfig.max_iterations}", {"integer": True}),
    "max_seconds": ("Max. time (s)", f"{AccuracyConfig.max_seconds:g}", {"unit": "s"}),
}
# Where an engine field's error is shown (the rest belong to the panel on the left).
FIELD_OF = {
    "target_accuracy": "target_percent",
    "band": "band_points",
    "batch_size": "batch_sizes",
}


def _fraction(percent: float | None) -> float | None:
    """A percentage (or points) as the engine's fraction."""
    return None if percent is None else percent / 100


class AccuracyForm(QWidget):
    changed = Signal()  # any input changed
    browse_requested = Signal()  # pick a CIFAR-10 folder
    download_requested = Signal()  # fetch CIFAR-10 into a folder

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dataset = QComboBox(objectName="dataset")
        for name in data.builtin_names():
            self.dataset.addItem(f"{name} (built in)", name)
        self.dataset.addItem("CIFAR-10 binary folder…", FOLDER)
        self.dataset.setToolTip("The data the model trains on to its accuracy")
        self.folder = QLineEdit(objectName="folder")
        self.folder.setToolTip("The folder holding CIFAR-10's binary batches")
        self.folder.setPlaceholderText("folder with data_batch_1.bin … test_batch.bin")
        self.browse = QPushButton("Browse…", objectName="browse")
        self.download = QPushButton("Download…", objectName="download")
        self.download.setToolTip("Fetch CIFAR-10 (binary, 162 MB) into a folder you choose")
        self.dataset_info = QLabel(wordWrap=True, objectName="dataset_info")

        self.numbers = {
            name: NumberField(label, name=name, text=text, **rules)
            for name, (label, text, rules) in NUMBERS.items()
        }
        self.to_target = QRadioButton("Target accuracy (%)", objectName="to_target")
        self.until_stable = QRadioButton("Until it stabilises", objectName="until_stable")
        self.to_target.setToolTip("Train until the test accuracy reaches the target")
        self.until_stable.setToolTip("Train until the test accuracy stops improving")
        self.to_target.setChecked(True)
        goal = QButtonGroup(self)
        goal.addButton(self.to_target)
        goal.addButton(self.until_stable)
        # Several sizes: separated by commas or spaces (the tooltip says: no thousands separators)
        self.batch_sizes = NumberField(
            "Batch sizes", name="batch_sizes", text="64, 128, 256", integer=True, several=True
        )
        self.include_eval = QCheckBox("Count evaluation time", objectName="include_eval")
        self.include_eval.setToolTip("Add evaluation time to the time and cost to accuracy")
        self.numbers["band_points"].setToolTip(
            "Settled: later accuracies stay within ± this many points of the point's accuracy"
        )
        self.numbers["patience"].setToolTip("… for this many evaluations after it")

        self._errors: dict[str, ErrorLabel] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._data_rows())
        layout.addLayout(self._goal_rows())
        layout.addLayout(self._run_rows())
        self.other_error = self._error_label("other")
        layout.addWidget(self.other_error)

        self.dataset.currentIndexChanged.connect(self._dataset_changed)
        self.browse.clicked.connect(self.browse_requested)
        self.download.clicked.connect(self.download_requested)
        for edit in (*self.numbers.values(), self.batch_sizes, self.folder):
            edit.textChanged.connect(self.changed)
        for button in (self.to_target, self.until_stable):
            button.toggled.connect(self._goal_changed)
        self.include_eval.toggled.connect(self.changed)
        self._dataset_changed()
        self._goal_changed()

    # Layout ------------------------------------------------------------------------------

    def _error_label(self, name: str) -> ErrorLabel:
        label = ErrorLabel(name)
        self._errors[name] = label
        return label

    def _cell(self, name: str, *widgets: QWidget) -> QVBoxLayout:
        return field_cell(self._error_label(name), *widgets)

    def _data_rows(self) -> QFormLayout:
        form = QFormLayout()
        form.addRow("Data set", self._cell("dataset", self.dataset))
        form.addRow("", self._cell("folder", self.folder, self.browse, self.download))
        form.addRow("", self.dataset_info)
        return form

    def _goal_rows(self) -> QGridLayout:
        grid = QGridLayout()
        grid.addWidget(QLabel("<b>Goal</b>"), 0, 0, 1, 3)
        grid.addWidget(self.to_target, 1, 0)
        grid.addLayout(self._cell("target_percent", self.numbers["target_percent"]), 1, 1, 1, 2)
        grid.addWidget(self.until_stable, 2, 0, 1, 3)
        grid.addWidget(QLabel("   within ± points"), 3, 0)
        grid.addLayout(self._cell("band_points", self.numbers["band_points"]), 3, 1, 1, 2)
        grid.addWidget(QLabel("   for K evaluations"), 4, 0)
        grid.addLayout(self._cell("patience", self.numbers["patience"]), 4, 1, 1, 2)
        return grid

    def _run_rows(self) -> QFormLayout:
        form = QFormLayout()
        form.addRow("Evaluate every", self._cell("eval_every", self.numbers["eval_every"]))
        form.addRow("Batch sizes", self._cell("batch_sizes", self.batch_sizes))
        form.addRow("Repeats", self._cell("repeats", self.numbers["repeats"]))
        form.addRow("", self.include_eval)
        form.addRow("Max. iterations", self._cell("max_iterations", self.numbers["max_iterations"]))
        form.addRow("Max. time (s)", self._cell("max_seconds", self.numbers["max_seconds"]))
        self.numbers["eval_every"].setToolTip("Training iterations between two evaluations")
        self.batch_sizes.setToolTip("One or more batch sizes, each run the same way")
        self.numbers["max_iterations"].setToolTip("Per run: a run that gets here never reached it")
        self.numbers["max_seconds"].setToolTip("Per run, training and evaluation")
        return form

    def _dataset_changed(self) -> None:
        folder = self.dataset.currentData() == FOLDER
        for w in (self.folder, self.browse, self.download):
            w.setVisible(folder)
        self.changed.emit()

    def _goal_changed(self) -> None:
        stable = self.until_stable.isChecked()
        self.numbers["target_percent"].setEnabled(not stable)
        self.numbers["band_points"].setEnabled(stable)
        self.numbers["patience"].setEnabled(stable)
        self.changed.emit()

    # Values ------------------------------------------------------------------------------

    @property
    def dataset_spec(self) -> str:
        """A built-in name or the folder typed (the engine's `dataset`)."""
        chosen = self.dataset.currentData()
        return self.folder.text().strip() if chosen == FOLDER else str(chosen)

    def set_folder(self, folder: str) -> None:
        self.dataset.setCurrentIndex(self.dataset.findData(FOLDER))
        self.folder.setText(folder)

    def _fields(self) -> tuple[dict[str, Any], tuple[int, ...], int]:
        """AccuracyConfig fields of this form, the batch sizes and the repeats; InputError (a
        ConfigError naming the form field) for text that does not read."""
        n = self.numbers
        stable = self.until_stable.isChecked()
        if self.dataset.currentData() == FOLDER and not self.dataset_spec:
            raise ConfigError("folder", "choose the folder that holds CIFAR-10's .bin files")
        fields: dict[str, Any] = {
            "dataset": self.dataset_spec,
            "eval_every": n["eval_every"].value(),
            "max_iterations": n["max_iterations"].value(),
            "max_seconds": n["max_seconds"].value(),
            "include_eval_time": self.include_eval.isChecked(),
            "target_accuracy": None,
        }
        if stable:
            fields["band"] = _fraction(n["band_points"].value())
            fields["patience"] = n["patience"].value()
        else:
            fields["target_accuracy"] = _fraction(n["target_percent"].value())
        sizes = tuple(int(b) for b in self.batch_sizes.values())
        return fields, sizes, int(n["repeats"].value() or 0)

    def plan(self, base: dict[str, Any]) -> StudyPlan:
        """The study for `base` (the panel's model, framework, device, precision, price),
        validated; ConfigError naming a field otherwise."""
        fields, sizes, repeats = self._fields()
        config = AccuracyConfig(**base, **fields, batch_size=sizes[0] if sizes else 1)
        return StudyPlan(config, sizes, repeats).validated()

    def show_errors(self, errors: dict[str, str]) -> None:
        """Each engine or form field's reason beside it; the panel's fields in one line."""
        mine = {FIELD_OF.get(k, k): v for k, v in errors.items()}
        if "dataset" in mine and self.dataset.currentData() == FOLDER:
            mine["folder"] = mine.pop("dataset")
        other = [
            f"{k.replace('_', ' ')} (on the left): {v}"
            for k, v in mine.items()
            if k not in self._errors
        ]
        mine["other"] = "\n".join(other)
        for name, label in self._errors.items():
            label.show_error(mine.get(name))
        for name, field in (*self.numbers.items(), ("batch_sizes", self.batch_sizes)):
            field.set_error(mine.get(name))
        mark_invalid(self.folder, "folder" in mine)

    def show_dataset(self, info: data.DataInfo | None) -> None:
        self.dataset_info.setText(
            ""
            if info is None
            else f"{info.train_samples:,} training and {info.test_samples:,} held-out images, "
            f"{'x'.join(map(str, info.input_shape))}, {info.classes} classes"
        )

    # Settings ----------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset.currentData(),
            "folder": self.folder.text(),
            "until_stable": self.until_stable.isChecked(),
            "batch_sizes": self.batch_sizes.text(),
            "include_eval": self.include_eval.isChecked(),
            **{name: edit.text() for name, edit in self.numbers.items()},
        }

    def restore(self, state: dict[str, Any]) -> None:
        index = self.dataset.findData(state.get("dataset"))
        if index >= 0:
            self.dataset.setCurrentIndex(index)
        for name, edit in (
            *self.numbers.items(),
            ("folder", self.folder),
            ("batch_sizes", self.batch_sizes),
        ):
            if isinstance(state.get(name), str):
                edit.setText(state[name])
        if state.get("until_stable") is True:
            self.until_stable.setChecked(True)
        if isinstance(state.get("include_eval"), bool):
            self.include_eval.setChecked(state["include_eval"])

    def set_running(self, running: bool) -> None:
        self.setEnabled(not running)
