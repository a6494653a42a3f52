"""The configuration panel: model, framework, device, batch, precision, data, window, price.

The model is a built-in workload or one of the user's model files (gui/panel/model_picker.py);
the Data box (gui/panel/data_box.py) says where its batches come from.

Every change re-validates the whole form through RunConfig.validated(), the CLI's own rules
(gui/panel/run_rules.py, which also says which frameworks are offered), and shows each field's
reason beside it; Run stays disabled while anything is invalid. The panel
emits intents only (`run_requested(RunConfig)`, `cancel_requested()`).

Every tab prices with the panel's price as it last passed the checks (`accepted_price`,
`accepted_owned`, `priced()`), and re-prices on `price_changed`, which a price holding a
mistake never emits: a half-typed "-5" is marked beside the field and changes nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from engine.measure.config import PRECISIONS, RunConfig
from engine.measure.devices import Device
from engine.pricing.cost import Price
from engine.process.launcher import WorkerSpec
from engine.results.repricing import repriced
from engine.workloads import registry
from gui.common import settings
from gui.common.field_error import ErrorLabel, field_cell
from gui.common.number_field import InputError, NumberField
from gui.panel.data_box import DataBox
from gui.panel.environment_offer import EnvironmentOffer, framework_to_make
from gui.panel.gpu_check import GpuCheck
from gui.panel.model_picker import ModelPicker
from gui.panel.price_widget import OwnedChoice, PriceWidget
from gui.panel.profile_box import ProfileBox
from gui.panel.run_rules import FORM_DEFAULTS, NUMBER_FIELDS, TOOLTIPS, usable, validate_all


class ConfigPanel(QWidget):
    run_requested = Signal(object)  # RunConfig
    cancel_requested = Signal()
    validity_changed = Signal(bool)
    # After each update of Run and Cancel (validation, running, a model file check): the Run
    # menu's Start and Cancel, and the Sweep and Accuracy tabs' start buttons, follow it.
    buttons_changed = Signal()
    # The accepted price (or owned hardware) changed: the tabs re-price what they show.
    price_changed = Signal()

    def __init__(
        self,
        devices: list[Device],
        parent: QWidget | None = None,
        interpreters: dict[str, str] | None = None,
        prefs: settings.Settings | None = None,
        spec_for: Callable[[str], WorkerSpec] | None = None,
    ) -> None:
        super().__init__(parent)
        self.devices = devices
        self.interpreters = dict(interpreters or {})  # framework -> its own Python
        self.config: RunConfig | None = None
        self.errors: dict[str, str] = {}
        self._error_labels: dict[str, ErrorLabel] = {}
        self._running = False
        self.accepted_price: Price | None = None  # the last price that passed (None: none given)
        self.accepted_owned: OwnedChoice | None = None  # its owned hardware, when owned

        self.picker = ModelPicker(prefs, spec_for)
        self.model = self.picker.combo
        self.model_info = QLabel(wordWrap=True, objectName="model_info")
        self.framework = QComboBox(objectName="framework")
        self.environment = EnvironmentOffer()  # where the framework or its build is missing
        self.device = QComboBox(objectName="device")
        self.framework.setToolTip("The framework the run trains with (PyTorch or TensorFlow)")
        self.device.setToolTip("Where the model trains: the CPU or one GPU")
        # A long CPU or GPU name must not widen the whole panel (and so the window's smallest
        # width): the box elides it, and its tooltip and the open list show it whole.
        self.device.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.device.setMinimumContentsLength(24)
        for d in devices:
            self.device.addItem(d.label, d.id)
            self.device.setItemData(self.device.count() - 1, d.detail, Qt.ItemDataRole.ToolTipRole)
        self.gpu_check = GpuCheck(devices, spec_for or (lambda _framework: WorkerSpec()), self)
        self.precision = QComboBox(objectName="precision")
        self.precision.setToolTip(
            "Number format of the training step: fp32 (the framework's own TF32 default), tf32 "
            "(every float32 matmul and convolution as TF32: NVIDIA Ampere and newer), or mixed "
            "precision (fp16, bf16) where the device has it"
        )
        self.precision.addItems(list(PRECISIONS))
        defaults = RunConfig()
        self.numbers: dict[str, NumberField] = {}
        for name, (label, whole, optional, unit) in NUMBER_FIELDS.items():
            value = FORM_DEFAULTS.get(name, getattr(defaults, name))
            self.numbers[name] = NumberField(
                label,
                name=name,
                text="" if value is None else f"{value:g}",
                integer=whole,
                optional=optional,
                unit=unit,
            )
        for name, tip in TOOLTIPS.items():
            self.numbers[name].setToolTip(tip)
        self.price = PriceWidget()
        self.profiles = ProfileBox(self.price)
        self.data_box = DataBox(prefs)
        self._error_labels.update(self.data_box.error_labels)
        self._epoch_hint = ""  # the model's epoch, the epoch field's placeholder

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._row(form, "Model", self.picker, "model")
        form.addRow("", self.model_info)
        self._row(form, "Framework", self.framework, "framework")
        form.addRow("", self.environment)
        self._row(form, "Device", self.device, "device")
        self._row(form, "Batch size", self.numbers["batch_size"], "batch_size")
        self._row(form, "Precision", self.precision, "precision")
        window = QFormLayout()
        for name in list(NUMBER_FIELDS)[1:]:  # all but the batch size
            self._row(window, NUMBER_FIELDS[name][0], self.numbers[name], name)
        price_form = QFormLayout()
        price_form.addRow("Profile", self.profiles)
        self._row(price_form, "Price", self.price, "usd_per_hour")

        self.run_button = QPushButton("Run", objectName="run_button")
        self.run_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel", objectName="cancel_button")
        self.cancel_button.setEnabled(False)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(9, 4, 9, 4)
        buttons.addWidget(self.run_button, 1)
        buttons.addWidget(self.cancel_button)

        body = QWidget(objectName="panel_body")
        fields = QVBoxLayout(body)
        fields.addLayout(form)
        fields.addWidget(self.data_box)
        fields.addWidget(_group("Measurement window", window))
        fields.addWidget(_group("Cost", price_form))
        self.other_error = ErrorLabel("other")
        fields.addWidget(self.other_error)
        fields.addStretch(1)
        # The fields scroll and Run stays below them: with every option shown (an owned price
        # has eight more rows) the form is taller than a 860-pixel window.
        self.fields_area = QScrollArea(objectName="panel_scroll")
        self.fields_area.setWidget(body)
        self.fields_area.setWidgetResizable(True)
        self.fields_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.fields_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        bar = self.fields_area.verticalScrollBar().sizeHint().width()
        self.fields_area.setMinimumWidth(body.sizeHint().width() + bar)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.fields_area, 1)
        layout.addLayout(buttons)

        self.model.currentIndexChanged.connect(self._model_changed)
        self.picker.files_changed.connect(self._model_changed)
        self.picker.checking_changed.connect(lambda _: self._update_buttons())
        for combo in (self.framework, self.device, self.precision):
            combo.currentIndexChanged.connect(self.validate)
        for edit in self.numbers.values():
            edit.textChanged.connect(self.validate)
        self.price.changed.connect(self.validate)
        self.data_box.changed.connect(self.validate)
        self.device.currentIndexChanged.connect(self._device_changed)
        self._device_changed()
        self.framework.currentTextChanged.connect(self.gpu_check.check)
        self.gpu_check.changed.connect(self._show_gpu_verdicts)
        self.run_button.clicked.connect(self.request_run)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.model.setCurrentIndex(max(0, self.model.findData(defaults.model)))
        self._model_changed()

    def _row(self, form: QFormLayout, label: str, field: QWidget, name: str) -> None:
        error = ErrorLabel(name)
        form.addRow(label, field_cell(error, field))
        self._error_labels[name] = error

    def _device_changed(self) -> None:
        """Owning is priced from the chosen device's GPU (its launch price and TDP)."""
        index = self.device.currentIndex()
        self.price.set_device(self.devices[index] if 0 <= index < len(self.devices) else None)

    def _show_gpu_verdicts(self) -> None:
        """Mark the GPUs the chosen framework's environment cannot train on; revalidate."""
        self.gpu_check.mark(self.device, self.devices)
        self.validate()

    def _model_changed(self) -> None:
        entry = self.picker.current_file()
        model = self.model.currentData() or RunConfig().model
        if entry is not None:
            self.model_info.setText(entry.describe())
            epoch = entry.epoch_samples
        else:
            workload = registry.get(model)
            self.model_info.setText(
                f"{workload.description}. One epoch: {workload.epoch_samples:,} "
                f"{workload.epoch_unit}."
            )
            epoch = workload.epoch_samples
        offered = [f for f in self._supported() if usable(f, self.interpreters)]
        self._epoch_hint = f"{epoch:,}" if epoch else ""
        self.data_box.set_model(model, entry.path if entry else None)
        current = self.framework.currentText()
        self.framework.blockSignals(True)
        self.framework.clear()
        self.framework.addItems(offered)
        self.framework.setCurrentIndex(max(0, self.framework.findText(current)))
        self.framework.blockSignals(False)
        self.gpu_check.check(self.framework.currentText())  # its environment may have changed
        self.validate()

    def set_interpreters(self, interpreters: dict[str, str]) -> None:
        """Frameworks with an interpreter of their own are offered even if not installed here."""
        self.interpreters = dict(interpreters)
        self._model_changed()

    def values(self) -> tuple[dict[str, Any], dict[str, str]]:
        """RunConfig fields from the widgets, and the fields whose text does not parse."""
        entry = self.picker.current_file()
        values: dict[str, Any] = {
            "model": self.model.currentData() if entry is None else entry.name,
            "framework": self.framework.currentText(),
            "device": self.device.currentData() or "auto",
            "precision": self.precision.currentText(),
        }
        if entry is not None:
            values["model_file"] = entry.path
        errors: dict[str, str] = {}
        if not values["framework"]:
            errors["framework"] = (
                f"none of {', '.join(self._supported())} is installed in this environment; "
                "the button below makes the one this machine needs, or File > Settings points a "
                "framework at a Python that has it"
            )
            values.pop("framework")
        gpu = self.gpu_check.verdict(values["device"])
        if gpu is not None and not gpu.ok:
            errors["device"] = f"{gpu.reason}. To fix: {gpu.remedy}"
        for name, field in self.numbers.items():
            try:
                values[name] = field.value()
            except InputError as exc:
                errors[name] = exc.message
        data, data_errors = self.data_box.values()
        values.update(data)
        errors.update(data_errors)
        price, price_error = self.price.fields()
        values.update(price)
        if price_error:
            errors["usd_per_hour"] = price_error
        return values, errors

    def validate(self) -> bool:
        values, errors = self.values()
        for name in errors:
            values.pop(name, None)
        config, checked = validate_all(values)
        if "model_file" in checked:  # the file moved or went: said beside the model box
            checked["model"] = checked.pop("model_file")
        self.errors = {**checked, **errors}
        self.config = None if self.errors else config
        for name, label in self._error_labels.items():
            label.show_error(self.errors.get(name))
        for name, field in self.numbers.items():
            field.set_error(self.errors.get(name))
        self.data_box.workers.set_error(self.errors.get("loader_workers"))
        images = self.data_box.epoch_samples  # a folder's images are the epoch
        hint = f"{images:,} (the data's images)" if images else self._epoch_hint
        self.numbers["epoch_samples"].setPlaceholderText(hint)
        self.price.show_error(self.errors.get("usd_per_hour"))
        if "usd_per_hour" not in self.errors:
            self._accept_price(Price.of(values), self.price.owned_choice())
        self.environment.offer(
            framework_to_make(errors, self.framework.currentText(), self._supported())
        )
        other = [f"{k}: {v}" for k, v in self.errors.items() if k not in self._error_labels]
        self.other_error.show_error("\n".join(other))
        self._update_buttons()
        self.validity_changed.emit(self.config is not None)
        return self.config is not None

    def _supported(self) -> list[str]:
        """The frameworks the chosen model (or model file) runs on."""
        entry = self.picker.current_file()
        model = self.model.currentData() or RunConfig().model
        return [entry.framework] if entry else list(registry.get(model).frameworks)

    def _accept_price(self, price: Price | None, owned: OwnedChoice | None) -> None:
        if (price, owned) != (self.accepted_price, self.accepted_owned):
            self.accepted_price, self.accepted_owned = price, owned
            self.price_changed.emit()

    @property
    def busy(self) -> bool:
        """A run, sweep or study is going, or a model file check (whose worker would share
        the CPU with a measurement): nothing else may start."""
        return self._running or self.picker.checking

    def request_run(self) -> None:
        self.data_box.recheck()  # the folder may have changed on disk since it was chosen
        if self.validate() and not self.busy:
            self.run_requested.emit(self.config)

    def set_running(self, running: bool) -> None:
        self._running = running
        for w in (
            self.picker,
            self.framework,
            self.device,
            self.precision,
            self.price,
            self.profiles,
            self.data_box,
        ):
            w.setEnabled(not running)
        for edit in self.numbers.values():
            edit.setEnabled(not running)
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.run_button.setEnabled(self.config is not None and not self.busy)
        self.cancel_button.setEnabled(self._running)
        self.buttons_changed.emit()

    def state(self) -> dict[str, str]:
        """The form as typed, for the settings file."""
        return {
            "model": self.model.currentData(),
            "framework": self.framework.currentText(),
            "device": self.device.currentData() or "",
            "precision": self.precision.currentText(),
            **{name: edit.text() for name, edit in self.numbers.items()},
            **self.data_box.state(),
            **self.price.state(),
            **self.profiles.state(),
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Put back a saved form; anything no longer offered (a model, a GPU) is skipped."""
        for combo, key in ((self.model, "model"), (self.device, "device")):
            value = state.get(key)
            # Only a name: findData(None) would match the model box's separator.
            index = combo.findData(value) if isinstance(value, str) and value else -1
            if index >= 0:
                combo.setCurrentIndex(index)
        for combo, key in ((self.framework, "framework"), (self.precision, "precision")):
            index = combo.findText(str(state.get(key)))
            if index >= 0:
                combo.setCurrentIndex(index)
        for name, edit in self.numbers.items():
            if isinstance(state.get(name), str):
                edit.setText(state[name])
        self.data_box.restore(state)  # after the model: its sources are offered by then
        self.price.restore(state)
        self.profiles.restore(state)
        self.validate()

    # the price every tab uses ---------------------------------------------------------------

    def priced(self, result: dict[str, Any]) -> dict[str, Any]:
        """`result` at the panel's accepted price (engine/results/repricing.py), as it is
        without one. The price itself: self.accepted_price; owned hardware: .accepted_owned."""
        price = self.accepted_price
        return result if price is None else repriced(result, price)

    def shutdown(self) -> None:
        """Window close: a model file check or a GPU check still going stops."""
        self.picker.shutdown()
        self.gpu_check.shutdown()


def _group(title: str, layout: QFormLayout) -> QGroupBox:
    box = QGroupBox(title)
    box.setLayout(layout)
    return box
