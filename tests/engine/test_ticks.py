"""Tick labels, one form along a level of ticks, for the app's chart axes and the HTML
report's charts alike (engine/core/ticks.py)."""

from __future__ import annotations

from engine.core.ticks import tick_text
from engine.results.svg_charts import Bar, bar_chart, line_chart


def test_tick_labels_share_one_form_along_a_level():
    # pyqtgraph wrote these "5e-05", "0.0001", "0.00015": two forms on one axis.
    assert tick_text([5e-5, 1e-4, 1.5e-4, 2e-4], 5e-5) == [
        "0.00005",
        "0.00010",
        "0.00015",
        "0.00020",
    ]
    assert tick_text([0.0, 0.25, 0.5, 0.75], 0.25) == ["0.00", "0.25", "0.50", "0.75"]
    # Float noise of a tick computed as a sum, and a zero that came out as -1e-17.
    assert tick_text([0.1, 0.2, 0.30000000000000004], 0.1) == ["0.1", "0.2", "0.3"]
    assert tick_text([-1e-17, 0.5, 1.0], 0.5) == ["0.0", "0.5", "1.0"]
    # Thousands separated once a label reaches 1,000, as the tables write them.
    assert tick_text([20000.0, 40000.0, 100000.0], 20000) == ["20,000", "40,000", "100,000"]
    assert tick_text([-5000.0, 0.0, 5000.0, 10000.0], 5000) == ["-5,000", "0", "5,000", "10,000"]
    assert tick_text([500.0, 1000.0, 1500.0], 500) == ["500", "1,000", "1,500"]
    assert tick_text([0.0, 250.0, 500.0], 250) == ["0", "250", "500"]
    # From a million (pyqtgraph: "800000" beside "1e+06"), or under a millionth: scientific,
    # with the digits the spacing needs.
    assert tick_text([8e5, 1e6, 1.2e6], 2e5) == ["8.0e+05", "1.0e+06", "1.2e+06"]
    assert tick_text([0.0, 2.5e-7, 5e-7], 2.5e-7) == ["0", "2.5e-07", "5.0e-07"]
    assert tick_text([2e19, 4e19], 2e19) == ["2e+19", "4e+19"]
    assert tick_text([1.5], 0.0) == ["1.5"]  # no spacing to go by
    assert tick_text([], 1.0) == []


def test_the_reports_charts_write_their_ticks_as_the_app_does():
    costs = [Bar("this machine", 0.0002, 0.00018, 0.00022, highlight=True), Bar("a", 0.00015)]
    svg = bar_chart("Cost per epoch", costs, "USD per epoch")
    ticks = [text.rsplit(">", 1)[1] for text in svg.split("</text>") if 'font-size="10"' in text]
    # The report wrote these "0", "5e-05", "0.0001", "0.00015", ...
    assert ticks == ["0.00000", "0.00005", "0.00010", "0.00015", "0.00020", "0.00025"]
    lines = line_chart("Throughput", [("run", [(0.0, 0.0), (5.0, 46280.0)])], "s", "samples/s")
    y = [text.rsplit(">", 1)[1] for text in lines.split("</text>") if '"end"' in text]
    assert y == ["0", "10,000", "20,000", "30,000", "40,000", "50,000"]
