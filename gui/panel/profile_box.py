"""Machine profiles in the panel: a combo of the saved profiles (engine/pricing/profile_store.py,
the same profiles.json as `epochcost profile`) over the price widget, and "Save as profile…".

Choosing a profile fills the price widget with it (a catalog machine, a quoted $/h with its
source and date, or owned hardware with its grid region); every tab then reads the panel's price.
Changing the price by hand afterwards leaves the combo on "(none)": the figures are no longer
the profile's. A damaged profiles file is said once, in the message bar, and never written.
"""

from __future__ import annotations

import datetime as _dt

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QInputDialog, QPushButton, QWidget

from engine.core.errors import ConfigError, StoreError
from engine.pricing import profile_store
from engine.pricing.catalog import Catalog
from engine.pricing.profiles import OWNED, RENTED, Profile, find_instance
from gui.panel.price_widget import SPOT, PriceWidget

NONE = "(none)"
STATE_KEY = "price_profile"


def profile_of(price: PriceWidget, name: str) -> Profile:
    """The price widget's set-up as a profile called `name`; ConfigError saying what to fix."""
    if price.mode == "rented":
        i = price.instance
        if i is not None:
            return Profile(
                name, RENTED, instance=f"{i.cloud}:{i.instance_type}", spot=price.spot
            ).validated()
        current = price.current_price()
        if current is None:
            raise ConfigError("usd_per_hour", "give a price ($/h) to save as a profile")
        source, as_of = price.quote or ("user", None)  # not a profile's name: it adds its own
        return Profile(
            name,
            RENTED,
            usd_per_hour=current.usd_per_hour,
            source=source,
            as_of=as_of or _dt.date.today().isoformat(),
        ).validated()
    choice = price.owned_choice()
    if choice is None:
        raise ConfigError("usd_per_kwh", "complete the owned figures (tariff, purchase) first")
    o = choice.owned
    return Profile(
        name,
        OWNED,
        gpu=choice.hardware,
        purchase_usd=o.purchase_usd,
        usd_per_kwh=o.usd_per_kwh,
        lifetime_years=o.lifetime_years,
        hours_per_day=o.hours_per_day,
        watts=o.power_w,
        rest_of_system_w=o.rest_of_system_w,
        psu_efficiency=o.psu_efficiency,
        grid_region=choice.grid_region,
        source="owned",
        as_of=_dt.date.today().isoformat(),
    ).validated()


def apply_profile(price: PriceWidget, profile: Profile, catalog: Catalog) -> None:
    """Fill the price widget with `profile` and price with it (Profile.price(): its source
    names the profile, as the CLI's does); ConfigError when its machine left the catalog."""
    price.profile = None
    _fill(price, profile, catalog)
    price.profile = profile
    price.changed.emit()


def _fill(price: PriceWidget, profile: Profile, catalog: Catalog) -> None:
    """The profile's figures in the widget, shown as the user could have typed them."""
    price.grid_region = profile.grid_region
    if profile.kind == OWNED:
        spec = catalog.gpu(profile.gpu or "")
        state = {
            "price_mode": "owned",
            "price_owned_hardware": f"gpu:{spec.name}" if spec else "other",
            "price_owned_purchase_usd": _text(profile.purchase_usd),
            "price_owned_usd_per_kwh": _text(profile.usd_per_kwh),
            "price_owned_lifetime_years": _text(profile.lifetime_years),
            "price_owned_hours_per_day": _text(profile.hours_per_day),
            "price_owned_power_w": _text(
                profile.watts if profile.watts is not None else spec.tdp_w if spec else None
            ),
            "price_owned_rest_of_system_w": _text(profile.rest_of_system_w),
            "price_owned_psu_efficiency": _text(profile.psu_efficiency),
        }
        price.restore(state)
        price.grid_region = profile.grid_region
        return
    price.owned_button.setChecked(False)
    price.rented_button.setChecked(True)
    if profile.instance is not None:
        price.set_instance(find_instance(catalog, profile.instance), profile.spot)
        price.kind.setCurrentText(SPOT if profile.spot else price.kind.itemText(0))
    else:
        assert profile.usd_per_hour is not None
        price.set_quote(profile.usd_per_hour, profile.source, profile.as_of)


