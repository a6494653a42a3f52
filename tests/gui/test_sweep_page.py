"""The Sweep tab with real worker processes (tiny model, CPU): points appear as trials end, the
verdicts are marked, exports are written, cancel keeps what finished, a sweep and a single run
never measure at once, and bad input is said in words. Each waits on signals, never on sleeps."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from engine.core.events import Step
from engine.results.store import Store
from engine.sweep.events import TrialProgress, TrialStarted
from gui.common import export, theme
from gui.pages.sweep.page import SweepPage
from tests.engine.helpers import started_here
from tests.gui.helpers import LONG_FORM, TINY_FORM, fill_form, show_tab

SWEEP_TIMEOUT_MS = 240_000  # a fresh worker per batch size; torch imports slowly on a busy box
# tiny-mlp needs ~12.9 KiB per sample on top of ~11 MiB (tests/engine/test_sweep.py): under
# 48 MiB batches 16 and 32 train and 8192 (~100 MiB) is out of memory.
CAP_MB = "48"
SVG = "{http://www.w3.org/2000/svg}"


def sweep_page(window) -> SweepPage:
    page = show_tab(window, "Sweep")
    assert isinstance(page, SweepPage)
    return page


def set_inputs(page: SweepPage, **texts: str) -> None:
    for name, text in texts.items():
        page.form.edits[name].setText(text)


def click(qtbot, button) -> None:
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def points_on_chart(page: SweepPage) -> list[int]:
    x, _ = page.chart.rate.getData()
    return [] if x is None else [round(2**v) for v in x]


def test_a_sweep_draws_each_point_as_it_lands_marks_the_cheapest_and_exports(
    qtbot, window, tmp_path
):
    fill_form(window.panel, **TINY_FORM)  # with the panel's price, $0.90/h
    page = sweep_page(window)
    set_inputs(page, batch_sizes="16,32,8192", memory_limit_mb=CAP_MB)
    with qtbot.waitSignal(
        page.running_changed, timeout=SWEEP_TIMEOUT_MS, check_params_cb=lambda r: not r
    ):
        click(qtbot, page.start_button)
        assert page.running and page.cancel_button.isEnabled()
        assert not window.panel.run_button.isEnabled()  # no single run during the sweep
        # The first point is drawn while the next trial runs, and the trial count says so.
        qtbot.waitUntil(lambda: points_on_chart(page) == [16], timeout=SWEEP_TIMEOUT_MS)
        assert page.running and "1 trial done" in page.status.text()
        assert window.results.model.rowCount() == 1  # stored and listed as it landed

    summary = page.controller.summary
    assert summary is not None and summary.status == "completed"
    assert points_on_chart(page) == [16, 32]
    no_fit, _ = page.chart.too_big.getData()
    assert [round(2**v) for v in no_fit] == [8192]  # drawn as "does not fit"
    cheapest = summary.cheapest_batch
    assert cheapest in (16, 32)
    assert page.chart.cheapest_mark.isVisible()
    assert page.chart.cheapest_mark.value() == math.log2(cheapest)
    assert f"<b>Cheapest</b> {cheapest} ($" in page.verdicts.text()
    table = [page.model.index(r, 2).data() for r in range(page.model.rowCount())]
    assert table == ["fits", "fits", "does not fit"]
    assert page.status.text().startswith("Sweep completed: 3 trials in")
    assert window.panel.run_button.isEnabled()
    # Stored as one group (the out-of-memory point too); the results table shows all three.
    stored = Store().list(group_id=summary.group_id)
    assert sorted(stored["batch_size"]) == [16, 32, 8192]
    assert window.results.model.rowCount() == 3

    png = page.export_chart("sweep", tmp_path / "sweep.png")
    assert png is not None and QImage(str(png)).width() == export.PNG_WIDTH_PX
    svg = page.export_chart("sweep", tmp_path / "sweep.svg")
    assert svg is not None
    texts = " ".join("".join(t.itertext()) for t in ET.parse(svg).getroot().iter(f"{SVG}text"))
    for words in ("Batch-size sweep", "throughput (samples/s)", "USD per epoch", "$0.90/h"):
        assert words in texts
    out = page.export_csv(tmp_path / "points.csv")
    assert out is not None
    rows = pd.read_csv(out)
    assert list(rows["batch_size"]) == [16, 32, 8192]
    assert list(rows["status"]) == ["ok", "ok", "oom"]
    assert "cheapest" in rows.set_index("batch_size").loc[cheapest, "verdict"]
    assert rows["usd_per_epoch"].iloc[:2].gt(0).all()


def test_cancel_mid_sweep_keeps_the_finished_points_and_leaves_nothing_running(qtbot, window):
    # Trials long enough that the second is still measuring when a step of it reaches the page
    # (at most every STEP_EVERY_S): a fast core ran TINY_FORM's whole sweep in 0.5 s.
    fill_form(window.panel, **{**TINY_FORM, "min_steps": "1000", "max_steps": "2000"})
    page = sweep_page(window)
    set_inputs(page, batch_sizes="16,32,64")
    click(qtbot, page.start_button)
    assert page.controller.job is not None
    with qtbot.waitSignal(
        page.controller.job.item,
        timeout=SWEEP_TIMEOUT_MS,
        check_params_cb=lambda e: (
            isinstance(e, TrialProgress) and e.index == 2 and isinstance(e.event, Step)
        ),
    ):
        pass
    # Run > Start stays off while the sweep measures; Run > Cancel (Esc) stops the sweep.
    assert not window.menu_actions.run.isEnabled() and window.menu_actions.cancel.isEnabled()
    with qtbot.waitSignal(page.running_changed, timeout=15_000, check_params_cb=lambda r: not r):
        window.menu_actions.cancel.trigger()

    summary = page.controller.summary
    assert summary is not None and summary.status == "cancelled"
    assert window.menu_actions.run.isEnabled() and not window.menu_actions.cancel.isEnabled()
    assert [p.batch_size for p in summary.points] == [16]
    assert points_on_chart(page) == [16]
    assert page.model.rowCount() == 1
    assert page.message_bar.level == "info"
    assert page.message_bar.text.text() == "Sweep cancelled; kept 1 finished point."
    assert list(Store().list(group_id=summary.group_id)["batch_size"]) == [16]
    assert started_here() == []
    assert page.start_button.isEnabled() and window.panel.run_button.isEnabled()


def test_bad_batch_sizes_say_what_is_wrong_and_start_nothing(qtbot, window):
    page = sweep_page(window)
    error = page.form._error_labels["batch_sizes"]
    for text, words in (
        ("16,abc", "'abc' is not a whole number"),
        ("64:16", "'64:16': the range ends below its start"),
        ("0,16", "0 is out of range (allowed 1 to 1048576)"),
    ):
        set_inputs(page, batch_sizes=text)
        assert not error.isHidden() and error.text() == words
        assert page.form.edits["batch_sizes"].property("invalid")
        assert not page.start_button.isEnabled()
        assert not page.start()
        assert page.message_bar.text.text() == f"Batch sizes: {words}"
        assert page.controller.job is None
    set_inputs(page, batch_sizes="16:64")  # a doubling range is fine
    assert error.isHidden() and page.start_button.isEnabled()
    assert not page.form.edits["batch_sizes"].property("invalid")
    assert page.form.inputs is not None and page.form.inputs.plan.batch_sizes == (16, 32, 64)
    page.form.max_fit.setChecked(True)
    set_inputs(page, start="64", max_batch="32", margin="95")
    assert page.form.errors == {"margin": "95 is out of range (allowed 0 to 90)"}
    assert page.form.edits["margin"].property("invalid")
    set_inputs(page, margin="10")
    assert page.form.errors == {"max_batch": "32 is below the start (64)"}


def test_a_single_run_and_a_sweep_never_measure_at_once(qtbot, window):
    fill_form(window.panel, **LONG_FORM)
    page = sweep_page(window)
    assert page.start_button.isEnabled()
    click(qtbot, window.panel.run_button)
    assert window.controller.running
    assert not page.start_button.isEnabled()
    assert not page.start()
    assert page.message_bar.text.text().startswith("A run is going on the Run tab")
    with qtbot.waitSignal(
        window.controller.running_changed, timeout=15_000, check_params_cb=lambda r: not r
    ):
        window.controller.cancel()
    assert page.start_button.isEnabled()


def test_closing_the_window_mid_sweep_stops_the_sweep_and_its_worker(qtbot, window):
    fill_form(window.panel, **LONG_FORM)
    page = sweep_page(window)
    set_inputs(page, batch_sizes="16,32")
    click(qtbot, page.start_button)
    assert page.controller.job is not None
    with qtbot.waitSignal(
        page.controller.job.item,
        timeout=SWEEP_TIMEOUT_MS,
        check_params_cb=lambda e: isinstance(e, TrialStarted),
    ):
        pass
    window.close()
    assert page.controller.job is None and not page.running
    assert started_here() == []


def test_the_chart_follows_the_theme(qtbot, window):
    page = sweep_page(window)
    window.set_theme("dark")
    qtbot.waitUntil(lambda: page.chart.colors is theme.DARK_PLOTS)
    assert page.chart.backgroundBrush().color().name() == theme.DARK_PLOTS.background
    window.set_theme("light")
    qtbot.waitUntil(lambda: page.chart.colors is theme.LIGHT_PLOTS)
