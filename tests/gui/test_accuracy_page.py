"""The Accuracy tab with the real worker: a study on the built-in data set with the tiny model,
cancel mid-study, closing the window mid-study, a target never reached; and the user mistakes
that must end in a sentence (a bad folder, bad numbers, no network)."""

from __future__ import annotations

import csv
import dataclasses

import pytest
from PySide6.QtCore import Qt

from engine.pricing import catalog
from engine.results.store import Store
from gui.pages.accuracy.page import AccuracyPage
from tests.gui.helpers import show_tab

STUDY_TIMEOUT_MS = 300_000  # a fresh worker per run imports torch: seconds each on a busy box
STOP_TIMEOUT_MS = 30_000

# A goal the tiny model meets within ~100 iterations on patterns10 (it levels off near 90%).
QUICK = {"target_percent": "70", "eval_every": "25", "max_iterations": "1500"}


def accuracy_page(window) -> AccuracyPage:
    page = show_tab(window, "Accuracy")
    assert isinstance(page, AccuracyPage)
    return page


def fill(window, batch_sizes: str, repeats: str, **numbers: str) -> AccuracyPage:
    """The panel's model and price, then the page's form, typed as a user would."""
    panel = window.panel
    panel.model.setCurrentIndex(panel.model.findData("tiny-mlp"))
    panel.price.edit.setText("2.00")
    page = accuracy_page(window)
    page.form.batch_sizes.setText(batch_sizes)
    page.form.numbers["repeats"].setText(repeats)
    for name, text in {**QUICK, **numbers}.items():
        page.form.numbers[name].setText(text)
    return page


def click(qtbot, button) -> None:
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def wait_done(qtbot, page, timeout: int = STUDY_TIMEOUT_MS) -> None:
    qtbot.waitUntil(lambda: not page.running, timeout=timeout)


def cell(page, row: int, header: str) -> str:
    model = page.table
    column = next(
        c for c in range(model.columnCount()) if model.headerData(c, Qt.Horizontal) == header
    )
    return model.data(model.index(row, column))


def test_a_real_study_draws_curves_fills_the_table_stores_and_exports(qtbot, window, tmp_path):
    page = fill(window, "32, 128", "2")
    click(qtbot, page.run_button)
    assert page.running and not page.run_button.isEnabled() and page.cancel_button.isEnabled()
    assert not window.panel.run_button.isEnabled()  # no timed run beside the study
    wait_done(qtbot, page)

    # One curve per batch size and repeat, from the untrained model up to the target,
    # each with its star where it met the target.
    assert page.curves.curve_count == 4
    for batch in (32, 128):
        for repeat in (0, 1):
            iterations, accuracy = page.curves.points(batch, repeat)
            assert iterations[0] == 0 and accuracy[0] < 30
            assert accuracy[-1] >= 70 > max(accuracy[:-1])
    assert len(page.curves._stars) == 2 * 4
    # The table: both batch sizes reached the target in both repeats, mean ± std, priced.
    assert page.table.rowCount() == 2
    assert [cell(page, r, "Batch") for r in (0, 1)] == ["32", "128"]
    assert cell(page, 0, "Reached") == "2/2" and cell(page, 1, "Never reached") == "0"
    assert " ± " in cell(page, 0, "Time to accuracy s")
    assert cell(page, 0, "Cost to accuracy").startswith("$")
    # Every run is stored under the study id, and the window's results table shows them.
    study = page.controller.plan.study_id
    stored = Store().list(group_id=study)
    assert len(stored) == 4 and set(stored["status"]) == {"ok"}
    assert window.results.model.rowCount() == 4
    assert page.message_bar.level == "info"
    assert page.message_bar.text.text().startswith("Study done: 4 run(s)")
    assert "Cheapest to reach 70.0%: batch" in page.message_bar.text.text()
    assert window.panel.run_button.isEnabled() and page.run_button.isEnabled()
    # Bars for both batch sizes; the scatter has a point per run, and says why no cloud
    # instance is shown (a CPU result does not scale to a GPU).
    assert len(_bars(page)) == 2
    assert sum(len(item.data) for item in _scatter_points(page)) == 4
    assert "a CPU result" in page.costs.scatter.caption.text  # under the points, not on them

    for name in page.charts:
        for suffix in (".png", ".svg"):
            out = page.export_chart(name, tmp_path / f"{name}{suffix}")
            assert out is not None and out.stat().st_size > 1000
    svg = (tmp_path / "curves_iterations.svg").read_text("utf-8")
    assert "training iterations" in svg and "tiny-mlp" in svg  # axis label and caption
    table = page.export_csv(tmp_path / "table.csv")
    assert table is not None
    with table.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["batch_size"] for r in rows] == ["32", "128"]
    assert all(float(r["usd_mean"]) > 0 and r["reached"] == "2" for r in rows)


