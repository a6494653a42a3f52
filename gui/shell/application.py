"""The QApplication every window of the app runs in (the app, its smoke mode, the tests)."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication

# pyqtgraph's RawImageWidget, which the app never uses, imports CUDA's Python bindings at
# pyqtgraph's import where they are installed (torch brings them): 90 ms of the window's start,
# measured with -X importtime. While pyqtgraph is imported, a None in sys.modules makes that
# import fail, as where they are not installed; the entry goes again afterwards, so that
# anything later in the process imports them as usual.
_UNUSED = "cuda.bindings"


def _import_pyqtgraph() -> None:
    if "pyqtgraph" in sys.modules or _UNUSED in sys.modules:
        return
    sys.modules[_UNUSED] = None  # type: ignore[assignment]
    try:
        import pyqtgraph  # noqa: F401
    finally:
        del sys.modules[_UNUSED]


def create_app(argv: list[str] | None = None) -> QApplication:
    from PySide6.QtCore import QCoreApplication

    import engine

    _import_pyqtgraph()

    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    QCoreApplication.setOrganizationName("epochcost")
    QCoreApplication.setApplicationName("epochcost")
    QCoreApplication.setApplicationVersion(engine.__version__)
    return QApplication(sys.argv[:1] + list(argv or []))
