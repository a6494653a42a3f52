"""Past runs: the sortable results table with open (and drop), delete and CSV export.

Selecting rows emits their run ids; the main window overlays those results on the plots.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from engine.core.errors import ConfigError
from gui.common import export
from gui.common.lazy_store import open_store
from gui.common.results_model import ResultsTableModel

if TYPE_CHECKING:
    from engine.results.store import Store


VISIBLE_ROWS = 5  # the table never shrinks below this many rows (the window's splitter)


class ResultsPanel(QWidget):
    selection_changed = Signal(list)  # run ids, in table order
    message = Signal(str, str)  # text, level ("info" | "error")
    open_requested = Signal()
    export_requested = Signal()

    def __init__(
        self, store: Callable[[], Store] = open_store, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._store = store
        self.model = ResultsTableModel()
        self.view = QTableView(objectName="results_table")
        self.view.setModel(self.model)
        self.view.setSortingEnabled(True)
        date_column = [c.key for c in self.model.columns].index("created_at")
        self.view.sortByColumn(date_column, Qt.SortOrder.DescendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().hide()
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.view.setMinimumHeight(self.rows_height(VISIBLE_ROWS))

        open_button = QPushButton("Open result…")
        open_button.setToolTip(
            "Add a result JSON file (from any machine); dropping files works too"
        )
        csv_button = QPushButton("Export CSV…")
        self.delete_button = QPushButton("Delete", objectName="delete_button")
        self.delete_button.setEnabled(False)
        bar = QHBoxLayout()
        title = QLabel("<b>Past runs</b> — select rows to compare them on the plots")
        title.setWordWrap(True)
        bar.addWidget(title, 1)
        for button in (open_button, csv_button, self.delete_button):
            bar.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.view)
        open_button.clicked.connect(self.open_requested)
        csv_button.clicked.connect(self.export_requested)
        self.delete_button.clicked.connect(lambda: self.delete_selected(confirm=True))

    def rows_height(self, rows: int) -> int:
        """The table's height that shows `rows` rows, its header and a horizontal scroll bar."""
        view = self.view
        header = view.horizontalHeader().sizeHint().height()
        bar = view.horizontalScrollBar().sizeHint().height()
        row = view.verticalHeader().defaultSectionSize()
        return header + rows * row + bar + 2 * view.frameWidth() + 2

    def refresh(self, select: str | None = None) -> None:
        """Reload the listing from the store; optionally select one run."""
        try:
            frame = self._store().list()
        except (sqlite3.Error, OSError, ConfigError) as exc:
            self.message.emit(f"The results database could not be read: {exc}", "error")
            return
        self.model.set_frame(frame)
        if select is not None:
            row = self.model.row_of(select)
            if row is not None:
                self.view.selectRow(row)
                self.view.scrollTo(self.model.index(row, 0))

    def selected_run_ids(self) -> list[str]:
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        return [self.model.run_id(r) for r in rows]

    def selected_results(self, limit: int = 5) -> list[dict[str, Any]]:
        out = []
        for run_id in self.selected_run_ids()[:limit]:
            try:
                out.append(self._store().get(run_id))
            except (sqlite3.Error, OSError, ConfigError):
                continue
        return out

    def _selection_changed(self) -> None:
        ids = self.selected_run_ids()
        self.delete_button.setEnabled(bool(ids))
        self.selection_changed.emit(ids)

    def delete_selected(self, confirm: bool = True) -> int:
        """Delete the selected runs (after asking, unless confirm is False); how many went."""
        ids = self.selected_run_ids()
        if not ids:
            return 0
        if confirm:
            answer = QMessageBox.question(
                self,
                "Delete results",
                f"Delete {len(ids)} stored result{'s' if len(ids) > 1 else ''}? "
                "This cannot be undone (export them first to keep a copy).",
            )
            if answer != QMessageBox.StandardButton.Yes:
                return 0
        store = self._store()
        for run_id in ids:
            store.delete(run_id)
        self.refresh()
        self.message.emit(f"Deleted {len(ids)} result{'s' if len(ids) > 1 else ''}.", "info")
        return len(ids)

    def import_files(self, files: list[Path]) -> list[str]:
        """Add result JSON files to the store; each bad file gets a message saying why. A
        file whose run id holds a different stored result is refused: nothing is replaced."""
        imported: list[str] = []
        notes: list[str] = []
        problems: list[str] = []
        for path in files:
            try:
                added = self._store().import_file(path)
            except (ConfigError, OSError) as exc:
                problems.append(str(exc))
                continue
            imported.append(added.run_id)
            if added.outcome != "stored" or added.unchecked:
                notes.append(added.describe())
        self.refresh(select=imported[-1] if imported else None)
        if problems:
            self.message.emit("Could not add " + "; ".join(problems), "error")
        elif notes:
            self.message.emit("; ".join(notes) + ".", "info")
        elif imported:
            self.message.emit(f"Added {len(imported)} result(s) to the table.", "info")
        return imported

    def export_csv(self, path: Path) -> Path:
        """The table as shown (sorted), every listing column, raw numbers."""
        if self.model.frame is None:
            self.refresh()
        if self.model.frame is None:
            raise export.ExportError("the results database could not be read")
        return export.write_csv(self.model.frame, path)
