"""The Compare tab at 1280x860 (issue 38): the first chart on the first screen, at a height that
reads, beside a table that keeps five rows; the bars the chart has room for on screen, all of
them in a file of a fixed size whatever the chart's size on screen."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QFontMetrics, QImage
from PySide6.QtWidgets import QScrollArea

from engine.results.store import Store
from gui.common.export import PNG_WIDTH_PX
from gui.common.table_rows import VISIBLE_ROWS
from gui.pages.compare import charts
from gui.pages.compare.charts import MAX_BARS
from gui.pages.compare.layout import BAR_GAP_PX
from tests.engine.price_results import result as gpu_result
from tests.gui.helpers import show_tab

WINDOW = (1280, 860)
LEAST_CHART_PX = 250  # the chart widget on screen
LEAST_BARS = 6  # machines the first chart shows at 1280x860


def shown_at(window, qtbot, size: tuple[int, int]):
    """A stored GTX 1080 Ti result selected, the Compare tab current, the window at `size`."""
    result = gpu_result(usd_per_hour=0.25)
    Store().add(result)
    page = show_tab(window, "Compare")
    window.results.refresh(select=result["run_id"])
    qtbot.waitUntil(lambda: page.body is not None and page.body.isVisible())
    resize(window, qtbot, size)
    return page


def resize(window, qtbot, size: tuple[int, int]) -> None:
    window.resize(*size)
    qtbot.waitUntil(lambda: window.size().toTuple() == size)
    qtbot.wait(100)  # the layouts settle, the bars redraw for the chart's height


def priced(page) -> list:
    return [r for r, _ in charts.priced(page.comparison.rows, False)]


def in_window(window, widget) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def bar_names(page) -> list[str]:
    return [text for _, text in page.bars.plot.getAxis("left")._tickLevels[0]]


def test_at_1280x860_the_first_chart_shows_without_scrolling(window, qtbot):
    page = shown_at(window, qtbot, WINDOW)
    assert page.chart_tabs.currentIndex() == 0
    chart = page.chart_tabs.currentWidget()
    assert chart is page.bars and chart.isVisible()
    where = in_window(window, chart)
    assert window.rect().contains(where), where
    assert where.height() >= LEAST_CHART_PX, where
    # ... on the page's first screen: its scroll area does not scroll, and shows all of it.
    area = page.parentWidget().parentWidget()
    assert isinstance(area, QScrollArea)
    assert area.verticalScrollBar().maximum() == 0
    assert in_window(window, area.viewport()).contains(where)
    # The table keeps five rows above it, and scrolls for the rest.
    assert page.view.isVisible() and page.model.rowCount() > VISIBLE_ROWS
    shown = page.view.rowAt(page.view.viewport().height() - 1)
    assert shown == -1 or shown >= VISIBLE_ROWS - 1
    assert page.view.verticalScrollBar().maximum() > 0
    # Its notes under it, not over it.
    notes = in_window(window, page.notes)
    assert notes.top() >= in_window(window, page.view).bottom()
    assert page.notes.height() >= page.notes.heightForWidth(page.notes.width())
    # As many bars as the plot holds with each name readable, the cheapest first.
    names = bar_names(page)
    assert LEAST_BARS <= len(names) < MAX_BARS
    line = QFontMetrics(page.bars.plot.getAxis("left").font()).height() + BAR_GAP_PX
    assert len(names) * line <= page.bars.plot.vb.height()
    assert f"{len(priced(page)) - len(names)} more machines in the table" in (
        page.bars.plot.getAxis("bottom").labelText
    )


def test_a_chart_exports_at_one_size_with_every_bar_whatever_its_size_here(window, qtbot, tmp_path):
    page = shown_at(window, qtbot, WINDOW)
    sizes, counts = set(), set()
    for n, size in enumerate((WINDOW, (1700, 1100))):
        resize(window, qtbot, size)
        on_screen = bar_names(page)
        counts.add(len(on_screen))
        svg = page.export_chart("compare_bars", tmp_path / f"bars{n}.svg")
        png = page.export_chart("compare_bars", tmp_path / f"bars{n}.png")
        root = ET.parse(svg).getroot()
        text = "".join(root.itertext())
        assert "Cost per epoch by machine" in text  # the title, in the file only
        assert "GeForce GTX 1080 Ti" in text  # the caption, in the file only
        assert f"{len(priced(page)) - MAX_BARS} more machines in the table" in text
        for r in priced(page)[:MAX_BARS]:  # every bar's name on its axis, the longest too
            assert r.instance_type in text, r.instance_type
        image = QImage(str(png))
        sizes.add((root.get("viewBox"), image.width(), image.height()))
        # ... and the screen as it was once its "Saved" line goes: the bars that fit, no
        # title, no caption
        page.message_bar.dismiss()
        qtbot.waitUntil(lambda p=page, b=on_screen: bar_names(p) == b)
        assert not page.bars.plot.titleLabel.isVisible()
        assert not page.bars.caption.isVisible()
    assert len(counts) == 2, counts  # the screens differed: the taller one showed more bars
    assert len(sizes) == 1, sizes  # the file's size is the page's export size, not the screen's
    ((view_box, width, height),) = sizes
    assert view_box == "0 0 {} {}".format(*page.export_size)
    assert width == PNG_WIDTH_PX
    assert abs(height - PNG_WIDTH_PX * page.export_size[1] / page.export_size[0]) <= 2
