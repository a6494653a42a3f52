"""The Run tab's labels never overlap (issue 38): on every chart, in both price modes, for an
image-folder run (the input wait's result on the throughput chart) with a past run overlaid at
the run's own levels, at the size the charts have in a 1280x860 window. Every label's box is
read in scene coordinates (results, window marks, the peak, the input wait, the overlay, the
device's total): no two intersect, none crosses a level line (the dashed results, the device's
total, the overlay's line), the peak's label crosses neither memory curve (the dashed device
use just above it), and each lies whole inside its plot. Boxes, not pixels: fonts differ
between machines, the rule does not."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, QRectF

from gui.common.chart import Chart
from tests.gui import run_scenario as scenario


@pytest.fixture
def plots(qtbot):
    return scenario.shown_plots(qtbot)


def level_lines(chart: Chart) -> list[tuple[str, float]]:
    """The shown horizontal lines of every view of the chart, as (label, scene y)."""
    out = []
    for vb in chart.view_boxes():
        (x0, _), (y0, y1) = vb.viewRange()
        for item in vb.addedItems:
            if not isinstance(item, pg.InfiniteLine) or item.angle % 180 != 0:
                continue
            if item.isVisible() and y0 <= item.value() <= y1:
                y = vb.mapViewToScene(QPointF(x0, item.value())).y()
                out.append((item.label.format if item.label else "", y))
    return out


def legend_texts(chart: Chart) -> list[str]:
    """The chart's legend entries, as plain text."""
    return [re.sub(r"<[^>]+>", " ", label.text) for _, label in chart.legend.items]


def crosses_curve(box: QRectF, curve: pg.PlotDataItem, vb: pg.ViewBox) -> bool:
    """Whether the curve (a line through its points, time along x) passes through the box."""
    x, y = curve.xData, curve.yData
    if x is None or not len(x):
        return False
    points = [vb.mapViewToScene(QPointF(a, b)) for a, b in zip(x, y, strict=True)]
    sx = np.array([p.x() for p in points])
    sy = np.array([p.y() for p in points])
    inside = (sx >= box.left()) & (sx <= box.right())
    ends = np.interp([box.left(), box.right()], sx, sy, left=np.nan, right=np.nan)
    ys = np.concatenate([sy[inside], ends[np.isfinite(ends)]])
    return bool(len(ys)) and ys.min() <= box.bottom() and ys.max() >= box.top()


def assert_clear(chart: Chart) -> list[str]:
    """No label over another, over a level line, outside its plot; the texts shown."""
    chart.labels.separate()
    boxes = chart.labels.boxes()
    for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
        assert not box_a.intersects(box_b), f"{chart.name}: {a!r} over {b!r}"
    view = chart.plot.vb.sceneBoundingRect()
    for text, box in boxes:
        assert view.contains(box), f"{chart.name}: {text!r} cut by the plot's edge"
        for line, y in level_lines(chart):
            assert not box.top() < y < box.bottom(), f"{chart.name}: {text!r} across {line!r}"
    return [text for text, _ in boxes]


@pytest.mark.parametrize("usd_per_hour", [0.70, None], ids=["priced", "no price"])
def test_no_label_overlaps_another_or_crosses_a_line(plots, tmp_path, usd_per_hour):
    scenario.finished(plots, tmp_path, usd_per_hour)
    texts = {name: assert_clear(chart) for name, chart in plots.charts.items()}
    print(texts)
    # Every label is there (none dropped to keep the others apart).
    overlay = "tiny-mlp b64"
    throughput = texts["throughput"]
    assert {"window 1", "2", "3", "done"} <= set(throughput)
    assert any(t.startswith(overlay) for t in throughput)
    # The results are named in the legends, off the data (KeyedLevel), not on the plots.
    named = {name: legend_texts(chart) for name, chart in plots.charts.items()}
    assert any(t.startswith("result") and "samples/s" in t for t in named["throughput"])
    assert any(t.startswith("input wait: result 4.2%") for t in named["throughput"])
    assert not any(t.startswith("result") for texts_ in texts.values() for t in texts_)
    memory = texts["memory"]
    assert any(t.startswith("peak 913.62 MiB") for t in memory)
    assert any(t.startswith("device total") for t in memory)
    assert any(t.startswith(overlay) for t in memory)
    for name in ("cost", "flops"):
        assert any(t.startswith("result") for t in named[name]), name
        assert any(t.startswith(overlay) for t in texts[name]), name
    # The peak's label leaves both memory curves readable (it was drawn across the dashed
    # device-use line just above the point).
    peak = plots.peak.label
    box = peak.sceneBoundingRect()
    for curve in (plots._process, plots._device):
        assert not crosses_curve(box, curve, plots.memory.plot.vb), curve.name()


def test_labels_stay_clear_while_the_run_is_live_and_after_a_new_selection(plots, tmp_path):
    plots.begin_run(scenario.config(tmp_path, 0.70), "tiny-mlp · cpu")
    scenario.feed(plots)
    for chart in plots.charts.values():
        assert_clear(chart)
    own = scenario.result(plots, 0.70)
    plots.end_run(own)
    plots.refresh()  # the end's turns drawn now
    plots.set_overlays([scenario.past_run(own, 0.5)])  # the overlay lower, another layout
    for chart in plots.charts.values():
        assert_clear(chart)