def _text(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


class ProfileBox(QWidget):
    """The combo of profiles and the button that saves the price as one."""

    message = Signal(str, str)  # (text, level) for the window's message bar

    def __init__(self, price: PriceWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.price = price
        self._applying = False
        self.combo = QComboBox(objectName="price_profile")
        self.combo.setToolTip(
            "A saved price set-up (rented or owned): choosing one prices every tab with it. "
            "The same profiles as `epochcost profile list`."
        )
        self.combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.combo.setMinimumContentsLength(10)
        self.save = QPushButton("Save as profile…", objectName="price_profile_save")
        self.save.setToolTip("Keep this price under a name, for the app and `--profile NAME`")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.combo, 1)
        row.addWidget(self.save)
        self.reload()
        self.combo.activated.connect(lambda _: self.choose(self.combo.currentText()))
        self.save.clicked.connect(self.ask_and_save)
        price.changed.connect(self._price_changed)

    def reload(self, select: str | None = None) -> None:
        """The combo from the file; a damaged file is said and leaves only "(none)"."""
        try:
            names = profile_store.names()
        except StoreError as exc:
            names = []
            self.message.emit(f"Profiles: {exc}", "error")
        current = select if select is not None else self.combo.currentText()
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItems([NONE, *names])
        self.combo.setCurrentIndex(max(0, self.combo.findText(current)))
        self.combo.blockSignals(False)

    @property
    def chosen(self) -> str | None:
        text = self.combo.currentText()
        return None if text in ("", NONE) else text

    def choose(self, name: str) -> bool:
        """Price the panel with the profile `name`; False (and why, said) when it cannot."""
        if name in ("", NONE):
            self.combo.setCurrentIndex(0)
            if self.price.profile is not None:
                self.price.profile = None
                self.price.changed.emit()
            return True
        try:
            profile = profile_store.get(name)
            self._applying = True
            apply_profile(self.price, profile, self.price.source.get())
        except (ConfigError, StoreError) as exc:
            self.message.emit(f"Profile {name!r}: {getattr(exc, 'message', exc)}", "error")
            self.combo.setCurrentIndex(0)
            return False
        finally:
            self._applying = False
        self.combo.setCurrentIndex(max(0, self.combo.findText(name)))
        return True

    def _price_changed(self) -> None:
        if not self._applying:  # edited by hand: no longer the profile's figures
            self.price.profile = None
            if self.chosen is not None:
                self.combo.setCurrentIndex(0)

    def ask_and_save(self) -> None:
        name, ok = QInputDialog.getText(self, "Save as profile", "Profile name:")
        if ok and name.strip():
            self.save_as(name.strip())

    def save_as(self, name: str, replace_existing: bool = False) -> Profile | None:
        """Save the price widget's set-up as `name`; None (and why, said) when it cannot."""
        try:
            profile = profile_of(self.price, name)
            profile_store.save(profile, replace=replace_existing)
        except (ConfigError, StoreError) as exc:
            self.message.emit(f"Profile not saved: {getattr(exc, 'message', exc)}", "error")
            return None
        self.reload(select=name)
        self._applying = True  # the figures are now the saved profile's: it names the price
        try:
            self.price.profile = profile
            self.price.changed.emit()
        finally:
            self._applying = False
        self.message.emit(f"Saved profile {name!r}: {profile.describe()}", "info")
        return profile

    def state(self) -> dict[str, str]:
        return {STATE_KEY: self.chosen or ""}

    def restore(self, state: dict[str, object]) -> None:
        """The profile chosen last, chosen again (its figures as they are now in the file)."""
        name = state.get(STATE_KEY)
        if isinstance(name, str) and name and self.combo.findText(name) > 0:
            self.choose(name)
