"""Exports: charts to PNG or SVG (pyqtgraph exporters) or the clipboard, tables to CSV.

A chart is exported as its whole layout: title, axes with their labels and units, curves,
legend and the caption naming the run's model, device and price. pyqtgraph is imported by the
functions that draw charts: the tables' exports load before the window's first paint, the
charts after (gui/common/plot_frames.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QEvent, QRectF, QSizeF, Qt
from PySide6.QtGui import QImage, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsWidget

from engine.core.errors import ConfigError
from engine.results.files import check_out_path, write_text, write_via

if TYPE_CHECKING:
    import pandas as pd
    import pyqtgraph as pg

    from gui.common.chart import Chart

CHART_FORMATS = {".png": "PNG image", ".svg": "SVG drawing"}
PNG_WIDTH_PX = 1600


class ExportError(ValueError):
    """An export that cannot be written; the message says why, for the message bar."""


def checked_path(path: Path) -> Path:
    """Where an export may be written: the CLI's rules (engine/results/files.py check_out_path:
    an existing folder, never a folder itself, the results store or one of epochcost's own
    files in its data folder); ExportError saying why not."""
    try:
        return check_out_path(path)
    except ConfigError as exc:
        raise ExportError(exc.message) from None


def export_chart(
    item: pg.GraphicsLayout, path: Path, layout_px: tuple[int, int] | None = None
) -> Path:
    """Write a chart to `path`; the suffix (.png or .svg) picks the format. With `layout_px`
    (width, height) the chart is laid out at that size for the file, whatever its size on
    screen (a chart half a page wide would otherwise export tall, with outsized text)."""
    import pyqtgraph as pg
    import pyqtgraph.exporters  # noqa: F401 (pg.exporters)

    suffix = path.suffix.lower()
    if suffix not in CHART_FORMATS:
        raise ExportError(f"{path.name}: save charts as .png or .svg")
    checked_path(path)
    chart = _chart_of(item)
    on_screen = item.geometry()
    with chart.exporting() if chart is not None else nullcontext():
        if layout_px is not None:
            item.setGeometry(QRectF(on_screen.topLeft(), QSizeF(*layout_px)))
        _settle(item)
        if chart is not None:
            chart.labels.separate()  # apart at the file's size
        try:
            if suffix == ".svg":
                write_via(path, lambda tmp: pg.exporters.SVGExporter(item).export(str(tmp)))
            else:
                scale = PNG_WIDTH_PX / max(item.geometry().width(), 1.0)
                with _pens_scaled(chart, scale):
                    exporter = pg.exporters.ImageExporter(item)
                    exporter.parameters()["width"] = PNG_WIDTH_PX
                    write_via(path, lambda tmp: exporter.export(str(tmp)))
        finally:
            item.setGeometry(on_screen)
    return path


def _settle(item: pg.GraphicsLayout) -> None:
    """Lay the chart out as the file shows it. The file's size and the export hooks change what
    the axes and the legend hold (Compare's bars: twenty machines where the screen has room
    for six), and pyqtgraph widens an axis to its labels only as it paints them, and lays a
    legend out on a posted event: one drawing unseen and the posted layouts, twice, first (or
    the longest names were left off the axis and the legend's text sat on its symbols)."""
    rect = item.sceneBoundingRect()
    scene = item.scene()
    for _ in range(2):
        for widget in _graphics_widgets(item):  # the chart's own: the window's would resize it
            QCoreApplication.sendPostedEvents(widget, QEvent.Type.LayoutRequest)
        item.layout.activate()
        if scene is None or rect.isEmpty():
            continue
        image = QImage(int(rect.width()) + 1, int(rect.height()) + 1, QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        try:
            scene.render(painter, QRectF(image.rect()), item.sceneBoundingRect())
        finally:
            painter.end()


def _graphics_widgets(item: QGraphicsItem) -> Iterator[QGraphicsWidget]:
    if isinstance(item, QGraphicsWidget):
        yield item
    for child in item.childItems():
        yield from _graphics_widgets(child)


def _chart_of(item: pg.GraphicsLayout) -> Chart | None:
    from gui.common.chart import Chart

    view = item.getViewWidget()
    return view if isinstance(view, Chart) else None


@contextmanager
def _pens_scaled(chart: Chart | None, scale: float) -> Iterator[None]:
    """Lines as wide in the image as on screen: a PNG scales the chart's text and symbols to
    its width, but not its pens (one pixel wide whatever the scale), so an enlarged chart's
    lines come out thin and pale."""
    restore: list[tuple[Any, Any]] = []
    if chart is not None and scale > 1.0:
        for vb in chart.view_boxes():
            for line in vb.childGroup.childItems():
                pen = _pen_of(line)
                if pen is None:
                    continue
                wider = QPen(pen)
                wider.setWidthF(max(pen.widthF(), 1.0) * scale)
                restore.append((line, pen))
                line.setPen(wider)
    try:
        yield
    finally:
        for line, pen in restore:
            line.setPen(pen)


def _pen_of(item: Any) -> QPen | None:
    import pyqtgraph as pg

    if isinstance(item, pg.PlotDataItem | pg.PlotCurveItem):
        pen = item.opts.get("pen")
    elif isinstance(item, pg.InfiniteLine):
        pen = item.pen
    else:
        return None
    if pen is None:
        return None
    pen = pg.mkPen(pen)
    return None if pen.style() == Qt.PenStyle.NoPen else pen


def copy_chart(item: pg.GraphicsLayout) -> None:
    """Put the chart on the clipboard as an image (as a PNG export draws it)."""
    import pyqtgraph as pg
    import pyqtgraph.exporters  # noqa: F401 (pg.exporters)

    chart = _chart_of(item)
    with chart.exporting() if chart is not None else nullcontext():
        _settle(item)
        scale = PNG_WIDTH_PX / max(item.geometry().width(), 1.0)
        with _pens_scaled(chart, scale):
            exporter = pg.exporters.ImageExporter(item)
            exporter.parameters()["width"] = PNG_WIDTH_PX
            exporter.export(copy=True)


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    """The results listing as CSV (raw numbers; empty cells for missing values)."""
    checked_path(path)
    try:
        write_text(path, frame.to_csv(index=False))
    except OSError as exc:  # StoreError: the file and why
        raise ExportError(str(exc)) from None
    return path
