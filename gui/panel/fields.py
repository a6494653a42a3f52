"""The configuration panel's fields and their layout: model, framework, device, batch size and
precision, the Data box, the measurement window and the cost, each with its error line beside
it (`error_labels`), scrolling above Run and Cancel. The panel (gui/panel/panel.py) connects
them, validates what they hold and emits the intents."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
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
from engine.process.launcher import WorkerSpec
from gui.common import settings
from gui.common.field_error import ErrorLabel, field_cell
from gui.common.number_field import NumberField
from gui.panel.data_box import DataBox
from gui.panel.environment_offer import EnvironmentOffer
from gui.panel.model_picker import ModelPicker
from gui.panel.price_widget import PriceWidget
from gui.panel.profile_box import ProfileBox
from gui.panel.run_rules import FORM_DEFAULTS, NUMBER_FIELDS, TOOLTIPS


class PanelFields:
    """The panel's widgets; `lay_out(panel)` puts the fields (`fields_area`) above the buttons."""

    def __init__(
        self,
        devices: list[Device],
        prefs: settings.Settings | None,
        spec_for: Callable[[str], WorkerSpec] | None,
    ) -> None:
        self.picker = ModelPicker(prefs, spec_for)
        self.model = self.picker.combo
        self.model_info = QLabel(wordWrap=True, objectName="model_info")
        self.framework = QComboBox(objectName="framework")
        self.environment = EnvironmentOffer()  # where the framework or its build is missing
        self.device = _device_box(devices)
        self.framework.setToolTip("The framework the run trains with (PyTorch or TensorFlow)")
        self.precision = QComboBox(objectName="precision")
        self.precision.setToolTip(
            "Number format of the training step: fp32 (the framework's own TF32 default), tf32 "
            "(every float32 matmul and convolution as TF32: NVIDIA Ampere and newer), or mixed "
            "precision (fp16, bf16) where the device has it"
        )
        self.precision.addItems(list(PRECISIONS))
        self.numbers = _number_fields()
        self.price = PriceWidget()
        self.profiles = ProfileBox(self.price)
        self.data_box = DataBox(prefs)
        self.error_labels: dict[str, ErrorLabel] = dict(self.data_box.error_labels)
        self.run_button = QPushButton("Run", objectName="run_button")
        self.run_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel", objectName="cancel_button")
        self.cancel_button.setEnabled(False)
        self.other_error = ErrorLabel("other")
        self.fields_area = self._scrolling(self._body())

    def _row(self, form: QFormLayout, label: str, field: QWidget, name: str) -> None:
        error = ErrorLabel(name)
        form.addRow(label, field_cell(error, field))
        self.error_labels[name] = error

    def _body(self) -> QWidget:
        """The fields in their groups, each with its error line, the form's own line last."""
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
        body = QWidget(objectName="panel_body")
        fields = QVBoxLayout(body)
        fields.addLayout(form)
        fields.addWidget(self.data_box)
        fields.addWidget(_group("Measurement window", window))
        fields.addWidget(_group("Cost", price_form))
        fields.addWidget(self.other_error)
        fields.addStretch(1)
        return body

    @staticmethod
    def _scrolling(body: QWidget) -> QScrollArea:
        # The fields scroll and Run stays below them: with every option shown (an owned price
        # has eight more rows) the form is taller than a 860-pixel window.
        area = QScrollArea(objectName="panel_scroll")
        area.setWidget(body)
        area.setWidgetResizable(True)
        area.setFrameShape(QScrollArea.Shape.NoFrame)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        bar = area.verticalScrollBar().sizeHint().width()
        area.setMinimumWidth(body.sizeHint().width() + bar)
        return area

    def lay_out(self, panel: QWidget) -> None:
        """The scrolling fields over Run (the wider) and Cancel."""
        buttons = QHBoxLayout()
        buttons.setContentsMargins(9, 4, 9, 4)
        buttons.addWidget(self.run_button, 1)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.fields_area, 1)
        layout.addLayout(buttons)


def _device_box(devices: list[Device]) -> QComboBox:
    """The devices by label, each one's detail its tooltip."""
    box = QComboBox(objectName="device")
    box.setToolTip("Where the model trains: the CPU or one GPU")
    # A long CPU or GPU name must not widen the whole panel (and so the window's smallest
    # width): the box elides it, and its tooltip and the open list show it whole.
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(24)
    for d in devices:
        box.addItem(d.label, d.id)
        box.setItemData(box.count() - 1, d.detail, Qt.ItemDataRole.ToolTipRole)
    return box


def _number_fields() -> dict[str, NumberField]:
    """The number fields (run_rules.NUMBER_FIELDS), each showing its default."""
    defaults = RunConfig()
    numbers: dict[str, NumberField] = {}
    for name, (label, whole, optional, unit) in NUMBER_FIELDS.items():
        value = FORM_DEFAULTS.get(name, getattr(defaults, name))
        numbers[name] = NumberField(
            label,
            name=name,
            text="" if value is None else f"{value:g}",
            integer=whole,
            optional=optional,
            unit=unit,
        )
    for name, tip in TOOLTIPS.items():
        numbers[name].setToolTip(tip)
    return numbers


def _group(title: str, layout: QFormLayout) -> QGroupBox:
    box = QGroupBox(title)
    box.setLayout(layout)
    return box
