"""Entry point of the desktop app: `epochcost-gui`, `python -m gui`, `make run`, and the desktop
bundle's executable (build.spec), which is also the bundle's `epochcost` command line when
started under that name.

Nothing here imports Qt at module level: the bundle's executable is also its own worker
(`epochcost-gui --epochcost-worker run ...`, engine/process/launcher.py), and a worker must not
load Qt.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
from pathlib import Path

# The bundle's command line is this executable under this name (build.spec links it).
CLI_NAME = "epochcost"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    # A child of multiprocessing in the bundle (spawn) runs its task and exits here.
    multiprocessing.freeze_support()
    from engine.process.launcher import WORKER_FLAG

    if args[:1] == [WORKER_FLAG]:
        from engine.worker.main import entry

        entry(args[1:])  # exits the process once every event is out
    if getattr(sys, "frozen", False) and Path(sys.argv[0]).name == CLI_NAME:
        # The bundle's `epochcost` (a link to this executable, build.spec): the command line.
        from engine.cli import main as cli

        return cli(args)
    if getattr(sys, "frozen", False) and args[:1] in (["-c"], ["-m"]):
        # Something took the bundle's executable for a Python interpreter: never open a window.
        print("epochcost-gui is the desktop app, not a Python interpreter", file=sys.stderr)
        return 2
    if args[:1] == ["--smoke"]:
        from gui import smoke

        return smoke.main(args[1:])
    return run_window(args)


def run_window(args: list[str]) -> int:
    from PySide6.QtCore import QTimer

    from gui.shell.application import create_app

    app = create_app(args)
    # Imported after the QApplication exists: plot widgets need it.
    from gui.shell.main_window import MainWindow

    window = MainWindow()
    window.reporter.install()
    from gui.shell import first_paint

    probe = first_paint.watch(window)  # EPOCHCOST_FIRST_PAINT: how soon it shows, then quits
    window.show()
    # Ctrl+C in the terminal closes the window the normal way (the worker is reaped). Python
    # sees the signal only when it runs, so a timer lets it run now and then.
    signal.signal(signal.SIGINT, lambda *_: window.close())
    heartbeat = QTimer()
    heartbeat.timeout.connect(lambda: None)
    heartbeat.start(250)
    code = app.exec()
    del probe
    return code


if __name__ == "__main__":
    sys.exit(main())
