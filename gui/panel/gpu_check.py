"""Whether the framework environment a run would use can train on each NVIDIA GPU in the
device box: its build is read in the background (a child process, engine/process/builds.py;
the GUI never imports a framework), the rule is engine/measure/compatibility.py's. A GPU it
cannot run on is marked in the box, and choosing it says why and what to do."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox

from engine.measure.compatibility import Build, Verdict, capability, verdict
from engine.measure.devices import Device
from engine.process.builds import read_build
from engine.process.launcher import WorkerSpec
from gui.common.background import BackgroundJob, JobError, dispose


class GpuCheck(QObject):
    changed = Signal()  # a verdict for the current framework is known (or changed)

    def __init__(
        self,
        devices: list[Device],
        spec_for: Callable[[str], WorkerSpec],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.gpus = {d.id: d for d in devices if d.kind == "cuda"}
        self._spec_for = spec_for
        self._builds: dict[tuple[str, str], Build] = {}  # (framework, python) -> its build
        self._key: tuple[str, str] | None = None
        self._jobs: set[BackgroundJob] = set()
        self._closed = False  # shut down: no more reads

    def check(self, framework: str) -> None:
        """Judge the GPUs for `framework`'s environment (read once per environment), from the
        event loop: the panel asks while the window is still being built, before the part
        that knows the environments (spec_for) exists."""
        if self.gpus and framework:
            QTimer.singleShot(0, self, lambda: self._check(framework))

    def _check(self, framework: str) -> None:
        if self._closed:
            return
        spec = self._spec_for(framework)
        key = (framework, spec.python)
        if key == self._key:
            return
        self._key = key
        if key in self._builds:
            self.changed.emit()
            return
        job = BackgroundJob(lambda _emit: read_build(framework, spec), parent=self)
        job.done.connect(lambda outcome, job=job: self._done(job, key, outcome))
        self._jobs.add(job)
        job.start()

    def _done(self, job: BackgroundJob, key: tuple[str, str], outcome: object) -> None:
        self._jobs.discard(job)
        dispose(job)
        if isinstance(outcome, JobError):
            outcome = Build(key[0], python=key[1], error=outcome.message)
        if isinstance(outcome, Build):
            self._builds[key] = outcome
        if key == self._key:
            self.changed.emit()

    @property
    def build(self) -> Build | None:
        return self._builds.get(self._key) if self._key else None

    def mark(self, box: QComboBox, devices: list[Device]) -> None:
        """Mark in the device box (its items are `devices`, in order) the GPUs the framework's
        environment cannot train on: "(cannot run PyTorch ...)", the reason and the fix as
        the item's tooltip."""
        build = self.build
        for i, d in enumerate(devices):
            found = self.verdict(d.id)
            if found is None or build is None:
                continue
            text = d.label if found.ok else f"{d.label} (cannot run {build.label})"
            tip = d.detail if found.ok else f"{found.reason}. To fix: {found.remedy}"
            box.setItemText(i, text)
            box.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)

    def verdict(self, device_id: str) -> Verdict | None:
        """None while unknown (reading, or not an NVIDIA GPU)."""
        device, build = self.gpus.get(device_id), self.build
        if device is None or build is None:
            return None
        return verdict(
            build,
            device.name,
            capability(device.compute_capability),
            device.driver,
            capability(device.driver_cuda),
        )

    def shutdown(self) -> None:
        """Window close: reads still going are waited for (each has its own time limit), and
        none starts after."""
        self._closed = True
        for job in list(self._jobs):
            job.stop()
