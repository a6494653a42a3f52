"""A keystroke in the panel's price: what it costs the GUI thread, with the Compare tab shown
and with the Run tab shown.

The main window at 1280x860 with one stored GTX 1080 Ti result selected (the test suite's
home run, tests/engine/price_results.py); the panel's rented price is typed `--keys` times
(0.90, 0.91, ...). For each keystroke: the task that handles it (setText: the panel's checks,
the Compare tab repriced: its rows, table and charts) and the event loop's next turn after it
(layout and paint). Prints the median and max of each, in ms. Under Xvfb:

    xvfb-run -a -s "-screen 0 1280x860x24" .venv/bin/python benchmarks/price_keystroke.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HOME_RUN = "20250101T000000-gpu00001"


def typed(app, window, keys: int) -> dict[str, float]:
    edit = window.panel.price.edit
    task, after = [], []
    for i in range(keys):
        t0 = time.perf_counter()
        edit.setText(f"0.{90 + i % 10}")
        t1 = time.perf_counter()
        app.processEvents()
        t2 = time.perf_counter()
        task.append((t1 - t0) * 1000)
        after.append((t2 - t1) * 1000)
        time.sleep(0.05)
        app.processEvents()
    return {
        "keystroke_ms_median": round(statistics.median(task), 2),
        "keystroke_ms_max": round(max(task), 2),
        "next_turn_ms_median": round(statistics.median(after), 2),
        "next_turn_ms_max": round(max(after), 2),
    }


def settle(app, seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=20)
    args = parser.parse_args()
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["EPOCHCOST_HOME"] = tempfile.mkdtemp(prefix="epochcost-bench-")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for the result
    from gui.shell.application import create_app

    app = create_app([])
    from engine.results.store import Store
    from gui.shell.main_window import MainWindow
    from tests.engine.price_results import result

    window = MainWindow()
    window.resize(1280, 860)
    window.show()
    settle(app, 2.0)
    Store().add(result(run_id=HOME_RUN, usd_per_hour=0.25))
    window.show_page("Compare")
    window.results.refresh(select=HOME_RUN)
    window.panel.price.rented_button.setChecked(True)
    settle(app, 2.0)
    shown = typed(app, window, args.keys)
    window.show_page("Run")
    settle(app, 1.0)
    hidden = typed(app, window, args.keys)
    print(
        json.dumps(
            {
                "platform": app.platformName(),
                "compare_shown": shown,
                "run_tab_shown": hidden,
                "load_average_1min": round(os.getloadavg()[0], 2),
            }
        )
    )
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
