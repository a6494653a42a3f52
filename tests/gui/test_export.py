"""Chart and table exports produce files that other tools read back."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pandas as pd
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from engine.core.events import Failed
from engine.measure.result import failed_result
from engine.results.store import Store
from gui.common import export
from tests.gui.helpers import tiny_config
from tests.gui.test_plots import feed_run, step_times

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def drawn(window):
    """The window with a scripted run on its plots."""
    config = tiny_config(usd_per_hour=1.5)
    window.plots.begin_run(config, "tiny-mlp · torch · batch 16 · cpu · $1.50/h (user)")
    feed_run(window.plots, step_times(120))
    window.plots.refresh()
    return window


@pytest.mark.parametrize("name", ["throughput", "memory", "cost"])
def test_png_export_is_an_image_of_the_chart(drawn, tmp_path, name):
    out = drawn.export_chart(name, tmp_path / f"{name}.png")
    image = QImage(str(out))
    assert not image.isNull()
    assert image.width() == export.PNG_WIDTH_PX
    # Not a blank canvas: the curves and text put many colours on it.
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)
    }
    assert len(colours) > 20


def test_svg_export_is_valid_xml_with_the_curve_title_axes_and_caption(drawn, tmp_path):
    out = drawn.export_chart("throughput", tmp_path / "throughput.svg")
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG}svg"
    texts = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    for words in ("Throughput", "samples per second", "time since warm-up began (s)", "$1.50/h"):
        assert words in texts
    # The measured curve: a path through (at least) its 120 points.
    longest = max(len(p.get("d", "").split()) for p in root.iter(f"{SVG}path"))
    assert longest >= 120


def test_csv_export_reads_back_with_pandas(window, tmp_path):
    store = Store()
    for i, kind in enumerate(("oom", "crashed")):
        failure = Failed(run_id=f"20260101T00000{i}-dddddddd", kind=kind, message="m", batch_size=8)
        store.add(failed_result(failure, tiny_config(batch_size=8 * (i + 1)), {}))
    window.results.refresh()
    out = window.export_csv(tmp_path / "results.csv")
    frame = pd.read_csv(out)
    assert len(frame) == 2
    assert set(frame.run_id) == {"20260101T000000-dddddddd", "20260101T000001-dddddddd"}
    assert set(frame.status) == {"oom", "failed"}
    assert sorted(frame.batch_size) == [8, 16]
    assert frame.throughput_samples_per_s.isna().all()


def test_copy_puts_the_chart_on_the_clipboard(drawn):
    QApplication.clipboard().clear()
    drawn.copy_chart("memory")
    assert QApplication.clipboard().image().width() == export.PNG_WIDTH_PX


def test_a_wrong_suffix_or_folder_is_explained(drawn, tmp_path):
    assert drawn.export_chart("cost", tmp_path / "cost.jpg") is None
    assert "save charts as .png or .svg" in drawn.message_bar.text.text()
    assert drawn.export_csv(tmp_path / "missing" / "r.csv") is None
    assert "does not exist" in drawn.message_bar.text.text()


def test_an_export_never_replaces_epochcosts_own_files(drawn, epochcost_home):
    # The app's exports follow the CLI's rules (check_out_path): a chart, a CSV or the report
    # saved over profiles.json or the user's catalog would have lost them.
    profiles = epochcost_home / "profiles.json"
    profiles.write_text('{"schema": 1, "profiles": []}\n')
    catalog = epochcost_home / "catalog" / "instances.csv"
    catalog.parent.mkdir(exist_ok=True)
    catalog.write_text("provider,instance\n")
    assert drawn.export_csv(catalog) is None
    assert "one of epochcost's own files" in drawn.message_bar.text.text()
    assert drawn.export_chart("cost", epochcost_home / "profiles.png") is not None  # a new name
    drawn.report.chosen_results = lambda: [{"run_id": "any"}]  # the path is refused first
    assert drawn.report.export(epochcost_home / "catalog" / "instances.csv") is None
    assert "one of epochcost's own files" in drawn.message_bar.text.text()
    assert catalog.read_text() == "provider,instance\n"
    assert profiles.read_text() == '{"schema": 1, "profiles": []}\n'
