"""Following a study (engine/study) on the terminal, for any axis: one line per point on
stderr, a step bar for the running point on a terminal, Ctrl-C keeping the finished points;
then the table or one JSON summary on stdout, and the exit code."""

from __future__ import annotations

import sys
import time

from engine.cli import interrupts
from engine.cli.common import EXIT_INTERRUPTED, EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE, option_name
from engine.cli.output import Progress, print_json
from engine.core.events import Phase, Step
from engine.core.placeholders import worded, worded_data
from engine.study import report
from engine.study.events import PointFinished, PointProgress, PointStarted, StudyEvent
from engine.study.study import Study
from engine.study.summary import StudySummary


def follow(study: Study) -> StudySummary:
    """Run `study` to its end (or Ctrl-C, SIGTERM, SIGHUP), saying each point as it ends.
    Interrupted, the running point's worker stops and an axis that changed the machine (a GPU's
    power limit) restores it before the summary is made."""
    events = study.events()
    lines = _Lines(study)
    # Within the block a second signal is ignored: the close (the worker's end, the limit's
    # restore) is not cut short by it.
    with interrupts.as_interrupt():
        try:
            for event in events:
                lines(event)
        except KeyboardInterrupt as stop:
            study.cancel()
            events.close()
            lines.done()
            said = stop.name if isinstance(stop, interrupts.Stopped) else "Ctrl-C"
            print(f"epochcost: interrupted ({said}); keeping the finished points", file=sys.stderr)
    return study.summary()


class _Lines:
    """A line per point on stderr as it ends; a step bar for the running one on a terminal."""

    def __init__(self, study: Study) -> None:
        self.axis = study.axis
        self.t0 = time.monotonic()
        self.bar: Progress | None = None

    def __call__(self, event: StudyEvent) -> None:
        if isinstance(event, PointStarted) and sys.stderr.isatty():
            self.bar = Progress(label=f"{self.axis.label} {self.axis.show(event.value)}")
        elif isinstance(event, PointProgress) and self.bar is not None:
            if isinstance(event.event, Phase):
                self.bar.phase = event.event.phase
                self.bar.expected = event.event.expected_steps or 0
            elif isinstance(event.event, Step):
                self.bar(event.event)
        elif isinstance(event, PointFinished) and event.point is not None:
            self.done()
            p = event.point
            rate = p.figure("throughput_samples_per_s")
            what = f"{rate:,.1f} samples/s" if p.ok and rate else f"{p.status}: {p.message}"
            stamp = f"[{time.monotonic() - self.t0:7.1f}s]"
            name = f"{self.axis.label} {self.axis.show(p.value)}"
            print(f"{stamp} {name}: {what}", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.bar is not None:
            self.bar.done()
            self.bar = None


def finish(study: Study, summary: StudySummary, as_json: bool) -> int:
    """Print the summary and return the exit code: 0 a point measured, 2 a config mistake,
    3 nothing measured or a result not stored, 130 interrupted."""
    if as_json:
        print_json(worded_data(summary.to_dict(), option_name))
    else:
        print(worded(report.text(summary), option_name))
    for problem in study.unstored:
        print(f"epochcost: error: {problem}", file=sys.stderr)
    if summary.error and summary.error["kind"] == "machine":  # a power limit not restored
        print(f"epochcost: error: {summary.error['message']}", file=sys.stderr)
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
