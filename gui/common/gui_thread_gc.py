"""Python's cyclic garbage collector, run on the GUI thread only, while a window is open.

A reference cycle that holds a Qt object (a widget, a menu, an action, a model) is freed by the
collector in whichever thread happens to allocate when a collection falls due. In a background
job's thread (gui/common/background.py) or a run's engine thread, Qt then destroys the object
there: its destructor takes a lock and waits for the GIL, while the GUI thread holds the GIL and
waits for that lock, deleting an object of its own. Both threads stop for good. This was seen
in CI: a study's projection on its job thread collected a cycle, while the GUI thread, painting
the study's table, deleted a menu (tests/gui/test_accuracy_page.py). pyqtgraph's
GarbageCollector exists for the same reason.

So while a window holds a `GuiThreadCollector`, the automatic collector is off and a timer on
the GUI thread collects instead, each generation at the collector's own thresholds, checked
every INTERVAL_MS. Objects without cycles are still freed at once, by their reference counts.
The automatic collector comes back when the last holder stops or is destroyed (a window closed,
as each test's window is).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer, Slot

INTERVAL_MS = 1000  # a cycle lives at most about this long
_holders: set[int] = set()


def _release(key: int) -> None:
    if key in _holders:
        _holders.discard(key)
        if not _holders:
            gc.enable()


class GuiThreadCollector(QObject):
    """Collects on the GUI thread from the moment it is made (make it there) until `stop`."""

    def __init__(self, parent: QObject, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        key = self._key = id(self)
        if not _holders:
            gc.disable()
        _holders.add(key)
        self.destroyed.connect(lambda *_: _release(key))  # not `self`: no cycle through it
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check)
        self._timer.start()

    @Slot()
    def check(self) -> None:
        """Collect the generations whose counts passed their thresholds, youngest first."""
        counts = gc.get_count()
        for generation, threshold in enumerate(self._thresholds):
            if counts[generation] <= threshold:
                break
            gc.collect(generation)

    def stop(self) -> None:
        """Stop collecting here; the automatic collector is back once no window holds one."""
        self._timer.stop()
        _release(self._key)