def _bars(page):
    import pyqtgraph as pg

    return [i for i in page.costs.bars.plot.items if isinstance(i, pg.BarGraphItem)]


def _scatter_points(page):
    import pyqtgraph as pg

    return [i for i in page.costs.scatter.plot.items if isinstance(i, pg.ScatterPlotItem)]


def test_cancel_mid_study_keeps_finished_runs_and_stops_the_worker(qtbot, window):
    page = fill(window, "16, 512", "2")
    click(qtbot, page.run_button)
    # The first run (batch 16) finishes; cancel once the second (batch 512) is training.
    qtbot.waitUntil(lambda: page.curves.curve_count >= 2, timeout=STUDY_TIMEOUT_MS)
    assert len(page.controller.results) == 1 and page.controller.results[0]["status"] == "ok"
    click(qtbot, page.cancel_button)
    wait_done(qtbot, page, STOP_TIMEOUT_MS)
    # No further run started; what finished is stored, the table and curves keep it.
    stored = Store().list(group_id=page.controller.plan.study_id)
    assert 1 <= len(stored) <= 2
    # The first run's (batch 16): both may carry the same second as their created_at.
    assert stored.loc[stored["batch_size"] == 16, "status"].tolist() == ["ok"]
    assert cell(page, 0, "Batch") == "16" and cell(page, 0, "Reached") == "1/1"
    assert page.curves.curve_count == 2
    assert page.message_bar.text.text().startswith("Study cancelled after")
    finished = int((stored["status"] == "ok").sum())  # the second may have ended first
    assert f"{finished} finished run(s) kept" in page.message_bar.text.text()
    assert page.run_button.isEnabled() and window.panel.run_button.isEnabled()
    # tests/gui/conftest.py and tests/conftest.py fail this test if a thread or worker is left


def test_closing_the_window_mid_study_stops_and_reaps_the_worker(qtbot, window):
    page = fill(window, "64", "1", target_percent="99", max_iterations="100000")
    click(qtbot, page.run_button)
    qtbot.waitUntil(lambda: page.curves.curve_count == 1, timeout=STUDY_TIMEOUT_MS)
    window.close()  # shutdown(): stops the study and waits for it
    assert not page.controller.job.isRunning()


def test_a_target_never_reached_says_so_in_a_sentence(qtbot, window):
    page = fill(window, "64", "1", target_percent="100", max_iterations="50")
    click(qtbot, page.run_button)
    wait_done(qtbot, page)
    text = page.message_bar.text.text()
    assert text.startswith("No run managed to reach 100.0% within 50 iterations")
    assert "Lower the target, or raise the limits" in text
    assert cell(page, 0, "Reached") == "0/1" and cell(page, 0, "Never reached") == "1"
    assert cell(page, 0, "Cost to accuracy") == "n/a"
    assert not _bars(page)


def test_a_missing_cifar_folder_is_named_and_nothing_runs(qtbot, window, tmp_path):
    page = fill(window, "64", "1")
    empty = tmp_path / "cifar"
    empty.mkdir()
    page.form.set_folder(str(empty))
    error = page.form._errors["folder"]
    assert error.isVisibleTo(page) and "no CIFAR-10 binary files" in error.text()
    assert "data_batch_1.bin" in error.text()
    assert not page.run_button.isEnabled()
    assert page.start() is False and not page.running
    assert page.message_bar.level == "error" and "marked in red" in page.message_bar.text.text()
    page.form.set_folder(str(tmp_path / "nowhere"))
    assert "nor an existing folder" in error.text()
    page.form.dataset.setCurrentIndex(0)  # back to the built-in set: all is well
    assert not error.isVisibleTo(page) and page.run_button.isEnabled()


@pytest.mark.parametrize(
    ("field", "text", "reason"),
    [
        ("eval_every", "ten", "'ten' is not a whole number; give one such as 50"),
        ("target_percent", "150", "150 is out of range (allowed above 0 and up to 100)"),
        ("repeats", "0", "out of range"),
        ("batch_sizes", "64, x", "give whole numbers"),
        ("batch_sizes", "64, 64", "a batch size is given twice"),
        ("batch_sizes", "20000", "larger than the 10,000 training images"),
    ],
)
def test_bad_numbers_are_named_beside_their_field(qtbot, window, field, text, reason):
    page = fill(window, "64", "1")
    edit = page.form.batch_sizes if field == "batch_sizes" else page.form.numbers[field]
    edit.setText(text)
    assert reason in page.form._errors[field].text()
    assert not page.run_button.isEnabled()
    assert edit.property("invalid") and edit.styleSheet()  # the field itself is marked


