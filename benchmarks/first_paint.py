"""Launch to first paint: seconds from starting a process to its main window's first paint done,
for two trees of the code (an old one, a git worktree, and this one) and a bare PySide6 window,
one launch of each in turn, so that the machine's load falls on all alike. For a tree whose Run
tab builds its plots after the first paint, also the seconds to the plots built.

    git worktree add /tmp/old HEAD
    xvfb-run -a -s "-screen 0 1280x860x24" .venv/bin/python benchmarks/first_paint.py \\
        --old /tmp/old [--launches 10]

Each launch has a fresh data folder. Without a display it draws offscreen. Figures are printed
(one JSON object), never asserted. The app's own probe is EPOCHCOST_FIRST_PAINT=1
(gui/shell/first_paint.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# As gui/app.py's run_window starts the window. argv: the launch's wall-clock time.
APP_CODE = """
import json, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from gui.shell.application import create_app
app = create_app([])
from gui.shell.main_window import MainWindow
w = MainWindow()
launched = float(sys.argv[1])
out = {}
def done():
    print(json.dumps(out), flush=True)
    w.close()
    app.quit()
def plots():
    out["plots_s"] = time.time() - launched
    done()
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not out:
            out["pyqtgraph"] = "pyqtgraph" in sys.modules
            def painted():
                out["paint_s"] = time.time() - launched
                if "pyqtgraph" not in sys.modules:  # the plots come after
                    w.run_page.plots_built.connect(lambda: QTimer.singleShot(0, plots))
                else:
                    done()
            QTimer.singleShot(0, painted)
        return False
f = FirstPaint()
w.installEventFilter(f)
w.show()
app.exec()
"""

BARE_CODE = """
import json, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow
app = QApplication([])
w = QMainWindow()
w.setCentralWidget(QLabel("bare"))
w.resize(1280, 860)
launched = float(sys.argv[1])
class FirstPaint(QObject):
    seen = False
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not self.seen:
            self.seen = True
            out = json.dumps({"paint_s": time.time() - launched})
            QTimer.singleShot(0, lambda: (print(out), app.quit()))
        return False
f = FirstPaint()
w.installEventFilter(f)
w.show()
app.exec()
"""


def launch(code: str, tree: Path) -> dict[str, float]:
    env = {**os.environ, "EPOCHCOST_HOME": tempfile.mkdtemp(prefix="epochcost-paint-")}
    env["PYTHONPATH"] = str(tree)
    launched = time.time()
    done = subprocess.run(
        [sys.executable, "-c", code, repr(launched)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(values: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), 3),
        "min": round(min(values), 3),
        "max": round(max(values), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", type=Path, help="a worktree of the code to compare with")
    parser.add_argument("--launches", type=int, default=10)
    args = parser.parse_args()
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    kinds = {"new": (APP_CODE, ROOT), "bare": (BARE_CODE, ROOT)}
    if args.old is not None:
        kinds = {"old": (APP_CODE, args.old.resolve()), **kinds}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in kinds}
    load_before = os.getloadavg()[0]
    for _ in range(args.launches):
        for name, (code, tree) in kinds.items():
            runs[name].append(launch(code, tree))
    report: dict[str, object] = {
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "cpu_count": os.cpu_count(),
    }
    for name, got in runs.items():
        paints = [r["paint_s"] for r in got]
        entry: dict[str, object] = {"paint_s": [round(x, 3) for x in paints], **summary(paints)}
        plots = [r["plots_s"] for r in got if "plots_s" in r]
        if plots:
            entry["plots_s"] = summary(plots)
        entry["pyqtgraph_at_first_paint"] = sorted({bool(r.get("pyqtgraph")) for r in got})
        report[name] = entry
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
