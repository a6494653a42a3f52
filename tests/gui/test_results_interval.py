"""Issue 15 in the past-runs table: the 95% interval beside the throughput, "no interval" for
results stored before intervals were recorded, a busy machine said in Status."""

from __future__ import annotations

from PySide6.QtCore import Qt

from engine.results.store import Store
from gui.common.results_model import COLUMNS, ResultsTableModel
from tests.engine.test_store import _result


def test_the_table_shows_the_interval_and_a_busy_machine(qtbot):
    old = _result("20250101T000000-00000001")
    new = _result("20261122T030000-00000002", 100.0)
    new.update(throughput_ci95=[97.9, 102.1], other_cpu_fraction=0.48)
    new["created_at"] = "2026-11-23T00:00:00+00:00"
    store = Store()
    store.add(old)
    store.add(new)
    model = ResultsTableModel()
    model.set_frame(store.list())
    headers = [c.header for c in COLUMNS]
    pm, status = headers.index("95% interval"), headers.index("Status")

    def shown(row: int, column: int) -> str:
        return model.data(model.index(row, column), Qt.ItemDataRole.DisplayRole)

    assert shown(0, pm) == "±2.1%" and shown(0, status) == "ok (busy machine)"
    assert shown(1, pm) == "no interval" and shown(1, status) == "ok"
    model.sort(pm)  # sorts by the number, results without an interval last
    assert shown(0, pm) == "±2.1%"
