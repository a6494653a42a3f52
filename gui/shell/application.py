"""The QApplication every window of the app runs in (the app, its smoke mode, the tests).

It imports no pyqtgraph: the window paints first, and the charts load after
(gui/common/plot_frames.py).
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication


def create_app(argv: list[str] | None = None) -> QApplication:
    from PySide6.QtCore import QCoreApplication

    import engine

    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    QCoreApplication.setOrganizationName("epochcost")
    QCoreApplication.setApplicationName("epochcost")
    QCoreApplication.setApplicationVersion(engine.__version__)
    return QApplication(sys.argv[:1] + list(argv or []))
