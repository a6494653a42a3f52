"""How tall a table must be to show a number of rows: every table of the app shows five at least."""

from __future__ import annotations

from PySide6.QtWidgets import QTableView

VISIBLE_ROWS = 5  # the fewest rows a table shows without scrolling, at any window size


def rows_height(view: QTableView, rows: int = VISIBLE_ROWS) -> int:
    """The view's height (pixels) that shows `rows` rows, its header and a horizontal scroll
    bar."""
    header = view.horizontalHeader().sizeHint().height()
    bar = view.horizontalScrollBar().sizeHint().height()
    row = view.verticalHeader().defaultSectionSize()
    return header + rows * row + bar + 2 * view.frameWidth() + 2


def show_rows(view: QTableView, rows: int = VISIBLE_ROWS) -> None:
    """Keep `view` tall enough for `rows` rows: its layout gives way elsewhere, or scrolls."""
    view.setMinimumHeight(rows_height(view, rows))
