"""The sweep's own inputs: the axis it varies (batch size, loader workers, processes,
precision, power limit); for batch size, which sizes or the max-fit search and its settings, for
another axis its values.

The run itself (model, framework, device, precision, price) comes from the configuration panel
on the left; this form adds what a sweep needs on top. Every change re-validates the form into
a SweepPlan (the CLI's own rules, engine/sweep/plan.py) or, for another axis, the values its own
reader takes (engine/study/axes.py: the CLI's `sweep --axis A --values`), and shows each field's
reason beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from engine.core.errors import ConfigError
from engine.study.axes import AXES
from engine.sweep.batch_sizes import parse_batch_sizes
from engine.sweep.plan import SweepPlan
from gui.common.field_error import ErrorLabel, field_cell
from gui.common.number_field import InputError, NumberField, NumberSpec, mark_invalid

MIB = 2**20
MAX_MEMORY_LIMIT_MIB = 2**30  # RunConfig allows up to 2**50 bytes
MAX_MARGIN_PERCENT = 90  # SweepPlan's margin is at most 0.9

# field -> (label, default text, tooltip)
FIELDS = {
    "batch_sizes": (
        "Batch sizes",
        "",
        "16,32,64 · 16:256 (doubling) · 16:128:16 (steps of 16), as `epochcost sweep "
        "--batch-sizes` takes them: commas separate the sizes, so no thousands separators. "
        "Empty: find the largest batch that fits, then measure powers of two up to it.",
    ),
    "values": ("Values", "", "The values of the axis to measure"),
    "start": ("Start at", "16", "The first batch of the search (and of the powers of two)"),
    "multiple": ("Multiple of", "8", "The search's resolution: it tries multiples of this"),
    "margin": ("Margin (%)", "10", "Recommended batch = the largest that fits, less this"),
    "max_batch": ("Max. batch", "", "Never try a larger batch (empty: no maximum)"),
    "memory_limit_mb": (
        "Memory limit (MiB)",
        "",
        "On the CPU a trial that uses more is out of memory, as on a GPU of this size. "
        "Empty: a search runs under 80% of the memory available.",
    ),
}
SEARCH_FIELDS = ("start", "multiple", "margin", "max_batch")
# The axes a sweep varies, as the chooser names them (engine/study/axes.py's AXES).
AXIS_CHOICES = (
    ("Batch size", "batch"),
    ("Loader workers", "loader-workers"),
    ("Processes", "processes"),
    ("Precision", "precision"),
    ("Power limit", "power-limit"),
)


def _spec(name: str, **rules: Any) -> NumberSpec:
    label, default, _ = FIELDS[name]
    return NumberSpec(label, name=name, example=default, **rules)


# The number fields' rules (gui/common/number_field.py reads them); the batch sizes are read
# by the engine's own parser (ranges such as 16:256), the rest of the plan is SweepPlan's.
NUMBERS = {
    "start": _spec("start", integer=True),
    "multiple": _spec("multiple", integer=True),
    "margin": _spec("margin", unit="%", minimum=0, maximum=MAX_MARGIN_PERCENT),
    "max_batch": _spec("max_batch", integer=True, optional=True),
    "memory_limit_mb": _spec(
        "memory_limit_mb", integer=True, optional=True, minimum=1, maximum=MAX_MEMORY_LIMIT_MIB
    ),
}


@dataclass(frozen=True)
class SweepInputs:
    """The form, checked: what to measure, and the CPU memory limit in bytes (None: none)."""

    plan: SweepPlan
    memory_limit_bytes: int | None


@dataclass(frozen=True)
class StudyInputs:
    """The form, checked, for an axis other than batch size: its values, the memory limit."""

    axis: str  # AXES's name: "precision"
    values: tuple[Any, ...]
    memory_limit_bytes: int | None


def read_study_inputs(
    axis: str, texts: dict[str, str], cpu: bool
) -> tuple[StudyInputs | None, dict[str, str]]:
    """(inputs, {}) when valid, else (None, {field: reason}): the values by the axis's own
    reader, the memory limit (on the CPU) as for a batch sweep."""
    errors: dict[str, str] = {}
    why = AXES[axis]().unavailable("cpu") if cpu else None
    if why:
        errors["axis"] = f"{why}: choose one as the Device"
    values: tuple[Any, ...] = ()
    try:
        values = AXES[axis]().parse(texts.get("values", ""))
    except (ConfigError, ValueError) as exc:
        errors["values"] = exc.message if isinstance(exc, ConfigError) else str(exc)
    limit = None
    if cpu:
        try:
            limit = NUMBERS["memory_limit_mb"].parse(texts.get("memory_limit_mb", ""))
        except InputError as exc:
            errors["memory_limit_mb"] = exc.message
    if errors:
        return None, errors
    memory = limit * MIB if isinstance(limit, int) else None
    return StudyInputs(axis, values, memory), {}


def read_inputs(
    texts: dict[str, str], max_fit: bool, cpu: bool
) -> tuple[SweepInputs | None, dict[str, str]]:
    """(inputs, {}) when valid, else (None, {field: reason}). `cpu`: the limit applies."""
    errors: dict[str, str] = {}
    values: dict[str, int | float | None] = {}
    for name, spec in NUMBERS.items():
        if name == "memory_limit_mb" and not cpu:  # the limit applies on the CPU only
            values[name] = None
            continue
        try:
            values[name] = spec.parse(texts.get(name, ""))
        except InputError as exc:
            errors[name] = exc.message
    margin = values.get("margin")
    values["margin"] = None if margin is None else margin / 100
    limit = values.get("memory_limit_mb")
    sizes: tuple[int, ...] = ()
    if not max_fit and texts.get("batch_sizes", "").strip():
        try:
            sizes = parse_batch_sizes(texts["batch_sizes"])
        except ConfigError as exc:
            errors["batch_sizes"] = exc.message
    if errors:
        return None, errors
    try:
        plan = SweepPlan(
            batch_sizes=sizes,
            max_fit=max_fit,
            start=values["start"],  # type: ignore[arg-type]
            multiple=values["multiple"],  # type: ignore[arg-type]
            margin=values["margin"],  # type: ignore[arg-type]
            max_batch=values["max_batch"],  # type: ignore[arg-type]
        ).validated()
    except ConfigError as exc:
        return None, {exc.field: exc.message}
    memory = limit * MIB if isinstance(limit, int) else None
    return SweepInputs(plan, memory), {}


class SweepForm(QWidget):
    """Sweep inputs with a reason beside each wrong field; `inputs` is None while any is."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.inputs: SweepInputs | None = None
        self.study_inputs: StudyInputs | None = None  # for an axis other than batch size
        self.errors: dict[str, str] = {}
        self.cpu = True
        self.axis = QComboBox(objectName="sweep_axis")
        for text, name in AXIS_CHOICES:
            self.axis.addItem(text, name)
        self.axis.setToolTip(
            "What the sweep varies; every other setting is the panel's (a study other than "
            "batch size runs at the panel's batch size)"
        )
        self.sweep_sizes = QRadioButton("Sweep batch sizes", objectName="sweep_sizes")
        self.max_fit = QRadioButton("Find max batch", objectName="find_max_batch")
        self.max_fit.setToolTip("The largest batch that trains, and a recommended one below it")
        self.sweep_sizes.setToolTip("Measure each batch size of the range, doubling")
        self.sweep_sizes.setChecked(True)
        self.edits: dict[str, QLineEdit] = {}
        self._error_labels: dict[str, ErrorLabel] = {}
        cells: dict[str, QVBoxLayout] = {}
        for name, (_, default, tip) in FIELDS.items():
            if name in NUMBERS:
                edit: QLineEdit = NumberField(NUMBERS[name], text=default, tooltip=tip)
            else:
                edit = QLineEdit(default, objectName=name)
                edit.setToolTip(tip)
            self.edits[name] = edit
            cells[name] = self._cell(name, edit)
        self.edits["batch_sizes"].setPlaceholderText("powers of two up to the largest that fits")
        self.edits["max_batch"].setPlaceholderText("none")
        self.edits["memory_limit_mb"].setPlaceholderText("80% of free memory")

        modes = QHBoxLayout()
        modes.addWidget(self.axis)
        modes.addSpacing(12)
        modes.addWidget(self.sweep_sizes)
        modes.addWidget(self.max_fit)
        modes.addStretch(1)
        self._axis_error = ErrorLabel("axis")  # what the chosen axis needs that is not here
        vary = QVBoxLayout()
        vary.setSpacing(1)
        vary.addLayout(modes)
        vary.addWidget(self._axis_error)
        left, right = QFormLayout(), QFormLayout()
        left.addRow("Vary", vary)
        left.addRow(FIELDS["batch_sizes"][0], cells["batch_sizes"])
        left.addRow(FIELDS["values"][0], cells["values"])
        left.addRow(FIELDS["memory_limit_mb"][0], cells["memory_limit_mb"])
        self._rows, self._search_rows = left, right
        search = QHBoxLayout()
        for name in SEARCH_FIELDS:
            search.addWidget(QLabel(FIELDS[name][0]))
            search.addLayout(cells[name], 1)
        right.addRow("Search:", search)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(left)
        layout.addLayout(right)

        for edit in self.edits.values():
            edit.textChanged.connect(self.validate)
        self.max_fit.toggled.connect(self.validate)
        self._texts: dict[str, str] = {}  # axis -> its values as last typed
        self._shown_axis = "batch"
        self.axis.currentIndexChanged.connect(lambda _: self._axis_changed())
        self._axis_changed()

    def _cell(self, name: str, edit: QLineEdit) -> QVBoxLayout:
        error = ErrorLabel(name)
        self._error_labels[name] = error
        return field_cell(error, edit)

    @property
    def axis_name(self) -> str:
        """The chosen axis: "batch", "precision", ... (AXES's names)."""
        return str(self.axis.currentData())

    @property
    def ready(self) -> bool:
        return (self.inputs if self.axis_name == "batch" else self.study_inputs) is not None

    def _axis_changed(self) -> None:
        """Show the fields of the chosen axis; its values as last typed, else its example."""
        name = self.axis_name
        batch = name == "batch"
        for widget in (self.sweep_sizes, self.max_fit):
            widget.setVisible(batch)
        self._rows.setRowVisible(1, batch)
        self._rows.setRowVisible(2, not batch)
        self._search_rows.setRowVisible(0, batch)
        edit = self.edits["values"]
        if not batch:
            spec = AXES[name].values
            if self._shown_axis != "batch":
                self._texts[self._shown_axis] = edit.text()
            edit.setText(self._texts.get(name, spec.example))
            edit.setPlaceholderText(spec.example)
            edit.setToolTip(
                f"The {spec.what} to measure, each a run at the panel's batch size, as "
                f"`epochcost sweep --axis {name} --values` takes them: {spec.example}"
            )
        self._shown_axis = name
        self.validate()

    def set_cpu(self, cpu: bool) -> None:
        """Whether the chosen device is a CPU, where the memory limit applies."""
        self.cpu = cpu
        self.validate()

    def validate(self) -> bool:
        max_fit = self.max_fit.isChecked()
        searches = max_fit or not self.edits["batch_sizes"].text().strip()
        self.edits["batch_sizes"].setEnabled(not max_fit)
        for name in SEARCH_FIELDS:
            self.edits[name].setEnabled(searches)
        self.edits["memory_limit_mb"].setEnabled(self.cpu)
        self.edits["memory_limit_mb"].setPlaceholderText(
            ("80% of free memory" if searches else "none") if self.cpu else "CPU only"
        )
        texts = {name: edit.text() for name, edit in self.edits.items()}
        self.inputs, self.study_inputs = None, None
        if self.axis_name == "batch":
            self.inputs, self.errors = read_inputs(texts, max_fit, self.cpu)
        else:
            self.study_inputs, self.errors = read_study_inputs(self.axis_name, texts, self.cpu)
        self._axis_error.show_error(self.errors.get("axis"))
        for name, label in self._error_labels.items():
            label.show_error(self.errors.get(name))
            edit = self.edits[name]
            if isinstance(edit, NumberField):
                edit.set_error(self.errors.get(name))
            else:
                mark_invalid(edit, name in self.errors)
        self.changed.emit()
        return self.ready

    def describe_errors(self) -> str:
        """The form's mistakes in one sentence, for the message bar."""
        return "; ".join(f"{FIELDS.get(k, ('Vary',))[0]}: {v}" for k, v in self.errors.items())

    def set_running(self, running: bool) -> None:
        for w in (self.axis, self.sweep_sizes, self.max_fit, *self.edits.values()):
            w.setEnabled(not running)
        if not running:
            self.validate()  # re-applies which fields apply to the mode and the device
