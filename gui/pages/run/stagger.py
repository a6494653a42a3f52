"""The live plots' redraw spread over the event loop's turns: one chart's new data a tick.

Qt repaints every widget changed since its last turn in one task. Pushing the four charts'
data at once made each frame one repaint of the whole grid (four views, 24-58 ms of the GUI
thread on the two-core box, the longest task of a run: benchmarks/RESULTS.md, issue 42).
Here each chart gets its data on a tick of its own, at the charts' count times the rate, so
every chart still redraws `hz` times a second while a frame repaints one view.

A tick waits for the last pushed chart's paint (up to PAINT_WAIT_S, and not for a chart out of
sight): Qt paints every widget changed since its last paint in one task, and a paint of one
view takes 15-25 ms here, longer than a tick; two charts pushed before one paint were painted
together, 35-60 ms (the end of a run, whose charts each take their end at a tick).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QAbstractScrollArea

PAINT_WAIT_S = 0.1  # the longest a tick waits for the last pushed chart's paint


class Staggered:
    """Pushes the charts that have new data, one per tick of `timer`, in turn; `flush` pushes
    every one that has (an export, a test). A change of every chart (a new run's axes, the
    end's figures) is spread the same way (`each`), and a run's end stops the timer once every
    chart has had its last turn (`finish`)."""

    def __init__(
        self,
        parent: QObject,
        hz: int,
        pushes: dict[str, Callable[[], None]],
        views: Mapping[str, QAbstractScrollArea] | None = None,
    ) -> None:
        self._pushes = pushes
        self._paints = _Paints(views or {}, parent)
        self._order = list(pushes)
        self._pending: set[str] = set()
        # Actions of a chart's next turn: before its push, and after it.
        self._before: dict[str, list[Callable[[str], None]]] = {}
        self._after: dict[str, list[Callable[[str], None]]] = {}
        self._next = 0
        self._finishing = False
        self.timer = QTimer(parent)
        self.timer.setInterval(max(1, round(1000 / (hz * len(pushes)))))
        self.timer.timeout.connect(self.tick)

    def start(self) -> None:
        """A run's turns begin (until `finish`)."""
        self._finishing = False
        self.timer.start()

    def finish(self) -> None:
        """The run has ended: the timer stops after the last chart with new data is pushed
        (started again for them if it had stopped: a finished run repriced)."""
        self._finishing = True
        if self._pending and not self.timer.isActive():
            self.timer.start()
        self._stop_if_done()

    @property
    def live(self) -> bool:
        """Turning for a run that has not ended."""
        return self.timer.isActive() and not self._finishing

    def mark(self, names: tuple[str, ...] | None = None) -> None:
        """New data for charts `names` (all when None)."""
        self._pending.update(self._order if names is None else names)

    def each(self, action: Callable[[str], None], after: bool = False) -> None:
        """`action(name)` for every chart, each at its own turn, just before its push (after
        it with `after`); the turns start at the first chart (the lead of the time axis)."""
        for name in self._order:
            (self._after if after else self._before).setdefault(name, []).append(action)
        self._next = 0
        self.mark()

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def tick(self) -> None:
        """The next chart in turn that has new data, if any, once the last one has painted."""
        if self._paints.awaited():
            return
        for _ in self._order:
            name = self._order[self._next]
            self._next = (self._next + 1) % len(self._order)
            if name in self._pending:
                self._push(name)
                break
        self._stop_if_done()

    def flush(self) -> None:
        for name in self._order:
            if name in self._pending:
                self._push(name)
        self._stop_if_done()

    def _push(self, name: str) -> None:
        self._pending.discard(name)
        self._paints.expect(name)
        for action in self._before.pop(name, []):
            action(name)
        self._pushes[name]()
        for action in self._after.pop(name, []):
            action(name)

    def _stop_if_done(self) -> None:
        if self._finishing and not self._pending:
            self.timer.stop()


class _Paints(QObject):
    """The paint Staggered waits for: that of the chart pushed last (its view's viewport)."""

    def __init__(self, views: Mapping[str, QAbstractScrollArea], parent: QObject) -> None:
        super().__init__(parent)
        self._views = views
        self._names = {view.viewport(): name for name, view in views.items()}
        self._waiting: str | None = None
        self._since = 0.0
        for viewport in self._names:
            viewport.installEventFilter(self)

    def expect(self, name: str) -> None:
        self._waiting, self._since = name, time.monotonic()

    def awaited(self) -> bool:
        """Whether the chart pushed last, in sight, has not painted yet (within PAINT_WAIT_S)."""
        name = self._waiting
        if name is None or name not in self._views or not self._views[name].isVisible():
            return False
        return time.monotonic() - self._since < PAINT_WAIT_S

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self._names.get(watched) == self._waiting:
            self._waiting = None
        return False
