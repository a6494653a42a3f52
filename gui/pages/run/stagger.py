"""The live plots' redraw spread over the event loop's turns: one chart's new data a tick.

Qt repaints every widget changed since its last turn in one task. Pushing the four charts'
data at once made each frame one repaint of the whole grid (four views, 24-58 ms of the GUI
thread on the two-core box, the longest task of a run: benchmarks/RESULTS.md, issue 42).
Here each chart gets its data on a tick of its own, at the charts' count times the rate, so
every chart still redraws `hz` times a second while a frame repaints one view.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer


class Staggered:
    """Pushes the charts that have new data, one per tick of `timer`, in turn; `flush` pushes
    every one that has (the run's end, a test). A change of every chart (a new run's axes)
    is spread the same way (`each`)."""

    def __init__(self, parent: QObject, hz: int, pushes: dict[str, Callable[[], None]]) -> None:
        self._pushes = pushes
        self._order = list(pushes)
        self._pending: set[str] = set()
        self._first: dict[str, list[Callable[[str], None]]] = {}  # before a chart's next push
        self._next = 0
        self.timer = QTimer(parent)
        self.timer.setInterval(max(1, round(1000 / (hz * len(pushes)))))
        self.timer.timeout.connect(self.tick)

    def mark(self, names: tuple[str, ...] | None = None) -> None:
        """New data for charts `names` (all when None)."""
        self._pending.update(self._order if names is None else names)

    def each(self, action: Callable[[str], None]) -> None:
        """`action(name)` for every chart, each at its own turn, just before its push."""
        for name in self._order:
            self._first.setdefault(name, []).append(action)
        self.mark()

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def tick(self) -> None:
        """The next chart in turn that has new data, if any."""
        for _ in self._order:
            name = self._order[self._next]
            self._next = (self._next + 1) % len(self._order)
            if name in self._pending:
                self._push(name)
                return

    def flush(self) -> None:
        for name in self._order:
            if name in self._pending:
                self._push(name)

    def _push(self, name: str) -> None:
        self._pending.discard(name)
        for action in self._first.pop(name, []):
            action(name)
        self._pushes[name]()
