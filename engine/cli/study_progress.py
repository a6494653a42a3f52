"""Following a study (engine/study) on the terminal, for any axis: one line per point on
stderr, a step bar for the running point on a terminal, Ctrl-C keeping the finished points;
then the table or one JSON summary on stdout, and the exit code."""

from __future__ import annotations

import sys
import time

from engine.cli.common import EXIT_INTERRUPTED, EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE, option_name
from engine.cli.output import Progress, print_json
from engine.core.events import Phase, Step
from engine.core.placeholders import worded, worded_data
from engine.study import report
from engine.study.events import PointFinished, PointProgress, PointStarted
from engine.study.study import Study
from engine.study.summary import StudySummary


def follow(study: Study) -> StudySummary:
    """Run `study` to its end (or Ctrl-C), saying each point as it ends."""
    t0 = time.monotonic()
    bar: Progress | None = None
    events = study.events()
    try:
        for event in events:
            if isinstance(event, PointStarted) and sys.stderr.isatty():
                bar = Progress(label=f"{study.axis.label} {study.axis.show(event.value)}")
            elif isinstance(event, PointProgress) and bar is not None:
                if isinstance(event.event, Phase):
                    bar.phase, bar.expected = event.event.phase, event.event.expected_steps or 0
                elif isinstance(event.event, Step):
                    bar(event.event)
            elif isinstance(event, PointFinished) and event.point is not None:
                if bar is not None:
                    bar.done()
                    bar = None
                p = event.point
                rate = p.figure("throughput_samples_per_s")
                what = f"{rate:,.1f} samples/s" if p.ok and rate else f"{p.status}: {p.message}"
                stamp = f"[{time.monotonic() - t0:7.1f}s]"
                name = f"{study.axis.label} {study.axis.show(p.value)}"
                print(f"{stamp} {name}: {what}", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        study.cancel()
        events.close()  # the running point's worker ends, and its axis restores the machine
        if bar is not None:
            bar.done()
        print("epochcost: interrupted; keeping the finished points", file=sys.stderr)
    return study.summary()


def finish(study: Study, summary: StudySummary, as_json: bool) -> int:
    """Print the summary and return the exit code: 0 a point measured, 2 a config mistake,
    3 nothing measured or a result not stored, 130 interrupted."""
    if as_json:
        print_json(worded_data(summary.to_dict(), option_name))
    else:
        print(worded(report.text(summary), option_name))
    for problem in study.unstored:
        print(f"epochcost: error: {problem}", file=sys.stderr)
    if summary.status == "cancelled":
        return EXIT_INTERRUPTED
    if summary.error and summary.error["kind"] == "config":
        print(f"epochcost: error: {summary.error['message']}", file=sys.stderr)
        return EXIT_USAGE
    if summary.error:
        print(f"epochcost: error: {summary.error['message']}", file=sys.stderr)
    if not summary.measured or study.unstored or summary.error:
        return EXIT_RUN_FAILED
    return EXIT_OK
