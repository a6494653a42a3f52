"""The price panel: a typed figure, a catalog machine (on demand or spot), owned hardware; each
gives the RunConfig price fields, a wrong input says what to fix, and the form comes back."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from engine.measure.devices import Device
from engine.pricing import catalog
from engine.pricing.cost import OwnedHardware
from gui.pages.run.page import caption
from gui.panel.panel import ConfigPanel
from gui.panel.price_picker import PricePicker

GTX = Device("cuda:0", "cuda", "NVIDIA GeForce GTX 1080 Ti", 11 * 2**30)
CPU = Device("cpu", "cpu", "Some CPU", 16 * 2**30)


@pytest.fixture
def panel(qtbot, read_build_once):
    # The GTX makes the panel read the environment's build: once per test process, not per test.
    p = ConfigPanel([GTX, CPU])
    qtbot.addWidget(p)
    yield p
    p.shutdown()  # as the window's close does: the GPU check reading the build ends


def instance(instance_type: str):
    return next(i for i in catalog.load().instances if i.instance_type == instance_type)


def test_a_typed_figure_is_the_users_own_price(panel):
    panel.price.edit.setText("$1,250.5")
    assert panel.validate()
    c = panel.config
    assert (c.usd_per_hour, c.price_source, c.price_as_of) == (1250.5, "user", None)
    panel.price.edit.setText("a lot")
    assert not panel.validate()
    assert panel.errors["usd_per_hour"] == "'a lot' is not a number; give one such as 0.90"
    assert not panel.run_button.isEnabled()


def test_a_catalog_machine_gives_its_price_with_source_and_date(panel):
    p3 = instance("p3.2xlarge")
    panel.price.set_instance(p3)
    assert panel.validate()
    c = panel.config
    assert c.usd_per_hour == 3.06 and c.price_as_of is None  # the catalog's date is not a day
    assert c.price_source == f"aws p3.2xlarge on-demand, catalog, {p3.price_date}"
    assert panel.price.edit.text() == "3.06"
    # spot: the catalog's spot price, and the line under the charts says where it is from
    panel.price.kind.setCurrentText("spot")
    assert panel.validate() and panel.config.usd_per_hour == p3.usd_per_hour_spot
    line = caption(panel.config, "cuda:0")
    assert f"${p3.usd_per_hour_spot:g}/h (aws p3.2xlarge spot, catalog, {p3.price_date})" in line
    # a machine without a spot market cannot be priced at spot
    lambda_a10 = instance("gpu_1x_a10")
    panel.price.set_instance(lambda_a10, spot=True)
    assert not panel.validate()
    assert "has no spot price" in panel.errors["usd_per_hour"]
    # back to a figure of one's own
    panel.price.clear_instance.click()
    panel.price.edit.setText("0.5")
    assert panel.validate() and panel.config.price_source == "user"


def test_typing_over_a_catalog_price_makes_it_your_own_and_says_so(qtbot, panel):
    """Issue 38: after Catalog… > Use on-demand price, keys typed into the field were ignored
    until ✕ was pressed, and nothing said so."""
    p3 = instance("p3.2xlarge")
    panel.price.set_instance(p3)
    panel.show()
    assert "Type a figure to make it your own" in panel.price.edit.toolTip()
    panel.price.edit.setFocus()
    panel.price.edit.selectAll()
    qtbot.keyClicks(panel.price.edit, "2.5")
    assert panel.price.edit.text() == "2.5"
    assert panel.validate()
    c = panel.config
    assert (c.usd_per_hour, c.price_source, c.price_as_of) == (2.5, "user", None)
    assert panel.price.instance is None
    assert not panel.price.kind.isVisible() and not panel.price.clear_instance.isVisible()
    note = panel.price.instance_label
    assert note.isVisible()
    assert note.text() == "Your own price (it replaced aws p3.2xlarge on-demand $3.06/h)"
    # the figure is kept as typed, and picking a machine again clears the note
    assert panel.price.state()["usd_per_hour"] == "2.5"
    panel.price.set_instance(p3)
    assert "Your own price" not in note.text()


def test_the_picker_finds_machines_by_gpu_cloud_and_price(qtbot, panel):
    picker = PricePicker(panel.price.source)
    qtbot.addWidget(picker)
    qtbot.keyClicks(picker.search, "v100")
    shown = [picker.model.instance(r) for r in range(picker.model.rowCount())]
    assert shown and all("V100" in i.gpu_model for i in shown)
    assert all(i.full_instance and not i.historical for i in shown)
    picker.cloud.setCurrentText("aws")
    picker.max_price.setText("5")
    shown = [picker.model.instance(r) for r in range(picker.model.rowCount())]
    assert [i.instance_type for i in shown] == ["p3.2xlarge"]
    assert picker.count.text().startswith("1 of ")
    picker.view.selectRow(0)
    qtbot.mouseClick(picker.use_spot, Qt.MouseButton.LeftButton)
    assert picker.chosen == (shown[0], True)
    picker.max_price.setText("cheap")
    assert "(Max $/h: 'cheap' is not a number)" in picker.count.text()


def test_owning_starts_from_the_devices_gpu_and_needs_a_tariff(panel):
    panel.price.owned_button.setChecked(True)
    owned = panel.price.owned
    assert owned.hardware.currentText() == "GeForce GTX 1080 Ti"
    # the catalog's launch price and TDP of the selected device's GPU
    assert owned.edits["purchase_usd"].text() == "699"
    assert owned.edits["power_w"].text() == "250"
    assert not panel.validate()
    assert panel.errors["usd_per_hour"] == "give your electricity tariff ($/kWh) to price owning"
    owned.edits["usd_per_kwh"].setText("0.3")
    assert panel.validate()
    # $699 over 3 x 365 x 24 h = $0.026598/h; (250 W + 0) / 0.9 x $0.3/kWh = $0.083333/h
    expected = OwnedHardware(699, 0.3, 250).usd_per_hour
    assert panel.config.usd_per_hour == pytest.approx(expected) == pytest.approx(0.109932, 1e-5)
    assert panel.config.price_source.startswith("owned GeForce GTX 1080 Ti: $699 over 3 y")
    assert "$0.1099/h" in owned.summary.text()
    # the CPU has no catalog price: its figures are typed
    panel.device.setCurrentIndex(1)
    assert owned.hardware.currentData() == "other"
    assert owned.edits["purchase_usd"].text() == ""
    assert panel.errors["usd_per_hour"] == "give the purchase price ($) to price owning"


@pytest.mark.parametrize(
    ("field", "text", "message"),
    [
        ("lifetime_years", "0", "Lifetime (years): 0 must be at least 0.001 and at most 100"),
        ("psu_efficiency", "1.5", "PSU efficiency: 1.5 must be at least 0.001 and at most 1"),
        ("hours_per_day", "lots", "Use (hours/day): 'lots' is not a number; give one such as 24"),
        ("usd_per_kwh", "-1", "Tariff ($/kWh): -1 must be at least 0 and at most 100"),
    ],
)
def test_a_wrong_owned_figure_is_named(panel, field, text, message):
    panel.price.owned_button.setChecked(True)
    panel.price.owned.edits["usd_per_kwh"].setText("0.3")
    panel.price.owned.edits[field].setText(text)
    assert not panel.validate()
    assert panel.errors["usd_per_hour"] == message
    assert panel.findChild(type(panel.other_error), "usd_per_hour_error").text() == message


def test_the_choice_comes_back_from_the_settings(qtbot, panel):
    panel.price.set_instance(instance("p3.2xlarge"), spot=True)
    panel.price.owned.edits["usd_per_kwh"].setText("0.2")
    state = panel.state()
    again = ConfigPanel([GTX, CPU])
    qtbot.addWidget(again)
    again.restore(state)
    again.shutdown()
    assert again.price.instance == instance("p3.2xlarge") and again.price.spot
    assert again.config == panel.config
    # owned, with its figures
    panel.price.owned_button.setChecked(True)
    panel.price.owned.edits["purchase_usd"].setText("550")
    again.restore(panel.state())
    assert again.price.mode == "owned"
    assert again.price.owned.edits["purchase_usd"].text() == "550"
    assert again.config == panel.config
    # a machine gone from the catalog: said, and no stale price
    state = {**panel.state(), "price_mode": "rented", "price_instance": "aws|p9.gone|no"}
    again.restore(state)
    assert again.price.instance is None
    assert "aws p9.gone is no longer in the catalog" in again.price.instance_label.text()
    assert again.config is not None and again.config.usd_per_hour is None
