"""The model box of the configuration panel: the built-in workloads, then the user's own model
files, with "Add model file..." and "Remove".

A file is checked in a worker process before it is listed (engine/process/model_check.py: loaded,
built and stepped once on the CPU, with a time limit), so the GUI never imports the user's
code and a broken file ends in a message naming the line, never in a crash. Files that pass
are remembered across restarts (gui/panel/model_files.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.measure.config import RunConfig
from engine.process.launcher import WorkerSpec
from engine.process.model_check import ModelCheck, ModelFileCheck
from engine.workloads import registry
from engine.workloads.model_file_source import guess_framework
from gui.common import settings
from gui.common.background import BackgroundJob, JobError, dispose
from gui.panel import model_files
from gui.panel.model_files import ModelFile

ADD_TEXT = "Add model file…"
CANCEL_TEXT = "Cancel check"


def failure_text(check: ModelCheck) -> str:
    """What the user reads when a file is refused: the file, what is wrong, and where."""
    name, message, where = Path(check.path).name, check.message, ""
    if check.line is not None:
        message = message.removeprefix(f"{name}, line {check.line}: ")  # said once, below
        where = f" (line {check.line}" + (f": {check.code.strip()}" if check.code else "") + ")"
    return f"{name} cannot be used: {message}{where}"


class ModelPicker(QWidget):
    """`combo` holds the choice: a built-in's name, or FILE_PREFIX + path for a file."""

    files_changed = Signal()
    message = Signal(str, str, str)  # text, level (info | error), details
    checking_changed = Signal(bool)  # a check's worker started or ended

    def __init__(
        self,
        prefs: settings.Settings | None = None,
        spec_for: Callable[[str], WorkerSpec] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.prefs = prefs
        self.spec_for = spec_for or (lambda framework: WorkerSpec())
        self.files: list[ModelFile] = model_files.load(prefs) if prefs is not None else []
        self.job: BackgroundJob | None = None

        self.combo = QComboBox(objectName="model")
        self.combo.setToolTip("The model to measure: a built-in one or your own model file")
        self.combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.combo.setMinimumContentsLength(16)
        self.add_button = QPushButton(ADD_TEXT, objectName="add_model_file")
        self.add_button.setToolTip(
            "A Python file that builds your PyTorch or Keras model (docs/own-model.md); "
            "it is checked in a worker process before it is listed"
        )
        self.remove_button = QPushButton("Remove", objectName="remove_model_file")
        self.remove_button.setToolTip("Take this file off the list (the file itself stays)")
        # The buttons under the box, so the panel stays as narrow as its other fields.
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.combo)
        column.addLayout(buttons)

        self._fill()
        self.combo.currentIndexChanged.connect(self._update_buttons)
        self.add_button.clicked.connect(self._add_or_cancel)
        self.remove_button.clicked.connect(self.remove_current)
        self._update_buttons()

    # The list --------------------------------------------------------------------------

    def _fill(self) -> None:
        current = self.combo.currentData()
        self.combo.blockSignals(True)
        self.combo.clear()
        for w in registry.WORKLOADS:
            self.combo.addItem(w.name, w.name)
            self.combo.setItemData(
                self.combo.count() - 1, w.description, Qt.ItemDataRole.ToolTipRole
            )
        if self.files:
            self.combo.insertSeparator(self.combo.count())
        for f in self.files:
            self.combo.addItem(f"{f.name} (file)", f.key)
            self.combo.setItemData(self.combo.count() - 1, f.path, Qt.ItemDataRole.ToolTipRole)
        # findData(None) would match the separator (it has no data either).
        index = self.combo.findData(current) if current is not None else -1
        self.combo.setCurrentIndex(max(0, index))
        self.combo.blockSignals(False)
        if index < 0:
            self.combo.currentIndexChanged.emit(self.combo.currentIndex())

    def current_file(self) -> ModelFile | None:
        """The chosen model file, or None for a built-in workload."""
        key = self.combo.currentData()
        return next((f for f in self.files if f.key == key), None)

    def select(self, key: str) -> bool:
        index = self.combo.findData(key)
        if index >= 0:
            self.combo.setCurrentIndex(index)
        return index >= 0

    def remember(self, entry: ModelFile) -> None:
        """List (or update) a checked file, choose it, and keep it for the next session."""
        self.files = [f for f in self.files if f.path != entry.path] + [entry]
        self._fill()
        self.select(entry.key)
        self._save()

    def remove_current(self) -> None:
        entry = self.current_file()
        if entry is None:
            return
        self.files = [f for f in self.files if f.path != entry.path]
        self.select(RunConfig().model)  # the default, rather than whichever is first
        self._fill()
        self._save()
        self.message.emit(
            f"Removed {entry.name} from the list ({entry.path} is untouched).", "info", ""
        )

    def _save(self) -> None:
        if self.prefs is not None:
            model_files.save(self.prefs, self.files)
        self.files_changed.emit()

    # The check -------------------------------------------------------------------------

    @property
    def checking(self) -> bool:
        return self.job is not None

    def _add_or_cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
            return
        folder = self.prefs.text(settings.LAST_FOLDER, str(Path.home())) if self.prefs else ""
        path, _ = QFileDialog.getOpenFileName(
            self, "Add a model file", folder, "Python files (*.py);;All files (*)"
        )
        if path:
            if self.prefs is not None:
                self.prefs.set(settings.LAST_FOLDER, str(Path(path).parent))
            self.add_file(path)

    def add_file(self, path: str) -> bool:
        """Check `path` in a worker; it is listed when it passes. False if a check is going."""
        if self.job is not None:
            return False
        framework = guess_framework(path) if Path(path).is_file() else None
        check = ModelFileCheck(path, framework, spec=self.spec_for(framework or "torch"))
        job = BackgroundJob(lambda emit: check.run(), cancel=check.cancel, parent=self)
        job.done.connect(self._checked)
        self.job = job
        self._set_checking(True)
        self.message.emit(
            f"Checking {Path(path).name} in a worker (load, build, one step on the CPU)…",
            "info",
            "",
        )
        job.start()
        return True

    def _checked(self, outcome: object) -> None:
        job, self.job = self.job, None
        dispose(job)
        self._set_checking(False)
        if isinstance(outcome, JobError):
            self.message.emit(f"The check failed: {outcome.message}", "error", outcome.details)
            return
        assert isinstance(outcome, ModelCheck)
        if outcome.kind == "cancelled":
            self.message.emit("The model file check was cancelled.", "info", "")
        elif not outcome.ok:
            details = outcome.traceback or "\n".join(outcome.stderr_tail)
            self.message.emit(failure_text(outcome), "error", details)
        else:
            assert outcome.info is not None
            entry = ModelFile.from_dict(outcome.info)
            self.remember(entry)
            self.message.emit(f"Added {entry.name}: {entry.describe()}", "info", "")

    def _set_checking(self, checking: bool) -> None:
        self.add_button.setText(CANCEL_TEXT if checking else ADD_TEXT)
        self._update_buttons()
        self.checking_changed.emit(checking)

    def _update_buttons(self) -> None:
        self.remove_button.setEnabled(self.current_file() is not None and self.job is None)

    def shutdown(self) -> None:
        """Window close: a check still going is cancelled and waited for."""
        if self.job is not None:
            self.job.stop()
