"""Activity: the one place that says whether something is measuring, and what.

A measurement needs the machine to itself: a timed run (Run tab), a sweep, an accuracy study,
and a model file's check (its worker shares the CPU) exclude each other; a cloud measurement
(Compare tab) runs elsewhere but holds the panel too: one measurement at a time, one Cancel.
Each holder says when it starts and ends; every page asks here before it starts and for the
words to say why not.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

RUN = "run"
SWEEP = "sweep"
STUDY = "study"
CHECK = "check"
CLOUD = "cloud"

# What the user is told while a holder has the machine.
WHAT = {
    RUN: "A run is going on the Run tab",
    SWEEP: "A sweep is measuring on the Sweep tab",
    STUDY: "A study is training on the Accuracy tab",
    CHECK: "A model file is being checked",
    CLOUD: "A cloud measurement is running (Compare tab)",
}
MEASUREMENTS = (RUN, SWEEP, STUDY, CLOUD)


class Activity(QObject):
    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._holders: list[str] = []  # in the order they started

    def set(self, holder: str, active: bool) -> None:
        """`holder` (RUN, SWEEP, STUDY, CHECK, CLOUD) starts or ends."""
        if holder not in WHAT:
            raise ValueError(f"unknown activity {holder!r}")
        if active == (holder in self._holders):
            return
        if active:
            self._holders.append(holder)
        else:
            self._holders.remove(holder)
        self.changed.emit()

    @property
    def measuring(self) -> bool:
        """A run, a sweep, a study or a cloud measurement is going (the panel's settings are in
        use, its Cancel stops it)."""
        return any(h in MEASUREMENTS for h in self._holders)

    def busy(self, besides: str | None = None) -> bool:
        """Whether anything other than `besides` has the machine."""
        return any(h != besides for h in self._holders)

    def reason(self, besides: str | None = None) -> str:
        """Why `besides` cannot start now ('' when it can): the first other holder's words."""
        others = [h for h in self._holders if h != besides]
        return WHAT[others[0]] if others else ""
