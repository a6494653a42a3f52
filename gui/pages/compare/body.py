"""The Compare tab's body, built when first needed (a tenth of a second: not at the window's
start): the table with its notes and buttons over the three charts' tabs ($ per epoch, cost
against time, break-even with the machine to rent instead), laid out by layout.py. The page
fills it and connects its buttons (gui/pages/compare/page.py)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui.common import theme
from gui.common.table_rows import show_rows
from gui.pages.compare import charts as compare_charts
from gui.pages.compare import cloud_action, layout
from gui.pages.compare.cloud_action import ACTION
from gui.pages.compare.model import CompareModel


class CompareBody:
    """The body's widgets; `splitter` holds them all."""

    def __init__(
        self, colors: theme.PlotColors, row_px: int, draw_bars: Callable[[], None]
    ) -> None:
        self.model = CompareModel()
        self.view = QTableView(objectName="compare_table")
        self.view.setModel(self.model)
        self.view.setSortingEnabled(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(row_px)
        show_rows(self.view)  # five rows; the charts take what the window has beyond them
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.notes = QLabel(wordWrap=True, objectName="compare_notes")
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.csv_button = QPushButton("Export table CSV…")
        self.measure_button = QPushButton(ACTION, objectName="measure_on_cloud")
        self.measure_button.setToolTip(cloud_action.TOOLTIP)
        self.measure = QAction(ACTION, self.view)
        self.view.addAction(self.measure)  # the rows' context menu
        cloud_action.follow_selection(self.view, self.measure_button, self.measure)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.chart_button = QPushButton("Export chart…")
        self.bars, self.scatter, self.break_even = compare_charts.make_charts()
        self.charts = {c.name: c for c in (self.bars, self.scatter, self.break_even)}
        for chart in self.charts.values():
            chart.set_colors(colors)
            chart.set_caption_on_screen(False)  # the heading says it; files and tooltips too
            layout.title_in_files(chart)  # its tab names it on screen
        self.fitted = layout.FittedBars(self.bars, draw_bars)
        self.rent = QComboBox(objectName="break_even_instance")
        self.rent.setToolTip("The machine to rent instead of owning the measured one")
        self.chart_tabs = QTabWidget(objectName="compare_charts")
        self.chart_tabs.setDocumentMode(True)
        self.chart_tabs.addTab(self.bars, "$ per epoch")
        self.chart_tabs.addTab(self.scatter, "Cost against time")
        self.chart_tabs.addTab(self._break_even_page(), "Break-even")
        self.chart_tabs.setCornerWidget(self.chart_button)
        self.splitter = layout.Body(self._table_part(), self.chart_tabs)

    def _break_even_page(self) -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(0, 0, 0, 0)
        rent_row = QHBoxLayout()
        rent_row.addWidget(QLabel("Renting instead:"))
        rent_row.addWidget(self.rent, 1)
        column.addLayout(rent_row)
        column.addWidget(self.break_even, 1)
        return page

    def _table_part(self) -> layout.TablePart:
        part = layout.TablePart()
        column = QVBoxLayout(part)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.view, 1)
        notes_row = QHBoxLayout()
        notes_row.addWidget(self.notes, 1)
        notes_row.addWidget(self.measure_button, 0, Qt.AlignmentFlag.AlignTop)
        notes_row.addWidget(self.csv_button, 0, Qt.AlignmentFlag.AlignTop)
        column.addLayout(notes_row)
        return part
