"""The QApplication every window of the app runs in (the app, its smoke mode, the tests)."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication

# pyqtgraph's RawImageWidget, which the app never uses, imports CUDA's Python bindings at
# pyqtgraph's import where they are installed (torch brings them): 90 ms of the window's start,
# measured with -X importtime. A None in sys.modules makes that import fail, as where they are
# not installed. Only the GUI's process comes here; a worker never does.
_UNUSED = ("cuda.bindings",)


def create_app(argv: list[str] | None = None) -> QApplication:
    from PySide6.QtCore import QCoreApplication

    for name in _UNUSED:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]

    import engine

    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    QCoreApplication.setOrganizationName("epochcost")
    QCoreApplication.setApplicationName("epochcost")
    QCoreApplication.setApplicationVersion(engine.__version__)
    return QApplication(sys.argv[:1] + list(argv or []))
