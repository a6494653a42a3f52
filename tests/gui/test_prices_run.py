"""End to end with the real worker: a run priced as owned hardware in the price panel records
that price and its source, the cost plot and its caption follow it, and the Compare tab prices
the new result (selected in the table) the same way."""

from __future__ import annotations

import pytest

from engine.pricing.cost import OwnedHardware
from engine.results import report
from engine.results.store import Store
from tests.gui.helpers import TINY_FORM, fill_form, run_to_end, show_tab


def test_an_owned_price_is_what_the_run_records_and_the_compare_tab_shows(qtbot, window):
    fill_form(window.panel, **TINY_FORM)
    window.panel.device.setCurrentIndex(window.panel.device.findData("cpu"))
    price = window.panel.price
    price.owned_button.setChecked(True)
    for field, text in (("purchase_usd", "1200"), ("usd_per_kwh", "0.25"), ("power_w", "65")):
        price.owned.edits[field].setText(text)
    assert window.panel.validate()
    usd_per_hour = OwnedHardware(1200, 0.25, 65).usd_per_hour  # 0.045662 + 0.018056 $/h
    assert window.panel.config.usd_per_hour == pytest.approx(usd_per_hour)
    run_to_end(qtbot, window)
    stored = Store().get(window.results.selected_run_ids()[0])
    assert stored["price"]["usd_per_hour"] == pytest.approx(usd_per_hour)
    assert stored["price"]["source"] == (
        "owned machine: $1,200 over 3 y at 24 h/day + 72 W at the wall at $0.25/kWh"
    )
    assert window.plots.series.usd_per_hour == pytest.approx(usd_per_hour)
    caption = window.plots.cost.caption.text
    assert f"${usd_per_hour:,.4g}/h (owned machine: $1,200 over 3 y" in caption
    # The Compare tab follows the selected new run: the measured machine at the same price.
    page = show_tab(window, "Compare")
    local = next(r for r in page.comparison.rows if r.local)
    assert local.usd_per_hour == pytest.approx(usd_per_hour)
    assert local.usd_per_epoch == pytest.approx(stored["usd_per_epoch"])
    shown = [page.model.index(r, 7).data() for r in range(page.model.rowCount())]
    assert report.money(stored["usd_per_epoch"]) in shown  # the $/epoch column
