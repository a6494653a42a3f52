"""The past-runs table over the shared store: listing, sorting, deleting, opening files
(and dropping them), overlays, and the out-of-memory hint drawn from stored runs."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from engine.core.events import Failed
from engine.measure.result import failed_result
from engine.results.store import Store
from gui.common.results_model import COLUMNS
from gui.pages.run.controller import describe_failure, largest_batch_that_fitted
from tests.gui.helpers import tiny_config


def variant(result, run_id: str, **config_changes):
    """The same measurement filed under another id and config (for listing and sorting)."""
    out = copy.deepcopy(result)
    out["run_id"] = run_id
    out["config"].update(config_changes)
    return out


def cell(window, row: int, header: str) -> str:
    column = [c[1] for c in COLUMNS].index(header)
    return window.results.model.index(row, column).data()


def test_the_table_lists_the_store_with_readable_numbers(window, measured):
    Store().add(measured)
    window.results.refresh()
    assert window.results.model.rowCount() == 1
    assert cell(window, 0, "Model") == "tiny-mlp"
    assert cell(window, 0, "Samples/s") == f"{measured['throughput_samples_per_s']:,.1f}"
    assert cell(window, 0, "Memory fill") == f"{measured['memory_fill']:.1%}"
    assert cell(window, 0, "$ per epoch").startswith("$")
    assert cell(window, 0, "Price source") == "user"


def test_sorting_by_a_column_keeps_missing_values_last(window, measured):
    store = Store()
    for i, batch in enumerate((64, 16, 32)):
        store.add(variant(measured, f"20260101T00000{i}-aaaaaaaa", batch_size=batch))
    oom = Failed(
        run_id="20260101T000009-bbbbbbbb", kind="oom", message="out of memory", batch_size=512
    )
    store.add(failed_result(oom, tiny_config(batch_size=512), {}))
    window.results.refresh()
    batch_col = [c[1] for c in COLUMNS].index("Batch")
    rate_col = [c[1] for c in COLUMNS].index("Samples/s")
    window.results.view.sortByColumn(batch_col, Qt.SortOrder.AscendingOrder)
    assert [cell(window, r, "Batch") for r in range(4)] == ["16", "32", "64", "512"]
    window.results.view.sortByColumn(rate_col, Qt.SortOrder.DescendingOrder)
    assert cell(window, 3, "Samples/s") == "–" and cell(window, 3, "Status") == "oom"
    # A refresh (a new run) keeps the chosen order.
    window.results.refresh()
    assert cell(window, 3, "Status") == "oom"


def test_deleting_selected_rows_removes_them_from_the_store(window, measured):
    store = Store()
    store.add(variant(measured, "20260101T000001-aaaaaaaa"))
    store.add(variant(measured, "20260101T000002-aaaaaaaa"))
    window.results.refresh(select="20260101T000001-aaaaaaaa")
    assert window.results.delete_button.isEnabled()
    assert window.results.delete_selected(confirm=False) == 1
    assert list(Store().list().run_id) == ["20260101T000002-aaaaaaaa"]
    assert window.results.model.rowCount() == 1


def test_opening_a_result_file_adds_and_selects_it(window, measured, tmp_path):
    path = tmp_path / "from-a-cloud-box.json"
    path.write_text(json.dumps(measured))
    window.results.import_files([path])
    assert window.results.selected_run_ids() == [measured["run_id"]]
    assert window.message_bar.level == "info"


def test_a_bad_file_gets_a_sentence_not_a_traceback(window, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema": "something/else"}))
    window.results.import_files([broken, other])
    text = window.message_bar.text.text()
    assert window.message_bar.level == "error"
    assert "broken.json: is not valid JSON (line 1" in text
    assert "other.json: schema is 'something/else'" in text
    assert "Traceback" not in text
    assert window.results.model.rowCount() == 0


def test_dropping_result_files_on_the_window_imports_them(window, measured, tmp_path):
    path = tmp_path / "dropped.json"
    path.write_text(json.dumps(measured))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    drop = QDropEvent(
        QPointF(20, 20),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(drop)
    assert drop.isAccepted()
    assert list(Store().list().run_id) == [measured["run_id"]]


def test_a_result_imported_by_the_cli_shows_in_the_app(window, measured, tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(measured))
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", "results", "import", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    window.results.refresh()
    assert window.results.model.run_id(0) == measured["run_id"]


def test_selecting_rows_overlays_them_on_the_plots(window, measured):
    Store().add(measured)
    window.results.refresh(select=measured["run_id"])
    lines = {chart.name: line.value() for chart, line in window.plots.overlays.lines}
    assert sorted(lines) == ["cost", "flops", "memory", "throughput"]
    assert lines["flops"] == measured["flops"]["achieved_tflops"]
    window.results.view.clearSelection()
    assert window.plots.overlays.lines == []


def test_out_of_memory_suggests_the_largest_batch_that_fitted(measured):
    store = Store()
    for i, batch in enumerate((16, 64, 256)):
        store.add(variant(measured, f"20260101T00000{i}-cccccccc", batch_size=batch, device="cpu"))
    store.add(variant(measured, "20260101T000005-cccccccc", batch_size=100, device="cuda:0"))
    config = tiny_config(batch_size=128, device="cpu")
    assert largest_batch_that_fitted(config, Store) == 64
    oom = Failed(run_id="x", kind="oom", message="out of memory at batch size 128", batch_size=128)
    text = describe_failure(oom, config, Store)
    assert text.startswith("Out of memory: out of memory at batch size 128.")
    assert "largest batch that fitted before was 64" in text
    assert "such as 8" in describe_failure(oom, tiny_config(batch_size=16), Store)
