"""The Compare tab: it follows the results table and shows engine.pricing.compare's rows as they
are,
says plainly when there is nothing to compare or a CPU result cannot be projected, and exports
its table and charts."""

from __future__ import annotations

import csv
import html
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from engine.pricing import catalog
from engine.pricing.breakeven import break_even_against
from engine.pricing.compare import CompareOptions, compare
from engine.pricing.compare_rows import measured_elsewhere
from engine.pricing.cost import OwnedHardware
from engine.results import report
from engine.results.store import Store
from gui.pages.compare.model import COLUMNS
from gui.pages.compare.page import NO_SELECTION, OWN_HINT
from tests.engine.price_results import result as gpu_result
from tests.gui.helpers import show_tab


def show(window, result):
    """Store a result, open the Compare tab and select the result in the table below."""
    Store().add(result)
    page = show_tab(window, "Compare")
    window.results.refresh(select=result["run_id"])
    return page


def column(page, header: str) -> list[str]:
    c = [col.header for col in COLUMNS].index(header)
    return [page.model.index(r, c).data() for r in range(page.model.rowCount())]


def engine_rows(result, options=None):
    return compare(result, catalog.load(), options, measured_elsewhere(Store().list(), result))


def test_without_a_selection_the_page_says_what_to_do(window):
    page = show_tab(window, "Compare")
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Compare"
    assert page.heading.text() == NO_SELECTION
    assert page.body is None and not page.inputs.isVisible()  # built when first needed
    assert page.export_chart("compare_bars", Path("x.png")) is None
    assert page.message_bar.text.text() == "Nothing to export: select a result first."


def test_a_cpu_result_is_priced_here_and_where_its_workload_was_measured(window, measured):
    # The same workload measured on a T4 elsewhere and imported: its machines are measured rows.
    t4 = gpu_result(
        run_id="20250101T000000-t4000001",
        model="tiny-mlp",
        batch_size=16,
        device_name="Tesla T4",
        samples_per_s=20_000.0,
    )
    Store().add(t4)
    page = show(window, measured)
    assert page.body.isVisible()
    assert "This result ran on a CPU: its speed cannot be projected to GPUs." in (
        page.heading.text()
    )
    expected = engine_rows(measured).rows
    assert len(expected) > 1 and sum(r.local for r in expected) == 1
    assert column(page, "Machine") == [
        f"this machine ({r.instance_type})" if r.local else r.instance_type for r in expected
    ]
    assert column(page, "$/epoch") == [report.money(r.usd_per_epoch) for r in expected]
    # this machine's row: its measurement's 95% interval; the T4 result stored without one
    assert column(page, "Range") == [
        f"{r.throughput_low:,.1f}–{r.throughput_high:,.1f}" if r.local else "no interval"
        for r in expected
    ]
    assert "g4dn.xlarge" in column(page, "Machine")
    local = next(r for r in expected if r.local)
    assert local.usd_per_hour == 0.9 and local.price_source == "user"
    # what a GPU machine would have to reach to beat this machine's epoch
    assert f"To cost less than {report.money(local.usd_per_epoch)} an epoch" in page.notes.text()


def test_a_gpu_result_shows_the_engines_estimates_filters_and_break_even(qtbot, window):
    result = gpu_result(usd_per_hour=0.25)
    page = show(window, result)
    result = window.panel.priced(result)  # every tab prices at the panel's price ($0.90/h)
    expected = engine_rows(result).rows
    assert column(page, "Machine")[:5] == [
        f"this machine ({r.instance_type})" if r.local else r.instance_type for r in expected[:5]
    ]
    assert column(page, "Samples/s") == [
        ("~" if r.estimated else "") + f"{r.throughput_samples_per_s:,.1f}" for r in expected
    ]
    p3 = next(r for r in expected if r.instance_type == "p3.2xlarge")
    row = column(page, "Machine").index("p3.2xlarge")
    assert column(page, "Range")[row] == f"{p3.throughput_low:,.1f}–{p3.throughput_high:,.1f}"
    assert column(page, "Price date")[row] == p3.price_date
    assert column(page, "Price source")[row] == p3.price_source
    # filters: one cloud, sorted by spot
    page.inputs.cloud.setCurrentText("aws")
    page.inputs.spot.setChecked(True)
    options = CompareOptions(clouds=("aws",), spot=True)
    expected = engine_rows(result, options).rows
    assert set(column(page, "Cloud")) == {"aws", "local"}
    assert column(page, "Spot $/epoch") == [
        "–" if r.usd_per_epoch_spot is None else report.money(r.usd_per_epoch_spot)
        for r in expected
    ]
    # owning the measured machine: its row priced as owned, break-even days and chart
    show_chart(page, page.break_even.name)
    assert page.break_even.hint.toPlainText() == OWN_HINT
    page.inputs.owned["usd_per_kwh"].setText("0.15")
    page.inputs.owned["usd_per_kwh"].editingFinished.emit()
    owned = OwnedHardware(699, 0.15, 220.0)  # launch price; the power measured in the run
    options = CompareOptions(clouds=("aws",), spot=True, owned=owned)
    expected = engine_rows(result, options).rows
    # the engine's days and their range, from both throughputs' ranges (issue 38)
    assert column(page, "Break-even (days)") == [r.break_even_text or "–" for r in expected]
    assert any("(" in r.break_even_text for r in expected)
    page.rent.setCurrentIndex(page.rent.findText("aws p3.2xlarge", Qt.MatchFlag.MatchStartsWith))
    chosen = page.rented_row()
    assert chosen.instance_type == "p3.2xlarge"
    be = break_even_against(
        options, 1000.0, chosen.throughput_samples_per_s, 3.06, chosen.usd_per_hour_spot
    )
    line = next(i for i in page.break_even.plot.items if hasattr(i, "label"))
    assert line.value() == pytest.approx(be.days) == pytest.approx(chosen.break_even_days)
    assert chosen.break_even_text in line.label.toPlainText()
    shaded = next(i for i in page.break_even.plot.items if hasattr(i, "getRegion"))
    low, high = chosen.break_even_days_low, chosen.break_even_days_high
    assert low < chosen.break_even_days < high
    assert shaded.getRegion() == pytest.approx((low, high))
    assert chosen.break_even_text in page.break_even.caption.text
    # a wrong figure is named, and the rest still compares
    page.inputs.owned["purchase_usd"].setText("-5")
    page.inputs.owned["purchase_usd"].editingFinished.emit()
    assert page.inputs.error.text() == "Purchase $: -5 is out of range (allowed 0 or more)"
    assert page.model.rowCount() > 1


