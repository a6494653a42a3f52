"""The "owned" half of the price panel: what an hour of a machine you bought costs.

$/h = purchase / (lifetime years x 365 x hours a day) + (device W + rest W) / PSU efficiency /
1000 x tariff, computed by engine.pricing.owning.owned_setup, the one owned price of Compare,
Plan, the report, profiles and the CLI. The figures start from the catalog's launch price and
TDP of the selected device's GPU (engine.pricing.owning.gpu_defaults), or from a machine of the
user's own catalog; every one can be typed over. The catalog is read the first time the form is
used.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.core.errors import ConfigError
from engine.measure.devices import Device
from engine.pricing import owning
from engine.pricing.catalog import Catalog
from engine.pricing.cost import OwnedHardware
from engine.pricing.profiles import owned_source
from engine.pricing.rows import GpuSpec, Machine
from gui.common.catalog_source import CatalogSource
from gui.common.number_field import InputError, NumberField
from gui.panel.catalog_row_dialog import MACHINE_FIELDS, CatalogRowDialog

# field -> (label, tooltip); the order of the form
FIELDS = {
    "purchase_usd": ("Purchase ($)", "What the machine (or its GPU) cost. Default: launch price."),
    "lifetime_years": ("Lifetime (years)", "Years over which the purchase is spread."),
    "hours_per_day": ("Use (hours/day)", "Hours a day it trains, on average."),
    "usd_per_kwh": ("Tariff ($/kWh)", "Your electricity price."),
    "power_w": ("Device power (W)", "Draw while training. Default: the GPU's TDP (catalog)."),
    "rest_of_system_w": ("Rest of system (W)", "CPU, board, disks and fans while training."),
    "psu_efficiency": ("PSU efficiency", "Power-supply efficiency, above 0 and at most 1."),
}
UNITS = {"purchase_usd": "$", "usd_per_kwh": "$", "power_w": "W", "rest_of_system_w": "W"}
HARDWARE_FIGURES = ("purchase_usd", "power_w")  # they belong to the hardware, not to the user
OTHER = "other"
TOOLTIP = Qt.ItemDataRole.ToolTipRole
STATE_PREFIX = "price_owned_"


def _text(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


class OwnedForm(QWidget):
    changed = Signal()

    def __init__(self, source: CatalogSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source = source
        self.device: Device | None = None
        self._loaded = False
        self._pending: str | None = None  # a restored hardware key, applied once loaded
        self.hardware = QComboBox(objectName="owned_hardware")
        self.hardware.setToolTip("The GPU (its catalog figures) or one of your saved machines")
        # Long GPU names must not widen the configuration panel; the list opens wider.
        self.hardware.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.hardware.setMinimumContentsLength(10)
        self.edits: dict[str, NumberField] = {}
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Hardware", self.hardware)
        defaults = owning.gpu_defaults(None)
        for name, (label, tip) in FIELDS.items():
            # Empty: the engine's default (lifetime, use, rest of system, PSU), else not given.
            edit = NumberField(
                label,
                name=name,
                object_name=f"owned_{name}",
                default=owning.DEFAULTS.get(name),
                optional=True,
                unit=UNITS.get(name),
                placeholder=_text(defaults.get(name)),
                tooltip=tip,
            )
            self.edits[name] = edit
            form.addRow(label, edit)
            edit.textChanged.connect(self.changed)
        self.edits["usd_per_kwh"].setPlaceholderText("required")
        self.summary = QLabel(wordWrap=True, objectName="owned_summary")
        self.save = QPushButton("Save as my machine…")
        self.save.setToolTip("Keep these figures as a machine in your own catalog file")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addWidget(self.summary)
        layout.addWidget(self.save)
        self.hardware.currentIndexChanged.connect(self._hardware_chosen)
        self.save.clicked.connect(self.save_machine)
        self.source.reloaded.connect(self._catalog_reloaded)

    # hardware ------------------------------------------------------------------------------

    def ensure_loaded(self) -> None:
        """Fill the hardware list from the catalog (the first time the form is used)."""
        if self._loaded:
            return
        self._loaded = True
        self._fill(self.source.get())
        if self._pending is not None:
            self._select(self._pending, refill=False)
            self._pending = None
        elif not any(e.text() for e in self.edits.values()):
            self._select(self._device_key(), refill=True)

    def _fill(self, cat: Catalog) -> None:
        current = self.hardware_key()
        self.hardware.blockSignals(True)
        self.hardware.clear()
        # Yours first, then the catalog's GPUs; each by name (the catalog's order is its file's).
        for m in sorted(cat.machines, key=lambda m: m.name.casefold()):
            self.hardware.addItem(f"yours: {m.name}", f"machine:{m.name}")
        for g in sorted(cat.gpus, key=lambda g: g.name.casefold()):
            self.hardware.addItem(g.name, f"gpu:{g.name}")
            figures = f"launch price {_text(g.launch_price_usd) or 'not in the catalog'}"
            figures += f", TDP {_text(g.tdp_w) or '?'} W"
            self.hardware.setItemData(self.hardware.count() - 1, figures, TOOLTIP)
        self.hardware.addItem("other (type its figures)", OTHER)
        self.hardware.setCurrentIndex(max(0, self.hardware.findData(current)))
        self.hardware.blockSignals(False)
        view = self.hardware.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 24)

    def _catalog_reloaded(self, cat: Catalog) -> None:
        if self._loaded:
            self._fill(cat)

    def hardware_key(self) -> str:
        return self.hardware.currentData() or self._pending or OTHER

    def _device_key(self) -> str:
        d = self.device
        if d is None or d.kind != "cuda":
            return OTHER
        spec = self.source.get().gpu_for_device(d.name)
        return f"gpu:{spec.name}" if spec else OTHER

    def _select(self, key: str, refill: bool) -> None:
        index = self.hardware.findData(key)
        index = index if index >= 0 else self.hardware.findData(OTHER)
        self.hardware.blockSignals(True)
        self.hardware.setCurrentIndex(index)
        self.hardware.blockSignals(False)
        if refill:
            self._hardware_chosen()

    def set_device(self, device: Device | None) -> None:
        """The device chosen in the form: its GPU becomes the hardware (when the form is used)."""
        self.device = device
        if self._loaded:
            self._select(self._device_key(), refill=True)

    def _hardware_chosen(self) -> None:
        kind, _, name = self.hardware_key().partition(":")
        cat = self.source.get()
        machine = cat.machine(name) if kind == "machine" else None
        if machine is not None:
            self._show_machine(machine)
        else:
            spec: GpuSpec | None = cat.gpu(name) if kind == "gpu" else None
            defaults = owning.gpu_defaults(spec)
            for field in HARDWARE_FIGURES:
                self.edits[field].setText(_text(defaults[field]))
        self.changed.emit()

    def _show_machine(self, m: Machine) -> None:
        for field in FIELDS:
            value = getattr(m, field)
            if value is not None or field in HARDWARE_FIGURES:
                self.edits[field].setText(_text(value))

    # figures -------------------------------------------------------------------------------

    def owned(self) -> tuple[OwnedHardware | None, str | None]:
        """The owned hardware the form describes, or None and what to fix."""
        values: dict[str, Any] = {}
        wrong: list[str] = []
        for field, edit in self.edits.items():  # every field read: each mistake is marked
            try:
                values[field] = edit.value()
            except InputError as exc:
                wrong.append(str(exc))
        if wrong:
            return None, wrong[0]
        for field, missing in (
            ("purchase_usd", "give the purchase price ($) to price owning"),
            ("usd_per_kwh", "give your electricity tariff ($/kWh) to price owning"),
        ):
            if values[field] is None:
                self.edits[field].set_error(missing)
                return None, missing
        try:
            return owning.owned_setup(**values), None
        except ConfigError as exc:
            if exc.field in self.edits:
                self.edits[exc.field].set_error(exc.message)
            return None, f"{FIELDS.get(exc.field, (exc.field,))[0]}: {exc.message}"

    def hardware_name(self) -> str:
        kind, _, name = self.hardware_key().partition(":")
        return name if kind in ("gpu", "machine") else "machine"

    def fields(self) -> tuple[dict[str, Any], str | None]:
        owned, error = self.owned()
        self._show_summary(owned)
        if owned is None:
            return {"usd_per_hour": None, "price_source": "owned"}, error
        return {"usd_per_hour": owned.usd_per_hour, "price_source": self.source_text(owned)}, None

    def source_text(self, o: OwnedHardware) -> str:
        """The price's source as a result records it: what was bought and how it is used."""
        return owned_source(self.hardware_name(), o)

    def _show_summary(self, o: OwnedHardware | None) -> None:
        if o is None:
            self.summary.setText("")
            return
        electricity = o.electricity_usd_per_hour
        parts = f"${o.amortisation_usd_per_hour:.4f}/h purchase"
        if electricity is None:
            parts += " (power unknown: electricity not counted)"
        else:
            parts += f" + ${electricity:.4f}/h electricity"
        self.summary.setText(f"{parts}<br>= <b>${o.usd_per_hour:.4f}/h</b>")

    # saving and settings -------------------------------------------------------------------

    def save_machine(self) -> None:
        kind, _, name = self.hardware_key().partition(":")
        values = {field: edit.text().strip() for field, edit in self.edits.items()}
        values["gpu_spec"] = name if kind == "gpu" else ""
        values["name"] = "" if kind == "gpu" else name
        dialog = CatalogRowDialog(self.source, "machines", MACHINE_FIELDS, values, parent=self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self._select(f"machine:{dialog.values()['name']}", refill=True)

    def state(self) -> dict[str, str]:
        return {
            STATE_PREFIX + "hardware": self.hardware_key(),
            **{STATE_PREFIX + f: e.text() for f, e in self.edits.items()},
        }

    def restore(self, state: dict[str, Any]) -> None:
        for field, edit in self.edits.items():
            value = state.get(STATE_PREFIX + field)
            if isinstance(value, str):
                edit.setText(value)
        key = state.get(STATE_PREFIX + "hardware")
        if isinstance(key, str):
            if self._loaded:
                self._select(key, refill=False)
            else:
                self._pending = key
