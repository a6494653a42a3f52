"""How soon the window shows: `EPOCHCOST_FIRST_PAINT=1 epochcost-gui` prints, as one JSON line,
the seconds from the process's start to the main window's first paint and to the Run tab's
plots built (pyqtgraph imported after that paint), whether pyqtgraph was loaded at the first
paint, and quits. With a folder for its value, it also saves the screen at each moment there
(first-paint.png, plots.png). benchmarks/first_paint.py launches it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

from gui.shell.main_window import MainWindow

VARIABLE = "EPOCHCOST_FIRST_PAINT"


def process_seconds() -> float:
    """Seconds since this process started (the kernel's clock ticks; Linux), else since Python
    imported this module's caller's first module: an underestimate."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # starttime, since boot
        return time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError, AttributeError):
        return time.perf_counter()


class FirstPaint(QObject):
    """Watches `window` for its first paint and its Run tab for its plots, then quits."""

    def __init__(self, window: MainWindow, folder: Path | None) -> None:
        super().__init__(window)
        self.window = window
        self.folder = folder
        self.figures: dict[str, object] = {}
        window.installEventFilter(self)
        window.run_page.plots_built.connect(lambda: QTimer.singleShot(0, self._plots))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.window and event.type() == QEvent.Type.Paint:
            self.window.removeEventFilter(self)
            self.figures["pyqtgraph_at_first_paint"] = "pyqtgraph" in sys.modules
            QTimer.singleShot(0, self._painted)  # once this paint is done
        return False

    def _painted(self) -> None:
        self.figures["first_paint_s"] = round(process_seconds(), 4)
        self._grab("first-paint")

    def _plots(self) -> None:
        self.figures["plots_s"] = round(process_seconds(), 4)
        self.window.repaint()  # the plots drawn before the screen is taken
        self._grab("plots")
        print(json.dumps(self.figures), flush=True)
        self.window.close()

    def _grab(self, name: str) -> None:
        if self.folder is not None:
            screen = QApplication.primaryScreen()
            screen.grabWindow(0).save(str(self.folder / f"{name}.png"))


def watch(window: MainWindow) -> FirstPaint | None:
    """A FirstPaint on `window` when EPOCHCOST_FIRST_PAINT asks for one."""
    value = os.environ.get(VARIABLE, "")
    if not value or value == "0":
        return None
    folder = None if value == "1" else Path(value)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    return FirstPaint(window, folder)
