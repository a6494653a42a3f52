"""A form field's mistake, said beside it: the forms' one error colour, and the one label
that shows a field's reason under it (hidden while there is none).

Every form (the configuration panel, the Sweep, Accuracy and Compare tabs, the catalog-row
dialog) builds its error lines here, so they look alike and a test finds each by its object
name, `<field>_error`. A field holding a mistake is also framed in the same colour
(gui/common/number_field.py, mark_invalid).
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

ERROR_COLOR = "#d04437"  # red that reads on the light and the dark theme
ERROR_STYLE = f"color: {ERROR_COLOR};"


class ErrorLabel(QLabel):
    """The reason a field (or a form, when it is not one field's) holds a mistake: red text
    that wraps, named `<name>_error`, hidden while empty."""

    def __init__(self, name: str) -> None:
        super().__init__(wordWrap=True, objectName=f"{name}_error")
        self.setStyleSheet(ERROR_STYLE)
        self.hide()

    def show_error(self, text: str | None) -> None:
        """Show `text`, or hide the label when there is nothing to say (None or empty)."""
        self.setText(text or "")
        self.setVisible(bool(text))


def field_cell(error: ErrorLabel, *fields: QWidget) -> QVBoxLayout:
    """A field with its error line under it. Several widgets (a field and its button, or a
    value and its unit) sit in one row above the line, the text fields and choices widest."""
    cell = QVBoxLayout()
    cell.setSpacing(1)
    if len(fields) == 1:
        cell.addWidget(fields[0])
    else:
        row = QHBoxLayout()
        for widget in fields:
            row.addWidget(widget, 1 if isinstance(widget, QLineEdit | QComboBox) else 0)
        cell.addLayout(row)
    cell.addWidget(error)
    return cell
