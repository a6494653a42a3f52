"""The price field of the configuration panel: what an hour of the chosen device costs.

Rented: a $/hour figure of your own (source "user", quoted today), or a machine picked from the
catalog (gui/panel/price_picker.py) at its on-demand or spot price, with the catalog's source and
date. Typing into the field while a catalog machine is chosen makes the figure your own (the
line under it says so, and what it replaced).
Owned: purchase, lifetime, use, tariff and power (gui/panel/price_owned.py). Either way `fields()`
gives
the RunConfig price fields (usd_per_hour, price_source, price_as_of), so the live cost plot, the
chart caption and the stored result follow the choice. The panel only uses `changed`,
`fields()`, `state()` and `restore()` (and `set_device`, so owning starts from its GPU).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.core.errors import ConfigError
from engine.measure.devices import Device
from engine.pricing.cost import MAX_USD_PER_HOUR, OwnedHardware, Price
from engine.pricing.profiles import Profile, instance_price
from engine.pricing.rows import Instance
from gui.common.catalog_source import CatalogSource
from gui.common.number_field import InputError, NumberField, mark_invalid
from gui.panel.price_owned import OwnedForm
from gui.panel.price_picker import PricePicker, gpu_text

DEFAULT_USD_PER_HOUR = "0.90"
OWN_TIP = (
    "What an hour of this machine costs you, in US dollars (an example to replace with "
    "yours), or pick one from the catalog. Leave it empty to see the projected epoch time "
    "instead of cost."
)
TYPE_OVER = (
    "The chosen machine's price, from the catalog. Type a figure to make it your own price "
    "(✕ does the same)."
)
ON_DEMAND, SPOT = "on-demand", "spot"


@dataclass(frozen=True)
class OwnedChoice:
    """The panel's owned hardware, for the tabs that price owning (Compare, Plan): what it is
    (a catalog GPU's name, a machine of yours, or "machine"), its figures, its grid region."""

    hardware: str
    owned: OwnedHardware
    grid_region: str | None = None


class PriceWidget(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None, source: CatalogSource | None = None) -> None:
        super().__init__(parent)
        self.source = source or CatalogSource(self)
        self.instance: Instance | None = None  # None: the typed figure
        # A typed figure's source and date when a profile gave it (None: "user", today).
        self.quote: tuple[str, str | None] | None = None
        self.grid_region: str | None = None  # an owned profile's grid region
        # The profile the figures were filled from, while they are its (ProfileBox sets and
        # clears it): the price is then Profile.price(), whose source names the profile.
        self.profile: Profile | None = None
        # The line under the field when no machine is chosen: a restored machine no longer in
        # the catalog, or the catalog price a typed figure replaced.
        self._missing = ""

        self.rented_button = QRadioButton("Rented", objectName="price_rented")
        self.owned_button = QRadioButton("Owned", objectName="price_owned")
        self.rented_button.setChecked(True)
        self.rented_button.setToolTip("A cloud machine or a rate you pay by the hour")
        self.owned_button.setToolTip(
            "Hardware you bought: purchase spread over its use, plus power"
        )
        modes = QButtonGroup(self)
        modes.addButton(self.rented_button)
        modes.addButton(self.owned_button)

        self.edit = NumberField(
            "Price ($/h)",
            name="usd_per_hour",
            text=DEFAULT_USD_PER_HOUR,
            optional=True,
            minimum=0,  # free hardware is a price too; RunConfig's range
            maximum=MAX_USD_PER_HOUR,
            unit="$",
            placeholder="none",
            tooltip=OWN_TIP,
        )
        self.choose = QPushButton("Catalog…", objectName="price_catalog")
        self.choose.setToolTip("Pick a cloud machine's price (search by GPU, cloud or price)")
        self.instance_label = QLabel(wordWrap=True, objectName="price_instance")
        self.kind = QComboBox(objectName="price_kind")
        self.kind.addItems([ON_DEMAND, SPOT])
        self.kind.setToolTip("The instance's on-demand price, or its spot price (interruptible)")
        self.clear_instance = QToolButton(objectName="price_custom")
        self.clear_instance.setText("✕")
        self.clear_instance.setToolTip("Type your own price instead")
        self.owned = OwnedForm(self.source)

        mode_row = QHBoxLayout()
        mode_row.addWidget(self.rented_button)
        mode_row.addWidget(self.owned_button)
        mode_row.addStretch(1)
        price_row = QHBoxLayout()
        price_row.addWidget(QLabel("$"))
        price_row.addWidget(self.edit, 1)
        price_row.addWidget(QLabel("per hour"))
        chosen_row = QHBoxLayout()
        chosen_row.addWidget(self.choose)
        chosen_row.addWidget(self.kind)
        chosen_row.addStretch(1)
        chosen_row.addWidget(self.clear_instance)
        self.rented = QWidget()
        rented = QVBoxLayout(self.rented)
        rented.setContentsMargins(0, 0, 0, 0)
        rented.setSpacing(2)
        rented.addLayout(price_row)
        rented.addWidget(self.instance_label)
        rented.addLayout(chosen_row)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(mode_row)
        layout.addWidget(self.rented)
        layout.addWidget(self.owned)

        self.edit.textChanged.connect(self._typed)
        self.edit.textEdited.connect(self._typed_over)  # keys only, never setText
        self.owned_button.toggled.connect(self._mode_changed)
        self.choose.clicked.connect(self.pick)
        self.kind.currentIndexChanged.connect(self._show_instance)
        self.clear_instance.clicked.connect(lambda: self.set_instance(None))
        self.owned.changed.connect(self.changed)
        self.source.reloaded.connect(self._catalog_reloaded)
        self._mode_changed()
        self._show_instance()

    def _typed(self) -> None:
        if self.instance is None and not self.edit.signalsBlocked():
            self.quote = None  # a figure typed over a profile's is the user's own
        self.changed.emit()

    def _typed_over(self) -> None:
        """A key typed into the field while a catalog machine prices the run: the figure is
        the user's own from now on, and the line under it says which price it replaced."""
        i = self.instance
        if i is None:
            return
        price = i.usd_per_hour_spot if self.spot else i.usd_per_hour
        was = f"{i.label} {self.kind.currentText()}" + ("" if price is None else f" ${price:g}/h")
        self.set_instance(None)  # the typed text stays
        self._missing = f"Your own price (it replaced {was})"
        self.quote = None
        self._show_instance()

    def set_quote(self, usd_per_hour: float, source: str, as_of: str | None) -> None:
        """A typed figure with its source and date (a profile's)."""
        self.set_instance(None)
        self.edit.setText(f"{usd_per_hour:g}")
        self.quote = (source, as_of)
        self.changed.emit()

    # modes ---------------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        return "owned" if self.owned_button.isChecked() else "rented"

    def _mode_changed(self) -> None:
        owned = self.owned_button.isChecked()
        if owned:
            self.owned.ensure_loaded()
        self.rented.setVisible(not owned)
        self.owned.setVisible(owned)
        self.changed.emit()

    def set_device(self, device: Device | None) -> None:
        self.owned.set_device(device)

    # rented: a machine from the catalog ----------------------------------------------------

    @property
    def spot(self) -> bool:
        return self.kind.currentText() == SPOT

    def pick(self) -> None:
        picker = PricePicker(self.source, self)
        if self.instance is not None:
            picker.select_instance(self.instance)
        if picker.exec() == QDialog.DialogCode.Accepted and picker.chosen is not None:
            self.set_instance(*picker.chosen)

    def set_instance(self, instance: Instance | None, spot: bool = False) -> None:
        """Price the run as `instance` (on-demand or spot); None: the typed figure."""
        self.instance = instance
        self._missing = ""
        self.kind.blockSignals(True)
        self.kind.setCurrentText(SPOT if spot else ON_DEMAND)
        self.kind.blockSignals(False)
        self._show_instance()

    def _show_instance(self) -> None:
        i = self.instance
        chosen = i is not None
        self.edit.setToolTip(TYPE_OVER if chosen else OWN_TIP)
        for w in (self.kind, self.clear_instance):
            w.setVisible(chosen)
        if i is None:
            self.instance_label.setText(self._missing)
            self.instance_label.setVisible(bool(self._missing))
        else:
            price = i.usd_per_hour_spot if self.spot else i.usd_per_hour
            self.edit.setText("" if price is None else f"{price:g}")
            region = f" · {i.region}" if i.region else ""
            date = i.price_date or "undated"
            whose = "your quote" if i.origin == "user" else "catalog"
            self.instance_label.setText(
                f"<b>{i.label}</b> · {gpu_text(i)}{region}<br><small>{whose}, {date}</small>"
            )
            self.instance_label.setToolTip(i.source)
            self.instance_label.show()
        self.changed.emit()

    def _catalog_reloaded(self, cat: Any) -> None:
        if self.instance is not None:  # a quote of yours may have been edited
            same = [r for r in cat.instances if r.key == self.instance.key]
            if same and same[0] != self.instance:
                self.set_instance(same[0], self.spot)

    # the four the configuration panel uses -------------------------------------------------

    def fields(self) -> tuple[dict[str, Any], str | None]:
        """RunConfig fields for the price, and why the input is unusable (None when fine):
        a price that passes here passes Price.validated(), so every page can use it."""
        values, error = self._fields()
        if error is None and values.get("usd_per_hour") is not None:
            try:  # owned figures can add up to more than any hour costs
                Price.of(values).validated()  # type: ignore[union-attr]
            except ConfigError as exc:
                return {**values, "usd_per_hour": None}, exc.message
        if error is None and self.profile is not None:
            try:  # the profile's own price: the same figures, its name in the source
                return self.profile.price(self.source.get()).fields(), None
            except ConfigError as exc:
                return values, f"profile {self.profile.name}: {exc.message}"
        return values, error

    def _fields(self) -> tuple[dict[str, Any], str | None]:
        if self.mode == "owned":
            values, error = self.owned.fields()
            return {**values, "price_as_of": None}, error
        i = self.instance
        if i is not None:
            price = i.usd_per_hour_spot if self.spot else i.usd_per_hour
            if price is None:
                values = {"usd_per_hour": None, "price_source": i.label, "price_as_of": None}
                return values, f"{i.label} has no spot price in the catalog; choose on-demand"
            return instance_price(i, self.spot).fields(), None
        source, as_of = self.quote or ("user", None)
        values = {"usd_per_hour": None, "price_source": source, "price_as_of": as_of}
        try:
            values["usd_per_hour"] = self.edit.value()
        except InputError as exc:
            return values, exc.message
        return values, None

    def current_price(self) -> Price | None:
        """The price the panel gives now (None: none given, or a mistake in it)."""
        values, error = self.fields()
        return None if error else Price.of(values)

    def owned_choice(self) -> OwnedChoice | None:
        """The owned hardware the panel describes (None: rented, or a mistake in it)."""
        if self.mode != "owned":
            return None
        owned, _ = self.owned.owned()
        if owned is None:
            return None
        return OwnedChoice(self.owned.hardware_name(), owned, self.grid_region)

    def show_error(self, message: str | None) -> None:
        """Mark the field the price's mistake is about (the owned form marks its own)."""
        rented = self.mode == "rented"
        self.edit.set_error(message if rented and self.instance is None else None)
        mark_invalid(self.kind, rented and self.instance is not None and message is not None)

    def state(self) -> dict[str, str]:
        i = self.instance
        return {
            "price_mode": self.mode,
            "usd_per_hour": "" if i is not None else self.edit.text(),
            "price_instance": "" if i is None else "|".join(i.key),
            "price_kind": self.kind.currentText(),
            "price_quote_source": self.quote[0] if self.quote else "",
            "price_quote_date": (self.quote[1] or "") if self.quote else "",
            "price_grid_region": self.grid_region or "",
            **self.owned.state(),
        }

    def restore(self, state: dict[str, Any]) -> None:
        value = state.get("usd_per_hour")
        key = state.get("price_instance")
        if isinstance(key, str) and key:
            found = [r for r in self.source.get().instances if "|".join(r.key) == key]
            if found:
                self.set_instance(found[0], state.get("price_kind") == SPOT)
            else:
                self.set_instance(None)
                cloud, _, rest = key.partition("|")
                self._missing = (
                    f"{cloud} {rest.split('|')[0]} is no longer in the catalog: type a price "
                    "or pick another machine"
                )
                self.edit.setText("")
                self._show_instance()
        elif isinstance(value, str):
            self.set_instance(None)
            self.edit.setText(value)
            source = state.get("price_quote_source")
            if isinstance(source, str) and source:
                self.quote = (source, state.get("price_quote_date") or None)
        region = state.get("price_grid_region")
        self.grid_region = region if isinstance(region, str) and region else None
        self.owned.restore(state)
        self.owned_button.setChecked(state.get("price_mode") == "owned")
        self.rented_button.setChecked(state.get("price_mode") != "owned")
