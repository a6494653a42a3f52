"""Exports: charts to PNG or SVG (pyqtgraph exporters) or the clipboard, tables to CSV.

A chart is exported as its whole layout: title, axes with their labels and units, curves,
legend and the caption naming the run's model, device and price.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pyqtgraph as pg
import pyqtgraph.exporters
from PySide6.QtCore import QRectF, QSizeF

if TYPE_CHECKING:
    import pandas as pd

CHART_FORMATS = {".png": "PNG image", ".svg": "SVG drawing"}
PNG_WIDTH_PX = 1600


class ExportError(ValueError):
    """An export that cannot be written; the message says why, for the message bar."""


def export_chart(
    item: pg.GraphicsLayout, path: Path, layout_px: tuple[int, int] | None = None
) -> Path:
    """Write a chart to `path`; the suffix (.png or .svg) picks the format. With `layout_px`
    (width, height) the chart is laid out at that size for the file, whatever its size on
    screen (a chart half a page wide would otherwise export tall, with outsized text)."""
    suffix = path.suffix.lower()
    if suffix not in CHART_FORMATS:
        raise ExportError(f"{path.name}: save charts as .png or .svg")
    if not path.parent.is_dir():
        raise ExportError(f"folder {path.parent} does not exist")
    on_screen = item.geometry()
    if layout_px is not None:
        item.setGeometry(QRectF(on_screen.topLeft(), QSizeF(*layout_px)))
    try:
        if suffix == ".svg":
            pg.exporters.SVGExporter(item).export(str(path))
        else:
            exporter = pg.exporters.ImageExporter(item)
            exporter.parameters()["width"] = PNG_WIDTH_PX
            exporter.export(str(path))
    finally:
        item.setGeometry(on_screen)
    if not path.is_file():
        raise ExportError(f"{path} could not be written")
    return path


def copy_chart(item: pg.GraphicsLayout) -> None:
    """Put the chart on the clipboard as an image."""
    exporter = pg.exporters.ImageExporter(item)
    exporter.parameters()["width"] = PNG_WIDTH_PX
    exporter.export(copy=True)


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    """The results listing as CSV (raw numbers; empty cells for missing values)."""
    if not path.parent.is_dir():
        raise ExportError(f"folder {path.parent} does not exist")
    try:
        frame.to_csv(path, index=False)
    except OSError as exc:
        raise ExportError(f"{path} could not be written: {exc.strerror}") from None
    return path
