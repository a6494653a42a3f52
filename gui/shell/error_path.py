"""The one error path: unexpected exceptions (sys.excepthook, threads) and run failures are
written to a log file in the data folder and shown in the same dialog.

A user mistake never arrives here: it is a ConfigError shown beside its field or in the
window's message bar. This is for what we did not expect, and for a failed run's details.
"""

from __future__ import annotations

import sys
import threading
import traceback
from types import TracebackType

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QMessageBox, QWidget

from gui.common.log import log_path, logger


class ErrorReporter(QObject):
    """Logs and shows errors; safe to call from any thread (the dialog opens on the GUI's)."""

    _request = Signal(str, str, str)  # title, text, details; queued to the GUI thread

    def __init__(self, parent_widget: QWidget | None = None) -> None:
        super().__init__(parent_widget)
        self.parent_widget = parent_widget
        self.dialog: QMessageBox | None = None
        self._request.connect(self.show)

    def install(self) -> None:
        """Route uncaught exceptions (main thread and Python threads) here."""
        sys.excepthook = self.handle_exception
        threading.excepthook = lambda args: self.handle_exception(
            args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback
        )

    def handle_exception(
        self,
        exc_type: type[BaseException],
        exc: BaseException,
        tb: TracebackType | None,
    ) -> None:
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        logger().error("unexpected error\n%s", details)
        self.report(
            "Something went wrong inside epochcost",
            f"{exc_type.__name__}: {exc}",
            details,
        )

    def report(self, title: str, text: str, details: str = "") -> None:
        """Show `text` in the error dialog (details folded away) and log it."""
        logger().warning("%s: %s\n%s", title, text, details)
        self._request.emit(title, text, details)

    @Slot(str, str, str)
    def show(self, title: str, text: str, details: str = "") -> None:
        """Open the dialog (GUI thread only; other threads go through report())."""
        if self.dialog is not None and self.dialog.isVisible():
            # One dialog: later errors are added to it instead of stacking up windows.
            self.dialog.setInformativeText(self.dialog.informativeText() + "\n\n" + text)
            self.dialog.setDetailedText((self.dialog.detailedText() + "\n\n" + details).strip())
            return
        box = QMessageBox(self.parent_widget)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("epochcost")
        box.setText(title)
        box.setInformativeText(f"{text}\n\nThe log is {log_path()}.")
        if details:
            box.setDetailedText(details)
        box.setStandardButtons(QMessageBox.StandardButton.Close)
        box.open()  # window-modal, not blocking: the app keeps running
        self.dialog = box
