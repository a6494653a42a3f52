"""A chart's paint when its ranges move, as a live plot's do in a run (new ticks, new grid).

One Chart (gui/common/chart.py) at a live plot's size (630x340) with two curves of 2,000
points; 60 times its x and y ranges change and the view is painted (the event loop's turn
included), then 30 times only a curve's data changes. Prints the median and max of each, in
ms. Run it under Xvfb at 1280x860; A/B against another tree with PYTHONPATH=that tree:

    xvfb-run -a -s "-screen 0 1280x860x24" .venv/bin/python benchmarks/chart_paint.py
"""

from __future__ import annotations

import json
import os
import statistics
import time

import numpy as np


def main() -> int:
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gui.shell.application import create_app

    app = create_app([])
    from gui.common.chart import Chart, add_line

    chart = Chart("throughput", "Throughput", "samples per second")
    chart.resize(630, 340)
    first, second = add_line(chart, "window"), add_line(chart, "per step")
    t = np.linspace(0, 10, 2000)
    first.setData(t, 5000 + 300 * np.sin(t))
    second.setData(t, 4000 + 200 * np.cos(3 * t))
    chart.show()
    for _ in range(50):  # shown, laid out, painted once
        app.processEvents()
        time.sleep(0.01)
    view = chart.viewport()
    moved, same = [], []
    for i in range(60):
        chart.plot.setXRange(0, 10 + (i % 7) * 1.37, padding=0)
        chart.plot.setYRange(0, 6000 + (i % 5) * 713, padding=0)
        t0 = time.perf_counter()
        app.processEvents()
        view.repaint()
        moved.append((time.perf_counter() - t0) * 1000)
    for i in range(30):
        first.setData(t, 5000 + 300 * np.sin(t + i))
        t0 = time.perf_counter()
        app.processEvents()
        view.repaint()
        same.append((time.perf_counter() - t0) * 1000)
    print(
        json.dumps(
            {
                "platform": app.platformName(),
                "ranges_moved_ms_median": round(statistics.median(moved), 2),
                "ranges_moved_ms_max": round(max(moved), 2),
                "data_only_ms_median": round(statistics.median(same), 2),
                "data_only_ms_max": round(max(same), 2),
                "load_average_1min": round(os.getloadavg()[0], 2),
            }
        )
    )
    chart.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
