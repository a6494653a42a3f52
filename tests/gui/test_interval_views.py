"""Issue 38, "Intervals as they are": one stored result, every view of it (the Run tab's status
line and its result level, Past runs and its CSV, `results list`, `results show`, the report,
Compare) writes its 95% interval the same way, as it is, and marks a result that is not precise
enough to price with its cause; the live band says what it is."""

from __future__ import annotations

from html.parser import HTMLParser

from PySide6.QtCore import Qt

from engine.cli import main
from engine.core.precision import MARK
from engine.pricing import catalog
from engine.pricing.compare import compare
from engine.pricing.compare_rows import CompareOptions
from engine.results import html_report
from engine.results.store import Store
from gui.common.results_model import COLUMNS, ResultsTableModel
from gui.common.theme import LIGHT_PLOTS
from gui.pages.run.plots import LivePlots
from gui.pages.run.status import finished_text
from tests.engine.price_results import result as gpu_result
from tests.engine.test_precision import busy_result
from tests.engine.test_store import _result

SIDES = "-88% / +758%"  # 1.5 and 109.0 around 12.7
ENDS = "95% interval 1.5 to 109.0 (-88% / +758%)"
CAUSE = "other processes used 48% of the CPU while it was measured"


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _stored() -> tuple[dict, dict]:
    """The busy run (not precise enough) and a steady one (±2.1%), stored."""
    busy = busy_result()
    steady = _result("20261122T020000-00005ead", 100.0)
    steady.update(throughput_ci95=[97.9, 102.1], usd_per_epoch_ci95=[0.122, 0.128])
    store = Store()
    store.add(busy)
    store.add(steady)
    return busy, steady


def test_every_view_writes_the_interval_as_it_is_and_marks_the_imprecise_run(qtbot, capsys):
    busy, steady = _stored()
    # The Run tab's status line.
    line = finished_text(busy)
    assert f"12.7 samples/s ({ENDS}, median of 3 windows)" in line
    assert MARK in line and CAUSE in line and "±" not in line.split(MARK)[0]
    assert "(±2.1%" in finished_text(steady) and MARK not in finished_text(steady)
    # Past runs: the interval column, the Status, the tooltip with the cause; and its CSV.
    model = ResultsTableModel()
    model.set_frame(Store().list())
    headers = [c.header for c in COLUMNS]
    spread, status = headers.index("95% interval"), headers.index("Status")
    row = model.row_of(busy["run_id"])
    assert row is not None
    shown = model.data(model.index(row, spread), Qt.ItemDataRole.DisplayRole)
    assert shown == SIDES
    assert MARK in model.data(model.index(row, status), Qt.ItemDataRole.DisplayRole)
    assert CAUSE in model.data(model.index(row, 0), Qt.ItemDataRole.ToolTipRole)
    steady_row = model.row_of(steady["run_id"])
    assert model.data(model.index(steady_row, spread), Qt.ItemDataRole.DisplayRole) == "±2.1%"
    csv = model.frame.to_csv(index=False)
    assert SIDES in csv and MARK in csv
    # `epochcost results list` and `results show`.
    assert main(["results", "list"]) == 0
    listing = capsys.readouterr().out
    busy_line = next(x for x in listing.splitlines() if x.startswith(busy["run_id"]))
    assert f"{SIDES} *" in busy_line and f"* {MARK}" in listing
    assert "±2.1%" in next(x for x in listing.splitlines() if x.startswith(steady["run_id"]))
    assert main(["results", "show", busy["run_id"]]) == 0
    shown_text = capsys.readouterr().out
    assert ENDS in shown_text and MARK in shown_text and CAUSE in shown_text
    assert "± " not in shown_text
    # The report.
    cat = catalog.load()
    runs = html_report.comparisons([busy, steady], cat, CompareOptions())
    parsed = _Text()
    parsed.feed(html_report.render(runs, CompareOptions()))
    page = " ".join(parsed.parts)
    assert ENDS in page and MARK in page and CAUSE in page
    assert "left out of which run is cheapest" in page


def test_compare_says_its_cheapest_rests_on_an_imprecise_run():
    cat = catalog.load()
    rough = gpu_result(samples_per_s=12.7, usd_per_hour=0.5)
    rough.update(throughput_ci95=[1.5, 109.0], throughput_repeats=[5.0, 12.7, 109.0])
    said = compare(rough, cat, CompareOptions()).notes[0]
    assert MARK in said and "which machine is cheapest is not known" in said
    assert "windows disagree" in said
    steady = gpu_result(samples_per_s=100.0, usd_per_hour=0.5)
    steady.update(throughput_ci95=[97.9, 102.1])
    assert not any(MARK in n for n in compare(steady, cat, CompareOptions()).notes)


def test_the_live_band_and_the_result_level_say_which_interval_they_are(qtbot):
    plots = LivePlots(LIGHT_PLOTS)
    qtbot.addWidget(plots)
    legend = [label.text for _, label in plots.cost.legend.items]
    assert "95% band: window's steps" in legend
    busy = busy_result()
    plots.end_run(busy)  # no run drawn: its end at once
    assert f"95% interval {SIDES}" in plots.result_levels.rate.text
    assert "95% interval -88% / +747%" in plots.result_levels.cost.text  # turned over
