"""The catalog dialog's "Update prices": from a folder in SkyPilot's layout, a price and its date
change in the dialog (and for every tab: the catalog reloads); a folder without SkyPilot's files
is one line, and the prices stay."""

from __future__ import annotations

import datetime as dt

from gui.common.catalog_source import CatalogSource
from gui.panel.price_picker import INSTANCE_COLUMNS, PricePicker
from tests.engine.cloud_helpers import sky_home  # noqa: F401
from tests.engine.test_cloud_prices import skypilot_folder

UPDATE_TIMEOUT_MS = 30_000


def shown(picker: PricePicker, instance_type: str, cloud: str = "aws") -> dict[str, str]:
    """The dialog's cells of one machine, by column header, as the user reads them."""
    picker.search.setText(instance_type)
    for row in range(picker.model.rowCount()):
        cells = {
            c.header: picker.model.index(row, n).data() for n, c in enumerate(INSTANCE_COLUMNS)
        }
        if (cells["Cloud"], cells["Machine"]) == (cloud, instance_type):
            return cells
    raise AssertionError(f"{cloud} {instance_type} is not listed")


def test_update_prices_from_a_folder_changes_a_price_and_its_date(qtbot, tmp_path):
    source = CatalogSource()
    picker = PricePicker(source)
    qtbot.addWidget(picker)
    before = shown(picker, "g5.xlarge")
    assert before["$/h"] == "1.006" and not before["Price date"].startswith("20")
    reloaded = []
    source.reloaded.connect(reloaded.append)
    with qtbot.waitSignal(picker.prices.updated, timeout=UPDATE_TIMEOUT_MS):
        assert picker.prices.update_from_folder(skypilot_folder(tmp_path))
        assert not picker.prices.button.isEnabled() and picker.prices.progress.isVisibleTo(picker)
    today = dt.date.today().isoformat()
    after = shown(picker, "g5.xlarge")
    assert (after["$/h"], after["Spot $/h"], after["Price date"]) == ("1.2", "0.45", today)
    assert after["Source"].startswith(f"SkyPilot catalog {tmp_path}/aws/vms.csv")
    assert shown(picker, "a2-highgpu-1g", "gcp")["$/h"] == "3.8"  # the VM's and the GPU's
    status = picker.prices.status.text()
    assert status.startswith("Prices updated. aws: ") and f"dated {today}" in status
    assert len(reloaded) == 1 and picker.prices.button.isEnabled()
    assert not picker.prices.progress.isVisibleTo(picker)


def test_a_folder_without_skypilots_files_is_one_line(qtbot, tmp_path):
    source = CatalogSource()
    picker = PricePicker(source)
    qtbot.addWidget(picker)
    assert picker.prices.update_from_folder(tmp_path)
    qtbot.waitUntil(lambda: not picker.prices.running, timeout=UPDATE_TIMEOUT_MS)
    status = picker.prices.status.text()
    assert status.startswith(f"Prices not updated: {tmp_path}: no <cloud>/vms.csv for any of ")
    assert "\n" not in status and "Traceback" not in status
    assert shown(picker, "g5.xlarge")["$/h"] == "1.006"
