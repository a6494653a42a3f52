"""A dialog that adds one row to the user's own catalog file (a quote, a machine).

The row is checked by the engine's own parser when OK is pressed; a wrong value is named beside
the form and nothing is written. The shipped catalog files are never touched
(engine/pricing/user_rows.py writes the user's file only).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from engine.core.errors import ConfigError
from engine.pricing.catalog import user_file
from gui.common.catalog_source import CatalogSource
from gui.common.field_error import ErrorLabel


class Field(NamedTuple):
    column: str
    label: str
    hint: str = ""  # placeholder text
    choices: tuple[str, ...] = ()  # offered in an editable list (any text still allowed)


QUOTE_FIELDS = (
    Field("cloud", "Provider", "aws, a local reseller, ..."),
    Field("instance_type", "Machine", "its name, e.g. p3.2xlarge"),
    Field("gpu_spec", "GPU", "a GPU of the catalog (for projections)"),
    Field("gpu_count", "GPUs", "1"),
    Field("usd_per_hour", "$ per hour", "on demand"),
    Field("usd_per_hour_spot", "Spot $ per hour", "empty: none"),
    Field("region", "Region", "for its grid's CO2, e.g. us-east-1"),
    Field("price_date", "Quoted on", "YYYY-MM-DD"),
    Field("source", "Source", "who quoted it"),
    Field("notes", "Notes"),
)

MACHINE_FIELDS = (
    Field("name", "Name", "my workstation"),
    Field("gpu_spec", "GPU", "a GPU of the catalog"),
    Field("purchase_usd", "Purchase ($)"),
    Field("lifetime_years", "Lifetime (years)"),
    Field("hours_per_day", "Use (hours/day)"),
    Field("power_w", "Device power (W)", "empty: measured or TDP"),
    Field("rest_of_system_w", "Rest of system (W)"),
    Field("usd_per_kwh", "Tariff ($/kWh)"),
    Field("psu_efficiency", "PSU efficiency"),
    Field("as_of", "As of", "YYYY-MM-DD"),
    Field("source", "Source"),
    Field("notes", "Notes"),
)


class CatalogRowDialog(QDialog):
    """Fill in a row of `kind` (instances, machines, ...) and add it to the user's file."""

    def __init__(
        self,
        source: CatalogSource,
        kind: str,
        fields: Sequence[Field],
        values: Mapping[str, str] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.source = source
        self.kind = kind
        self.path: Path | None = None
        self.setWindowTitle("Add to your catalog")
        values = dict(values or {})
        today = _dt.date.today().isoformat()
        self.edits: dict[str, QLineEdit] = {}
        self.labels = {f.column: f.label for f in fields}
        form = QFormLayout()
        gpu_names = tuple(sorted((g.name for g in source.get().gpus), key=str.casefold))
        for field in fields:
            edit = QLineEdit(values.get(field.column, ""), objectName=field.column)
            edit.setPlaceholderText(field.hint)
            if field.column in ("price_date", "as_of") and not edit.text():
                edit.setText(today)
            widget: QWidget = edit
            choices = field.choices or (gpu_names if field.column == "gpu_spec" else ())
            if choices:
                combo = QComboBox(editable=True)
                combo.addItems(["", *choices])
                combo.setLineEdit(edit)
                combo.setEditText(values.get(field.column, ""))
                widget = combo
            form.addRow(field.label, widget)
            self.edits[field.column] = edit
        self.error = ErrorLabel("row")
        where = QLabel(
            f"OK adds it to your own file {user_file(kind)}; the shipped catalog is never changed.",
            wordWrap=True,
        )
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(where)
        layout.addWidget(buttons)

    def values(self) -> dict[str, str]:
        out = {column: edit.text().strip() for column, edit in self.edits.items()}
        if self.kind == "instances" and out.get("gpu_spec") and not out.get("gpu_model"):
            out["gpu_model"] = out["gpu_spec"]  # the name tables show for the accelerator
        return out

    def save(self) -> bool:
        """Add the row; on a wrong value say which and keep the dialog open."""
        try:
            self.path = self.source.add_row(self.kind, self.values())
        except ConfigError as exc:
            self.error.show_error(f"{self.labels.get(exc.field, exc.field)}: {exc.message}")
            edit = self.edits.get(exc.field)
            if edit is not None:
                edit.setFocus()
            return False
        self.accept()
        return True
