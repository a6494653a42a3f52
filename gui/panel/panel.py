"""The configuration panel: model, framework, device, batch, precision, data, window, price.

The model is a built-in workload or one of the user's model files (gui/panel/model_picker.py);
the Data box (gui/panel/data_box.py) says where its batches come from. The fields, each with
its error line, and their layout: gui/panel/fields.py; the panel connects and validates them.

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

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from engine.measure.config import RunConfig
from engine.measure.devices import Device
from engine.pricing.cost import Price
from engine.process.launcher import WorkerSpec
from engine.results.repricing import repriced
from engine.workloads import registry
from gui.common import settings
from gui.common.number_field import InputError
from gui.panel.environment_offer import framework_to_make
from gui.panel.fields import PanelFields
from gui.panel.gpu_check import GpuCheck
from gui.panel.price_widget import OwnedChoice
from gui.panel.run_rules import usable, validate_all


class ConfigPanel(QWidget):
    run_requested = Signal(object)  # RunConfig
    cancel_requested = Signal()
    validity_changed = Signal(bool)
    # After each update of Run and Cancel (validation, running, a model file check): the Run
    # menu's Start and Cancel, and the Sweep and Accuracy tabs' start buttons, follow it.
    buttons_changed = Signal()
    # The accepted price (or owned hardware) changed: the tabs re-price what they show.
    price_changed = Signal()
    # The form's framework, whether the user chose it or a model's choice of frameworks did
    # (the framework box is refilled with its signals blocked).
    framework_changed = Signal(str)

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
        self._running = False
        self.accepted_price: Price | None = None  # the last price that passed (None: none given)
        self.accepted_owned: OwnedChoice | None = None  # its owned hardware, when owned

        fields = PanelFields(devices, prefs, spec_for)  # laid out by gui/panel/fields.py
        self.picker, self.model, self.model_info = fields.picker, fields.model, fields.model_info
        self.framework, self.environment = fields.framework, fields.environment
        self.device, self.precision, self.numbers = fields.device, fields.precision, fields.numbers
        self.price, self.profiles, self.data_box = fields.price, fields.profiles, fields.data_box
        self.run_button, self.cancel_button = fields.run_button, fields.cancel_button
        self.other_error, self.fields_area = fields.other_error, fields.fields_area
        self._error_labels = fields.error_labels  # each field's error line, by field name
        self._epoch_hint = ""  # the model's epoch, the epoch field's placeholder
        self.gpu_check = GpuCheck(devices, spec_for or (lambda _framework: WorkerSpec()), self)
        fields.lay_out(self)

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
        self.framework.currentTextChanged.connect(self.framework_changed)
        self.framework_changed.connect(self.gpu_check.check)
        self.gpu_check.changed.connect(self._show_gpu_verdicts)
        self.run_button.clicked.connect(self.request_run)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.model.setCurrentIndex(max(0, self.model.findData(RunConfig().model)))
        self._model_changed()

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
        if self.framework.currentText() != current:
            self.framework_changed.emit(self.framework.currentText())
        else:
            self.gpu_check.check(current)  # its environment may have changed
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
