"""Every chart's grid: opaque lines in the colour the see-through grid had over the chart's
background, drawn under the data (a curve over a grid line keeps its colour), in each theme;
and its tick labels, engine/core/ticks.py's (tests/engine/test_ticks.py), on a real chart."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QPainter, QPen, QPicture

from gui.common.chart import Chart, add_line
from gui.common.chart_axis import ChartAxis, opaque
from gui.common.theme import DARK_PLOTS, LIGHT_PLOTS
from gui.pages.plan.chart import PlanChart
from gui.pages.sweep.chart import SweepChart
from gui.pages.sweep.study_chart import StudyChart
from tests.gui.helpers import shown_chart


def test_a_see_through_pen_becomes_the_colour_it_shows_over_the_backdrop():
    faint_black = QColor(0, 0, 0, 51)  # a fifth of black
    pen = opaque(QPen(faint_black), QColor("#ffffff"))
    assert pen.color().alpha() == 255
    assert (pen.color().red(), pen.color().green(), pen.color().blue()) == (204, 204, 204)
    solid = QPen(QColor("#123456"))
    assert opaque(solid, QColor("#ffffff")) is solid  # already opaque: unchanged


def draw_specs(axis: ChartAxis) -> tuple:
    """What the axis draws: its line, its ticks (pen, from, to), its labels (rect, flags, text)."""
    picture = QPicture()
    painter = QPainter(picture)  # as pyqtgraph's AxisItem.paint measures its labels
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    assert specs is not None
    return specs


def grid_pens(axis: ChartAxis) -> list[QPen]:
    return [pen for pen, _, _ in draw_specs(axis)[1]]


def test_each_chart_plot_has_an_opaque_grid_under_its_view(qtbot):
    charts = [Chart("t", "A chart", "y"), PlanChart(), SweepChart(), StudyChart()]
    for chart in charts:
        qtbot.addWidget(chart)
        chart.resize(600, 500)
        chart.show()
    qtbot.waitExposed(charts[-1])
    for chart in charts:
        for colors in (LIGHT_PLOTS, DARK_PLOTS):
            chart.set_colors(colors)
            plots = [item for item in chart.ci.items if isinstance(item, pg.PlotItem)]
            assert plots
            for plot in plots:
                for side in ("left", "bottom", "right", "top"):
                    axis = plot.getAxis(side)
                    assert isinstance(axis, ChartAxis), (chart.name, side)
                    if axis.grid is False or not axis.isVisible():
                        continue
                    assert axis.zValue() < plot.vb.zValue()  # the data is drawn over it
                    pens = grid_pens(axis)
                    assert pens and all(p.color().alpha() == 255 for p in pens)
                    back, fore = QColor(colors.background), QColor(colors.foreground)
                    for pen in pens:  # between the background and the axis colour
                        for part in ("red", "green", "blue"):
                            ends = sorted((getattr(back, part)(), getattr(fore, part)()))
                            assert ends[0] <= getattr(pen.color(), part)() <= ends[1]


def test_a_curve_over_the_grid_keeps_its_colour(qtbot):
    chart = shown_chart(qtbot, "A chart", "y", DARK_PLOTS)
    line = add_line(chart)
    line.setPen(pg.mkPen("#ff0000", width=5))
    line.setData(np.linspace(0, 10, 50), np.full(50, 5.0))
    chart.plot.setXRange(0, 10, padding=0)
    chart.plot.setYRange(0, 10, padding=0)
    qtbot.wait(50)
    image = chart.grab().toImage()
    vb = chart.plot.vb
    middle = chart.mapFromScene(vb.mapViewToScene(pg.Point(5, 5)))
    left = chart.mapFromScene(vb.mapViewToScene(pg.Point(0.3, 5))).x()
    right = chart.mapFromScene(vb.mapViewToScene(pg.Point(9.7, 5))).x()
    row = [QColor(image.pixel(x, middle.y())) for x in range(left, right)]
    # The grid's vertical lines cross the curve every second: none shows through it.
    assert all((c.red(), c.green(), c.blue()) == (255, 0, 0) for c in row)


def drawn_labels(axis: ChartAxis) -> list[str]:
    return [text for _, _, text in draw_specs(axis)[2]]


def test_a_chart_of_small_costs_writes_its_labels_in_fixed_point(qtbot):
    chart = shown_chart(qtbot, "Projected cost per epoch", "USD per epoch", LIGHT_PLOTS)
    line = add_line(chart)
    line.setData(np.linspace(0, 5, 20), np.linspace(2e-5, 3.2e-4, 20))  # a small model's $
    chart.plot.setXRange(0, 5, padding=0)
    chart.plot.setYRange(0, 3.2e-4, padding=0)
    qtbot.wait(50)
    labels = drawn_labels(chart.plot.getAxis("left"))
    assert len(labels) >= 3
    assert all("e" not in text for text in labels), labels  # pyqtgraph's "5e-05" beside "0.0001"
    values = sorted(float(text) for text in labels)
    steps = {round(b - a, 12) for a, b in zip(values, values[1:], strict=False)}
    assert len(steps) == 1, labels  # evenly spaced: each label is its tick's value