def test_a_run_that_failed_has_nothing_to_price(window, measured):
    failed = {**measured, "run_id": "20250101T000000-00m00001", "status": "oom"}
    failed.update(throughput_samples_per_s=None, error={"kind": "oom", "message": "out of memory"})
    page = show_tab(window, "Compare")
    page.set_result(failed)
    assert page.heading.text().startswith("Run 20250101T000000-00m00001 ended oom")
    assert page.body is None or not page.body.isVisible()


def test_the_table_exports_as_csv_and_the_charts_as_png_and_svg(window, tmp_path):
    result = gpu_result(usd_per_hour=0.25)
    page = show(window, result)
    out = page.export_csv(tmp_path / "compare.csv")
    with out.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    expected = engine_rows(result).rows
    assert len(rows) == len(expected)
    assert rows[0]["instance_type"] == expected[0].instance_type
    assert float(rows[0]["usd_per_epoch"]) == pytest.approx(expected[0].usd_per_epoch)
    assert {"price_source", "price_date", "estimated", "throughput_low"} <= set(rows[0])
    assert page.message_bar.text.text() == f"Saved {out}"
    for name, title in (
        ("compare_bars", "Cost per epoch by machine"),
        ("compare_scatter", "Cost against epoch time"),
        ("compare_break_even", "Owning against renting"),
    ):
        png = page.export_chart(name, tmp_path / f"{name}.png")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        svg = page.export_chart(name, tmp_path / f"{name}.svg")
        text = "".join(ET.parse(svg).getroot().itertext())
        assert title in text and "GeForce GTX 1080 Ti" in text  # caption: what was measured
    assert page.export_chart("compare_bars", tmp_path / "bars.gif") is None
    assert "save charts as .png or .svg" in page.message_bar.text.text()


def test_the_bars_carry_whiskers_for_estimates_and_for_the_measurement_itself(qtbot):
    import pyqtgraph as pg

    from gui.common.theme import LIGHT_PLOTS
    from gui.pages.compare.charts import MAX_BARS, CompareChart, draw_bars, priced
    from tests.engine.price_results import result

    measured = result(samples_per_s=1000.0, usd_per_hour=0.12)  # a cheap home card: in view
    measured["throughput_ci95"] = [950.0, 1040.0]
    rows = compare(measured, catalog.load()).rows
    chart = CompareChart("compare_bars", "Cost per epoch", "", "")
    qtbot.addWidget(chart)
    draw_bars(chart, rows, False, LIGHT_PLOTS)
    whiskers = [i.opts for i in chart.plot.items if isinstance(i, pg.ErrorBarItem)]
    ends = {  # bar -> (left end, right end) of its whisker
        int(y): (x - left, x + right)
        for w in whiskers
        for y, x, left, right in zip(w["y"], w["x"], w["left"], w["right"], strict=True)
    }
    shown = priced(rows, False)[:MAX_BARS]
    ranged = [y for y, (r, _) in enumerate(shown) if r.usd_per_epoch_low is not None]
    assert sorted(ends) == ranged
    local = next(y for y, (r, _) in enumerate(shown) if r.local)
    row = shown[local][0]
    assert ends[local] == pytest.approx((row.usd_per_epoch_low, row.usd_per_epoch_high))
    assert row.usd_per_epoch_low < row.usd_per_epoch < row.usd_per_epoch_high


