"""The catalog picker: find a rentable machine by GPU, cloud, instance or price, and take its
on-demand or spot price. Your own quotes are listed with the shipped prices and added here;
"Update prices" fetches today's (gui/panel/price_update.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from engine.pricing.rows import Instance
from gui.common.catalog_source import CatalogSource
from gui.common.frame_model import Column, FrameTableModel
from gui.common.number_field import InputError, NumberField
from gui.panel.catalog_row_dialog import QUOTE_FIELDS, CatalogRowDialog
from gui.panel.price_update import PriceUpdate

if TYPE_CHECKING:
    import pandas as pd

ALL_CLOUDS = "All clouds"


def _price(value: Any) -> str:
    return f"{value:,.4g}"


INSTANCE_COLUMNS = (
    Column("cloud", "Cloud"),
    Column("instance_type", "Machine"),
    Column("gpu_model", "GPU", display="gpu_text"),
    Column("usd_per_hour", "$/h", _price, True),
    Column("usd_per_hour_spot", "Spot $/h", _price, True),
    Column("region", "Region"),
    Column("price_date", "Price date"),
    Column("source", "Source", display="source_text"),
)


def gpu_text(instance: Instance) -> str:
    if not instance.gpu_count:
        return "no GPU"
    model = instance.gpu_model or instance.gpu_spec
    return model if instance.gpu_count == 1 else f"{model} x{instance.gpu_count:g}"


def source_text(instance: Instance) -> str:
    return "your quote" if instance.origin == "user" else instance.source


class InstanceModel(FrameTableModel):
    def __init__(self) -> None:
        super().__init__(INSTANCE_COLUMNS)
        self.instances: list[Instance] = []

    def set_instances(self, instances: list[Instance]) -> None:
        import pandas as pd

        self.instances = list(instances)
        frame: pd.DataFrame = pd.DataFrame(
            [
                {
                    **{c.key: getattr(i, c.key) for c in INSTANCE_COLUMNS},
                    "gpu_text": gpu_text(i),
                    "source_text": source_text(i),
                    "index": n,
                }
                for n, i in enumerate(self.instances)
            ],
            columns=[*(c.key for c in INSTANCE_COLUMNS), "gpu_text", "source_text", "index"],
        )
        self.set_frame(frame)

    def instance(self, row: int) -> Instance:
        assert self.frame is not None
        return self.instances[int(self.cell(row, "index"))]

    def tooltip(self, row: int) -> str | None:
        i = self.instance(row)
        return "\n".join(x for x in (i.label, i.source, i.notes) if x)


class PricePicker(QDialog):
    """Choose an instance; `chosen` is (instance, spot) once a price is taken."""

    def __init__(self, source: CatalogSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Choose a price")
        self.resize(900, 520)
        self.source = source
        self.chosen: tuple[Instance, bool] | None = None
        self.search = QLineEdit(objectName="search")
        self.search.setPlaceholderText("GPU, cloud, machine or any words: v100 aws")
        self.search.setClearButtonEnabled(True)
        self.cloud = QComboBox(objectName="cloud")
        self.max_price = NumberField(
            "Max $/h",
            name="max_price",
            optional=True,
            minimum=0,
            unit="$",
            placeholder="max $/h",
            tooltip="Only machines that cost at most this per hour (on demand)",
        )
        self.max_price.setMaximumWidth(90)
        self.historical = QCheckBox("2016-18 study prices", objectName="historical")
        self.model = InstanceModel()
        self.view = QTableView(objectName="instances")
        self.view.setModel(self.model)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(3, Qt.SortOrder.AscendingOrder)  # cheapest first
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.count = QLabel(objectName="count")
        self.prices = PriceUpdate(source)
        add = QPushButton("Add my quote…")
        add.setToolTip("A price you were quoted, saved to your own catalog file")
        cancel = QPushButton("Cancel")
        self.use = QPushButton("Use on-demand price", objectName="use_on_demand")
        self.use_spot = QPushButton("Use spot price", objectName="use_spot")
        self.use.setDefault(True)

        filters = QHBoxLayout()
        filters.addWidget(self.search, 1)
        filters.addWidget(self.cloud)
        filters.addWidget(self.max_price)
        filters.addWidget(self.historical)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(self.count, 1)
        for b in (cancel, self.use_spot, self.use):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.prices)
        layout.addLayout(buttons)

        self.search.textChanged.connect(self.refresh)
        self.cloud.currentIndexChanged.connect(self.refresh)
        self.max_price.textChanged.connect(self.refresh)
        self.historical.toggled.connect(self.refresh)
        self.view.selectionModel().selectionChanged.connect(self._update_buttons)
        self.view.doubleClicked.connect(lambda _: self.take(spot=False))
        self.use.clicked.connect(lambda: self.take(spot=False))
        self.use_spot.clicked.connect(lambda: self.take(spot=True))
        cancel.clicked.connect(self.reject)
        add.clicked.connect(self.add_quote)
        self.prices.updated.connect(self.refresh)  # the new prices, with their dates
        self.finished.connect(lambda _: self.prices.shutdown())
        self._fill_clouds()
        self.refresh()

    def _fill_clouds(self) -> None:
        current = self.cloud.currentText()
        self.cloud.blockSignals(True)
        self.cloud.clear()
        self.cloud.addItems([ALL_CLOUDS, *self.source.get().clouds])
        self.cloud.setCurrentIndex(max(0, self.cloud.findText(current)))
        self.cloud.blockSignals(False)

    def refresh(self) -> None:
        """List the machines the filters select (whole machines only: never a GPU or a host VM
        priced alone)."""
        cat = self.source.get()
        clouds = (
            None if self.cloud.currentText() in ("", ALL_CLOUDS) else [self.cloud.currentText()]
        )
        rows = cat.select(
            clouds,
            text=self.search.text().strip() or None,
            historical=None if self.historical.isChecked() else False,
        )
        try:
            limit, bad = self.max_price.value(), ""
        except InputError as exc:
            limit, bad = None, f" ({exc})"
        if limit is not None:
            rows = [i for i in rows if i.usd_per_hour <= limit]
        self.model.set_instances(rows)
        total = len(cat.select(historical=None))
        self.count.setText(f"{len(rows)} of {total} machines{bad}")
        self._update_buttons()

    def select_instance(self, instance: Instance) -> bool:
        for row in range(self.model.rowCount()):
            if self.model.instance(row).key == instance.key:
                self.view.selectRow(row)
                return True
        return False

    def selected(self) -> Instance | None:
        rows = self.view.selectionModel().selectedRows()
        return self.model.instance(rows[0].row()) if rows else None

    def _update_buttons(self) -> None:
        instance = self.selected()
        self.use.setEnabled(instance is not None)
        self.use_spot.setEnabled(instance is not None and instance.usd_per_hour_spot is not None)
        if instance is not None and instance.usd_per_hour_spot is None:
            self.use_spot.setToolTip(f"{instance.label} has no spot price in the catalog")
        else:
            self.use_spot.setToolTip("")

    def take(self, spot: bool) -> None:
        instance = self.selected()
        if instance is None or (spot and instance.usd_per_hour_spot is None):
            return
        self.chosen = (instance, spot)
        self.accept()

    def add_quote(self) -> None:
        dialog = CatalogRowDialog(self.source, "instances", QUOTE_FIELDS, parent=self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        for edit in (self.search, self.max_price):  # show the new row whatever was filtered
            edit.clear()
        self._fill_clouds()
        self.cloud.setCurrentIndex(0)
        self.refresh()
        values = dialog.values()
        for row in range(self.model.rowCount()):
            i = self.model.instance(row)
            if i.origin == "user" and (i.cloud, i.instance_type) == (
                values["cloud"],
                values["instance_type"],
            ):
                self.view.selectRow(row)
                break
