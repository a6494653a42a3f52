"""The price field of the configuration panel: what an hour of the chosen device costs.

For now a free $/hour figure typed by the user (source "user", quoted today). The pricing issue
adds a picker from the shipped catalog here; the panel only uses `changed`, `fields()`,
`state()` and `restore()`, so a picker fits behind the same four.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QWidget

DEFAULT_USD_PER_HOUR = "0.90"


class PriceWidget(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QLineEdit(DEFAULT_USD_PER_HOUR)
        self.edit.setObjectName("usd_per_hour")
        self.edit.setPlaceholderText("none")
        self.edit.setToolTip(
            "What an hour of this machine costs you, in US dollars (an example to replace "
            "with yours). Leave it empty to see the projected epoch time instead of cost."
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("$"))
        layout.addWidget(self.edit, 1)
        layout.addWidget(QLabel("per hour"))
        self.edit.textChanged.connect(self.changed)

    def fields(self) -> tuple[dict[str, Any], str | None]:
        """RunConfig fields for the price, and why the input is unusable (None when fine)."""
        text = self.edit.text().strip().lstrip("$").replace(",", "")
        values: dict[str, Any] = {"usd_per_hour": None, "price_source": "user"}
        if not text:
            return values, None
        try:
            values["usd_per_hour"] = float(text)
        except ValueError:
            return values, f"{self.edit.text()!r} is not a number of dollars per hour"
        return values, None

    def state(self) -> dict[str, str]:
        return {"usd_per_hour": self.edit.text()}

    def restore(self, state: dict[str, Any]) -> None:
        value = state.get("usd_per_hour")
        if isinstance(value, str):
            self.edit.setText(value)