def test_gpus_to_buy_sit_beside_the_cloud_rows_with_their_break_even(window):
    page = show(window, gpu_result())
    page.inputs.buy.setChecked(True)
    assert page.inputs.error.text() == "Tariff $/kWh: give it to price GPUs to buy"
    page.inputs.owned["usd_per_kwh"].setText("0.30")
    page.inputs.owned["usd_per_kwh"].editingFinished.emit()
    assert not page.inputs.error.isVisibleTo(page)
    machines = column(page, "Machine")
    row = machines.index("buy GeForce RTX 4090")
    assert column(page, "Cloud")[row] == "buy"
    assert column(page, "Price date")[row] == "launch 2022-09-20"
    assert "launch price of GeForce RTX 4090" in column(page, "Price source")[row]
    days = column(page, "Break-even (days)")[row]
    assert days not in ("", "–") and float(days.split(" ")[0].replace(",", "")) > 0
    assert "(" in days  # with its range: the GPU's projected speed is a range
    header = [c.header for c in COLUMNS].index("Break-even (days)")
    assert not page.view.isColumnHidden(header)
    assert sum(m.startswith("buy ") for m in machines) >= 5


def test_a_stored_scaling_measurement_prices_the_multi_gpu_machines(window):
    from tests.engine.test_scaling import H100, _distributed

    Store().add(_distributed("20260101T000000-wide0001", 3400.0, 4))
    page = show(window, gpu_result(run_id="20260101T000000-single01", device_name=H100))
    page.inputs.machine_size.setCurrentText("up to 8 GPUs")
    row = column(page, "Machine").index("a3-highgpu-4g")
    assert column(page, "Samples/s")[row] == "3,400.0"  # measured here: 4 x 0.85 x 1000
    assert "85% of perfect" in page.model.tooltip(row)


def test_a_wrong_use_figure_with_gpus_to_buy_is_named_not_raised(window):
    page = show(window, gpu_result())
    page.inputs.buy.setChecked(True)
    page.inputs.owned["usd_per_kwh"].setText("0.30")
    page.inputs.owned["lifetime_years"].setText("0")
    page.inputs.owned["lifetime_years"].editingFinished.emit()
    assert page.inputs.error.text().startswith("Lifetime y:")
    assert page.model.rowCount() > 1 and "buy GeForce RTX 4090" not in column(page, "Machine")


def cpu_result():
    cpu = gpu_result(
        run_id="20260101T000000-cpu00001",
        device="cpu",
        device_name=None,
        model="tiny-mlp",
        batch_size=16,
        mean_power_w=None,
        usd_per_hour=0.9,
    )
    cpu["environment"]["cpu"] = "Some CPU"
    return cpu


def show_chart(page, name: str) -> None:
    """Chart `name`'s tab shown, as a click on it does (a hidden chart waits to be drawn)."""
    page.chart_tabs.setCurrentIndex(list(page.charts).index(name))


def test_a_hidden_chart_is_drawn_when_its_tab_shows_or_it_is_exported(window, tmp_path):
    page = show(window, cpu_result())
    scatter, break_even = page.scatter, page.break_even
    assert page.chart_name() == page.bars.name and page.bars.caption.text
    assert not scatter.caption.text and not break_even.caption.text  # not drawn yet
    show_chart(page, scatter.name)
    assert scatter.caption.text == page.bars.caption.text  # the same comparison
    written = page.export_chart(break_even.name, tmp_path / "be.png")
    assert written is not None and written.stat().st_size > 0 and break_even.caption.text
    # a new price draws the chart in view at once, the others again when shown
    window.panel.price.rented_button.setChecked(True)
    window.panel.price.edit.setText("2.5")
    assert page._undrawn == {page.bars.name, break_even.name}  # the scatter's tab shows


def test_a_cpu_result_at_an_owned_gpus_price_says_what_it_is(window):
    price = window.panel.price
    price.owned_button.setChecked(True)
    price.owned.hardware.setCurrentIndex(price.owned.hardware.findData("gpu:GeForce GTX 1080 Ti"))
    price.owned.edits["usd_per_kwh"].setText("0.3")
    page = show(window, cpu_result())
    gpu = "GeForce GTX 1080 Ti"
    said = f"the CPU's speed at the {gpu}'s price, not the {gpu}'s speed"
    assert said in html.unescape(page.heading.text())
    for name, chart in page.charts.items():
        show_chart(page, name)
        assert said in html.unescape(chart.caption.text).replace("<br>", " ")
    # GPUs to buy: what it needs, not a tariff it already has
    page.inputs.buy.setChecked(True)
    assert "this result ran on the CPU" in page.message_bar.text.text()
    assert "measure on the GPU" in page.message_bar.text.text()
    assert not page.inputs.error.isVisible()
    # the break-even names the real reason: no filter narrows anything here
    page.chart_tabs.setCurrentIndex(2)
    hint = page.break_even.hint.toPlainText()
    assert "ran on the CPU" in hint and "widen" not in hint
    page.inputs.gpu.setText("v100")
    page.inputs.gpu.editingFinished.emit()
    assert page.break_even.hint.toPlainText() == "No machine to rent with GPU 'v100': widen them."
    # a rented price is the CPU's own: nothing to say
    price.rented_button.setChecked(True)
    assert "CPU's speed" not in page.heading.text()
