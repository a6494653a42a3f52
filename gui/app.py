"""Entry point of the desktop app: `epochcost-gui`, `python -m gui`, `make run`."""

from __future__ import annotations

import signal
import sys

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication

import engine


def create_app(argv: list[str] | None = None) -> QApplication:
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    QCoreApplication.setOrganizationName("epochcost")
    QCoreApplication.setApplicationName("epochcost")
    QCoreApplication.setApplicationVersion(engine.__version__)
    return QApplication(sys.argv[:1] + list(argv or []))


def main(argv: list[str] | None = None) -> int:
    app = create_app(argv if argv is not None else sys.argv[1:])
    # Imported after the QApplication exists: plot widgets need it.
    from gui.main_window import MainWindow

    window = MainWindow()
    window.reporter.install()
    window.show()
    # Ctrl+C in the terminal closes the window the normal way (the worker is reaped). Python
    # sees the signal only when it runs, so a timer lets it run now and then.
    signal.signal(signal.SIGINT, lambda *_: window.close())
    heartbeat = QTimer()
    heartbeat.timeout.connect(lambda: None)
    heartbeat.start(250)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