def test_a_model_that_does_not_take_the_images_points_to_the_panel(qtbot, window):
    page = fill(window, "64", "1")
    window.panel.model.setCurrentIndex(window.panel.model.findData("resnet50"))
    text = page.form.other_error.text()
    assert text.startswith("model (on the left): resnet50 does not take 32x32x3 images")
    assert "tiny-mlp" in text and not page.run_button.isEnabled()


def test_downloading_when_offline_says_what_to_do(qtbot, window, tmp_path):
    page = accuracy_page(window)
    # Nothing listens on the discard port: the same error as a machine without a network.
    page.folders.download_to(tmp_path / "data", url="http://127.0.0.1:9/cifar-10-binary.tar.gz")
    qtbot.waitUntil(lambda: not page.download.running, timeout=STOP_TIMEOUT_MS)
    text = page.message_bar.text.text()
    assert text.startswith("CIFAR-10 was not downloaded: cannot download")
    assert "This machine looks offline" in text and "patterns10" in text
    assert list((tmp_path / "data").iterdir()) == []  # no partial archive left
    assert page.form.dataset_spec == "patterns10"


def _small_cifar_archive(tmp_path):
    """A CIFAR-10 binary archive as the official one is laid out, 3 images a batch file."""
    import hashlib
    import tarfile

    import numpy as np

    from engine.workloads.data import cifar10

    folder = tmp_path / "src" / cifar10.SUBFOLDER
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for name in (*cifar10.TRAIN_FILES, cifar10.TEST_FILE):
        images = rng.integers(0, 256, (3, 32, 32, 3), dtype=np.uint8)
        cifar10.write_batch(folder / name, images, np.array([0, 1, 2]))
    (folder / "batches.meta.txt").write_text("airplane\n", "utf-8")
    archive = tmp_path / "cifar-10-binary.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=cifar10.SUBFOLDER)
    return archive, hashlib.md5(archive.read_bytes(), usedforsecurity=False).hexdigest()


def test_a_downloaded_folder_becomes_the_data_set_and_its_size_is_checked(qtbot, window, tmp_path):
    page = fill(window, "64", "1")
    archive, md5 = _small_cifar_archive(tmp_path)
    page.folders.download_to(tmp_path / "data", url=archive.as_uri(), md5=md5)
    qtbot.waitUntil(lambda: not page.download.running, timeout=STOP_TIMEOUT_MS)
    folder = tmp_path / "data" / "cifar-10-batches-bin"
    assert page.message_bar.text.text() == f"CIFAR-10 is ready in {folder}."
    assert page.form.dataset_spec == str(folder)
    assert page.form.dataset_info.text().startswith("15 training and 3 held-out images")
    # Batch 64 is more than the 15 training images this folder holds: said beside the field.
    assert "64 is larger than the 15 training images" in page.form._errors["batch_sizes"].text()
    assert not page.run_button.isEnabled()
    page.form.batch_sizes.setText("4")
    assert page.run_button.isEnabled()


def test_the_charts_follow_the_theme(qtbot, window):
    from gui.common.theme import DARK_PLOTS, LIGHT_PLOTS

    page = accuracy_page(window)
    window.tabs.setCurrentIndex(0)  # changed from the Run tab: the hidden page follows too
    window.set_theme("dark")
    qtbot.waitUntil(lambda: page.curves.colors == DARK_PLOTS)
    assert page.costs.colors == DARK_PLOTS
    window.set_theme("light")
    qtbot.waitUntil(lambda: page.costs.colors == LIGHT_PLOTS)


def test_the_tab_leaves_pandas_until_the_window_has_painted():
    # The store's pandas loads on a helper thread after the first paint (gui/common/lazy_store.py);
    # the tab's modules must not pull it in at import (the study, the comparison and the
    # table import it when they run).
    import subprocess
    import sys

    code = (
        "import sys, gui.shell.main_window, gui.pages.accuracy.page, gui.pages.sweep.page\n"
        "print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_study_takes_the_whole_price_with_its_date(qtbot, window):
    # A quote of your own with its day: the study's runs are priced at it, dated as quoted
    # (the study once dropped the date, pricing every run "as of" the day it ran).
    quote = dataclasses.replace(
        next(i for i in catalog.load().instances if i.cloud == "aws"),
        price_date="2026-11-02",
    )
    page = fill(window, "16", "1")
    window.panel.price.set_instance(quote)
    plan = page.validate()
    assert plan is not None
    base = plan.base
    assert (base.usd_per_hour, base.price_as_of) == (quote.usd_per_hour, "2026-11-02")
    assert base.price is not None and base.price.source.startswith("aws")
    assert all(c.price == base.price for c in plan.configs())
