"""The Compare page's inputs: which machines (cloud, GPU, spot, historical, size), how many
epochs a run has, and the measured machine as owned hardware (purchase, tariff, use, power,
rest of system, PSU, grid). An empty owned field takes the panel's figure (every one of them:
engine.pricing.owning.carried), so the row prices as the panel does. `options()` turns them
into engine.pricing.compare's CompareOptions, or says what to fix."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from engine.core.errors import ConfigError
from engine.pricing import owning
from engine.pricing.catalog import Catalog
from engine.pricing.compare_rows import BuyOptions, CompareOptions
from engine.pricing.device import device_power_w, is_cpu
from gui.common.field_error import ErrorLabel
from gui.common.number_field import InputError, NumberField
from gui.panel.price_widget import OwnedChoice

ALL_CLOUDS = "All clouds"
MAX_GPUS = {"1 GPU": 1.0, "up to 8 GPUs": 8.0, "any size": None}
# owned field -> (label, width in characters, unit); empty: the result's GPU's or a default
OWNED = {
    "purchase_usd": ("Purchase $", 7, "$"),
    "usd_per_kwh": ("Tariff $/kWh", 5, "$"),
    "hours_per_day": ("Use h/day", 4, None),
    "lifetime_years": ("Lifetime y", 4, None),
    "power_w": ("Power W", 5, "W"),
    "rest_of_system_w": ("Rest W", 4, "W"),
    "psu_efficiency": ("PSU", 4, None),
}


def _sized(edit: QLineEdit, chars: int) -> QLineEdit:
    edit.setMaximumWidth(edit.fontMetrics().horizontalAdvance("0") * (chars + 6))
    return edit


class CompareInputs(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cloud = QComboBox(objectName="compare_cloud")
        self.cloud.addItem(ALL_CLOUDS)
        self.cloud.setToolTip("Only machines of this cloud")
        self.gpu = _sized(QLineEdit(objectName="compare_gpu"), 8)
        self.gpu.setToolTip("Only machines with this GPU: v100, a100, 4090, ...")
        self.gpu.setPlaceholderText("any GPU")
        self.spot = QCheckBox("Spot", objectName="compare_spot")
        self.spot.setToolTip("Sort and chart by the spot price (machines without one go last)")
        self.historical = QCheckBox("2016-18 prices", objectName="compare_historical")
        self.historical.setToolTip("Add the prices the published cost studies used")
        self.buy = QCheckBox("GPUs to buy", objectName="compare_buy")
        self.buy.setToolTip(
            "Add rows for GPUs you could buy (those with a launch price, released since 2020): "
            "each owned at its launch price with your tariff, use and lifetime below, its "
            "projected epoch, and the days of use after which it costs less than the "
            "cheapest cloud epoch (break-even)"
        )
        self.machine_size = QComboBox(objectName="compare_size")
        self.machine_size.addItems(list(MAX_GPUS))
        self.machine_size.setToolTip(
            "Bigger machines scale by the data-parallel efficiency stored for this model on "
            "that GPU (a scaling study, Sweep tab), else assume perfect scaling (each row says)"
        )
        self.epochs = NumberField(
            "Epochs",
            name="epochs",
            text="1",
            object_name="compare_epochs",
            default=1.0,
            minimum=0,
            tooltip="Epochs in a training run, for $/run",
        )
        _sized(self.epochs, 4)
        self.owned: dict[str, NumberField] = {}
        for name, (label, chars, unit) in OWNED.items():
            field = NumberField(  # none of them negative; the engine's ranges check the rest
                label, name=name, object_name=f"compare_{name}", optional=True, minimum=0, unit=unit
            )
            self.owned[name] = field
            _sized(field, chars)
        self.owned["usd_per_kwh"].setToolTip(
            "Your electricity tariff: give it to price the measured machine as owned "
            "(purchase spread over its use, plus power) and to draw the break-even"
        )
        self.grid = NumberField(
            "Grid",
            name="grid",
            object_name="compare_grid",
            optional=True,
            minimum=0,
            unit="g/kWh",
            placeholder="g/kWh",
            tooltip="Carbon intensity of your grid (g CO2e per kWh)",
        )
        _sized(self.grid, 5)
        # The panel's owned hardware (a profile, or its Owned form): an empty field takes its
        # figure, so a tariff given once is not asked for again (set by the page).
        self.panel_owned: OwnedChoice | None = None
        self.error = ErrorLabel("compare")

        machines = QHBoxLayout()
        machines.setContentsMargins(0, 0, 0, 0)
        for label, widget in (
            ("", self.cloud),
            ("GPU", self.gpu),
            ("", self.machine_size),
            ("", self.spot),
            ("", self.historical),
            ("", self.buy),
            ("Epochs", self.epochs),
        ):
            if label:
                machines.addWidget(QLabel(label))
            machines.addWidget(widget)
        machines.addStretch(1)
        mine = QHBoxLayout()
        mine.setContentsMargins(0, 0, 0, 0)
        mine.addWidget(QLabel("<b>This machine owned:</b>"))
        for name, (label, _, _) in OWNED.items():
            mine.addWidget(QLabel(label))
            mine.addWidget(self.owned[name])
        mine.addWidget(QLabel("Grid"))
        mine.addWidget(self.grid)
        mine.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(machines)
        layout.addLayout(mine)
        layout.addWidget(self.error)

        self.cloud.currentIndexChanged.connect(self.changed)
        self.machine_size.currentIndexChanged.connect(self.changed)
        for box in (self.spot, self.historical, self.buy):
            box.toggled.connect(self.changed)
        for edit in (self.gpu, self.epochs, self.grid, *self.owned.values()):
            edit.editingFinished.connect(self.changed)

    def set_clouds(self, clouds: list[str]) -> None:
        current = self.cloud.currentText()
        self.cloud.blockSignals(True)
        self.cloud.clear()
        self.cloud.addItems([ALL_CLOUDS, *clouds])
        self.cloud.setCurrentIndex(max(0, self.cloud.findText(current)))
        self.cloud.blockSignals(False)

    def show_defaults(self, result: dict[str, Any], catalog: Catalog) -> None:
        """Placeholders that say what an empty owned field stands for with this result."""
        spec = owning.gpu_of_result(result, catalog, None)
        defaults = owning.gpu_defaults(spec)
        purchase = defaults["purchase_usd"]
        self.owned["purchase_usd"].setPlaceholderText(
            "required" if purchase is None else f"{purchase:g}"
        )
        self.owned["purchase_usd"].setToolTip(
            "Empty: the launch price of its GPU (catalog)" if purchase else "What it cost"
        )
        watts, basis = device_power_w(result, spec)
        self.owned["power_w"].setPlaceholderText("?" if watts is None else f"{watts:.0f}")
        self.owned["power_w"].setToolTip(f"Device draw while training. Empty: {basis}")
        self.owned["usd_per_kwh"].setPlaceholderText("give it")
        for name in owning.DEFAULTS:
            self.owned[name].setPlaceholderText(f"{owning.DEFAULTS[name]:g}")
        for name, value in self._from_panel(result, catalog).items():
            if value is not None:
                self.owned[name].setPlaceholderText(f"{value:g}")
                self.owned[name].setToolTip("Empty: the panel's owned price (its profile)")
        region = self.panel_owned.grid_region if self.panel_owned else None
        grid = catalog.grid_for(*region.partition(":")[::2]) if region else None
        self.grid.setPlaceholderText(f"{grid.ci_gco2e_per_kwh:g}" if grid else "g/kWh")
        if grid is not None:
            self.grid.setToolTip(f"Empty: the panel's grid region, {region}")

    def _from_panel(self, result: dict[str, Any], catalog: Catalog) -> dict[str, float | None]:
        """The panel's owned figures that apply to this result (owning.carried)."""
        choice = self.panel_owned
        if choice is None:
            return {}
        return owning.carried(choice.owned, choice.hardware, result, catalog)

    def _mark(self, exc: ConfigError) -> str:
        """Mark the field a range check of the engine refused; the line that says why."""
        if exc.field in self.owned:
            self.owned[exc.field].set_error(exc.message)
        return f"{OWNED.get(exc.field, (exc.field,))[0]}: {exc.message}"

    def show_error(self, exc: ConfigError) -> None:
        """A figure the comparison itself refused, said beside its field and under the inputs."""
        self.error.show_error(self._mark(exc))

    def options(
        self, result: dict[str, Any], catalog: Catalog
    ) -> tuple[CompareOptions, str | None]:
        """The options the inputs describe; with a wrong input, the options without it and
        what to fix."""
        error = None
        read: dict[str, float | None] = {}
        wrong: list[str] = []
        for field in (*self.owned.values(), self.epochs, self.grid):  # each mistake is marked
            try:
                read[field.spec.key] = field.value()
            except InputError as exc:
                wrong.append(str(exc))
        if wrong:
            read, error = {}, wrong[0]
        epochs, grid = read.get("epochs"), read.get("grid")
        grid_label = "" if grid is None else f"{grid:g} g/kWh (given)"
        given = {n: read.get(n) for n in self.owned} if read else {}
        for name, value in self._from_panel(result, catalog).items():
            if read and given.get(name) is None:
                given[name] = value
        if grid is None and self.panel_owned and self.panel_owned.grid_region:
            provider, _, region = self.panel_owned.grid_region.partition(":")
            found = catalog.grid_for(provider, region)
            if found is not None:
                grid = found.ci_gco2e_per_kwh
                grid_label = f"{self.panel_owned.grid_region} ({found.ci_data_vintage})"
        owned = None
        if given.get("usd_per_kwh") is not None:
            try:
                owned, _ = owning.owned_for_result(result, catalog, None, **given)
            except ConfigError as exc:
                error = self._mark(exc)
        buy = None
        # A CPU's speed says nothing of a GPU's: the page says what buying needs instead.
        wanted = self.buy.isChecked() and not is_cpu(result)
        if wanted and error is None:  # a wrong figure is named already
            tariff = given.get("usd_per_kwh")
            if tariff is None:
                error = error or "Tariff $/kWh: give it to price GPUs to buy"
            else:
                buy = BuyOptions(
                    usd_per_kwh=tariff,
                    lifetime_years=given.get("lifetime_years"),
                    hours_per_day=given.get("hours_per_day"),
                    psu_efficiency=given.get("psu_efficiency"),
                    rest_of_system_w=given.get("rest_of_system_w"),
                )
        cloud = self.cloud.currentText()
        options = CompareOptions(
            clouds=None if cloud in ("", ALL_CLOUDS) else (cloud,),
            gpu=self.gpu.text().strip() or None,
            spot=self.spot.isChecked(),
            historical=self.historical.isChecked(),
            max_gpus=MAX_GPUS[self.machine_size.currentText()],
            epochs=1.0 if epochs is None else epochs,
            owned=owned,
            local_power_w=given.get("power_w") if owned is None else None,
            local_g_co2e_per_kwh=grid,
            local_grid_label=grid_label,
            buy=buy,
        )
        self.error.show_error(error)
        return options, error
