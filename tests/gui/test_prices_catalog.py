"""The user's own catalog from the GUI: a quote and a machine added to the user's files (the
shipped ones untouched), a wrong value named before anything is written, and a malformed user
file reported line by line in the message bar while the rest loads."""

from __future__ import annotations

import hashlib

from engine.core import paths
from engine.pricing import catalog
from gui.common.catalog_source import CatalogSource
from gui.panel.catalog_row_dialog import MACHINE_FIELDS, QUOTE_FIELDS, CatalogRowDialog
from gui.panel.price_picker import PricePicker
from tests.gui.helpers import show_tab


def shipped_digest() -> str:
    files = sorted(paths.assets().glob("*.csv"))
    return hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()


def fill(dialog: CatalogRowDialog, **texts: str) -> None:
    for column, text in texts.items():
        dialog.edits[column].setText(text)


def test_a_quote_is_added_to_the_users_file_and_offered_by_the_picker(qtbot):
    before = shipped_digest()
    source = CatalogSource()
    dialog = CatalogRowDialog(source, "instances", QUOTE_FIELDS)
    qtbot.addWidget(dialog)
    fill(
        dialog,
        cloud="hetzner",
        instance_type="GEX44",
        gpu_spec="RTX A4000",
        usd_per_hour="0.26",
        price_date="2026-01-15",
        source="hetzner.com price list",
    )
    with qtbot.waitSignal(source.reloaded):
        assert dialog.save()
    assert dialog.path == catalog.user_file("instances")
    assert shipped_digest() == before
    quote = next(i for i in source.get().instances if i.instance_type == "GEX44")
    assert (quote.origin, quote.usd_per_hour, quote.gpu_model) == ("user", 0.26, "RTX A4000")
    picker = PricePicker(source)
    qtbot.addWidget(picker)
    picker.search.setText("GEX44")
    assert picker.model.rowCount() == 1
    assert picker.model.index(0, 7).data() == "your quote"


def test_a_wrong_value_is_named_and_nothing_is_written(qtbot):
    source = CatalogSource()
    dialog = CatalogRowDialog(source, "instances", QUOTE_FIELDS)
    qtbot.addWidget(dialog)
    fill(dialog, cloud="mine", instance_type="box", usd_per_hour="cheap")
    assert not dialog.save()
    assert dialog.error.text() == "$ per hour: 'cheap' is not a number"
    fill(dialog, usd_per_hour="1", price_date="last week")
    assert not dialog.save()
    assert dialog.error.text().startswith("Quoted on: 'last week': use a date as YYYY-MM-DD")
    assert not catalog.user_file("instances").exists()


def test_owned_figures_are_saved_as_a_machine_and_chosen_again(qtbot, window):
    price = window.panel.price
    price.owned_button.setChecked(True)
    owned = price.owned
    owned.edits["purchase_usd"].setText("1450")
    owned.edits["usd_per_kwh"].setText("0.31")
    owned.edits["power_w"].setText("65")
    values = {f: e.text() for f, e in owned.edits.items()}
    dialog = CatalogRowDialog(price.source, "machines", MACHINE_FIELDS, values)
    qtbot.addWidget(dialog)
    dialog.edits["name"].setText("office box")
    assert dialog.save()
    box = price.source.get().machine("office box")
    assert (box.purchase_usd, box.usd_per_kwh, box.power_w) == (1450, 0.31, 65)
    # the hardware list offers it; choosing it fills the form with its figures
    owned.edits["purchase_usd"].setText("1")
    owned.hardware.setCurrentIndex(owned.hardware.findData("machine:office box"))
    assert owned.edits["purchase_usd"].text() == "1450"
    assert window.panel.validate() and window.panel.config.price_source.startswith(
        "owned office box: $1,450"
    )


def test_a_malformed_user_file_is_reported_by_line_and_the_rest_loads(qtbot, window):
    path = catalog.user_file("instances")
    path.write_text(
        "cloud,instance_type,gpu_spec,usd_per_hour,price_date\n"
        "mine,good-box,Tesla T4,0.20,2026-01-02\n"
        "mine,bad-box,Tesla T4,twenty,2026-01-02\n"
        "mine,short-row\n",
        encoding="utf-8",
    )
    with qtbot.waitSignal(window.panel.price.source.message):  # read when first needed
        window.panel.price.owned_button.setChecked(True)
    bar = window.message_bar
    assert bar.isVisible() and bar.level == "error"
    text = bar.text.text()
    assert text.startswith("Your catalog files: 2 rows skipped, the rest loaded.")
    assert f"{path}, line 3: usd_per_hour: 'twenty' is not a number; row skipped" in text
    details = bar._details.splitlines()
    assert len(details) == 2 and "line 4: has 2 cells, header has 5" in details[1]
    names = [i.instance_type for i in window.panel.price.source.get().instances]
    assert "good-box" in names and "bad-box" not in names
    # the Compare page says it too, in its own bar
    assert show_tab(window, "Compare").message_bar.text.text() == text
