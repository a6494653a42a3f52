"""The tables' model over a DataFrame: each cell read from its column, in the order asked for,
and a new frame shown in that order with one reset of the view (no second layout)."""

from __future__ import annotations

import math

import pandas as pd
from PySide6.QtCore import Qt

from gui.common.frame_model import MISSING_TEXT, Column, FrameTableModel

COLUMNS = [Column("name", "Name"), Column("price", "Price", fmt=lambda v: f"{v:.2f}", right=True)]


def shown(model: FrameTableModel) -> list[list[str]]:
    return [
        [model.data(model.index(r, c)) for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def test_cells_follow_the_frame_its_order_and_a_new_frame(qtbot):
    model = FrameTableModel(COLUMNS)
    model.set_frame(pd.DataFrame({"name": ["b", "a", "c"], "price": [2.0, float("nan"), 0.5]}))
    assert shown(model) == [["b", "2.00"], ["a", MISSING_TEXT], ["c", "0.50"]]
    model.sort(1, Qt.SortOrder.AscendingOrder)  # missing last
    assert shown(model) == [["c", "0.50"], ["b", "2.00"], ["a", MISSING_TEXT]]
    assert type(model.cell(0, "price")) is float and math.isclose(model.cell(0, "price"), 0.5)
    resets, layouts = [], []
    model.modelReset.connect(lambda: resets.append(1))
    model.layoutChanged.connect(lambda: layouts.append(1))
    model.set_frame(pd.DataFrame({"name": ["x", "y"], "price": [9.0, 1.0]}))
    assert shown(model) == [["y", "1.00"], ["x", "9.00"]]  # in the order asked for
    assert (resets, layouts) == ([1], [])  # one reset, no second layout
    model.sort(1, Qt.SortOrder.AscendingOrder)  # the order it has: nothing to do
    assert layouts == []
    model.sort(1, Qt.SortOrder.DescendingOrder)
    assert shown(model) == [["x", "9.00"], ["y", "1.00"]] and layouts == [1]
    assert model.record(0) == {"name": "x", "price": 9.0}
