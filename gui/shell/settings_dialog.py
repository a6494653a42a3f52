"""File > Settings: the Python interpreter that runs each framework's workers.

Every run starts a worker process; by default it is this app's own Python (in the desktop
bundle, the app's executable, which carries PyTorch but not TensorFlow). A framework can be
pointed at another environment (the user's TensorFlow env, a conda env with another CUDA). Each
choice is checked in the background (engine.process.interpreter: can it import the engine and the
framework?) and the answer shows under it in plain words; OK waits for the checks to pass.

"Make environment…" beside each framework makes the environment this machine's GPU and driver
need (engine/envs/: `epochcost env create`), after asking (gui/shell/environment_ask.py: what it
read, what it installs and why, about how many GB, where), with its progress under the button;
a second click cancels it and leaves nothing half-made (the installer's cache keeps what it
downloaded: the status says where, and how large). On success its Python fills the field.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.envs.choice import Choice, Machine, choose
from engine.envs.create import Created, create, default_name, envs_home
from engine.envs.installer import Progress, find_uv
from engine.envs.machine import read_machine
from engine.measure.compatibility import LABELS
from engine.process.interpreter import FRAMEWORK_MODULES, InterpreterCheck, check_interpreter
from gui.common.background import BackgroundJob, JobError, dispose
from gui.common.field_error import ERROR_STYLE
from gui.panel.environment_offer import make_text
from gui.shell.environment_ask import Cache, MakeQuestion, download_gb, installer_cache

MAKE_TEXT = {f: make_text(f) for f in LABELS}
OK_STYLE = "color: #3a8f3a;"
CANCELLED = "Cancelled: the environment's folder is removed."


class SettingsDialog(QDialog):
    def __init__(self, interpreters: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setMinimumWidth(620)
        self.edits: dict[str, QLineEdit] = {}
        self.status: dict[str, QLabel] = {}
        self.verdicts: dict[str, InterpreterCheck | None] = {}
        self._checked_text: dict[str, str] = {}
        self._current: dict[str, BackgroundJob] = {}
        self._jobs: dict[BackgroundJob, str] = {}  # every check still running -> its framework

        intro = QLabel(
            "Each run trains in a worker process of its own. Choose the Python environment "
            "that runs each framework's workers; leave it empty for this app's own.",
            wordWrap=True,
        )
        grid = QGridLayout()
        for row, framework in enumerate(FRAMEWORK_MODULES):
            edit = QLineEdit(interpreters.get(framework, ""), objectName=f"python_{framework}")
            edit.setPlaceholderText("this app's own Python")
            browse = QPushButton("Browse…", objectName=f"browse_{framework}")
            status = QLabel(wordWrap=True, objectName=f"status_{framework}")
            grid.addWidget(QLabel(LABELS[framework]), 2 * row, 0)
            grid.addWidget(edit, 2 * row, 1)
            grid.addWidget(browse, 2 * row, 2)
            grid.addWidget(status, 2 * row + 1, 1, 1, 2)
            self.edits[framework], self.status[framework] = edit, status
            edit.editingFinished.connect(lambda f=framework: self.check(f))
            browse.clicked.connect(lambda _=False, f=framework: self._browse(f))
        self.make_env: dict[str, QPushButton] = {}
        self.make_env_status: dict[str, QLabel] = {}
        self._env_jobs: dict[str, BackgroundJob] = {}  # reading the GPU, or making it
        self._shut = False  # shutdown() was called: no new job starts
        self._side_jobs: list[BackgroundJob] = []  # measuring the installer's cache
        self.asking: dict[str, MakeQuestion] = {}  # the question before making, while open
        row = 2 * len(FRAMEWORK_MODULES)
        for offset, framework in enumerate(FRAMEWORK_MODULES):
            button = QPushButton(MAKE_TEXT[framework], objectName=f"make_env_{framework}")
            button.setToolTip(
                f"Reads this machine's GPU and driver, picks the {LABELS[framework]} build they "
                "need, makes an environment for it under the data folder (uv or pip; a download "
                "of up to a few GB) and sets it here (as `epochcost env create` does)."
            )
            status = QLabel(wordWrap=True, objectName=f"make_env_status_{framework}")
            button.clicked.connect(lambda _=False, f=framework: self.make_environment(f))
            grid.addWidget(button, row + 2 * offset, 1, 1, 2)
            grid.addWidget(status, row + 2 * offset + 1, 1, 1, 2)
            self.make_env[framework], self.make_env_status[framework] = button, status
        group = QGroupBox("Python for the workers")
        group.setLayout(grid)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(group)
        layout.addWidget(self.buttons)
        for framework in FRAMEWORK_MODULES:
            self.check(framework)

    def interpreters(self) -> dict[str, str]:
        """The chosen interpreter per framework; frameworks left empty are absent."""
        return {f: e.text().strip() for f, e in self.edits.items() if e.text().strip()}

    @property
    def checking(self) -> bool:
        return bool(self._current)

    def check(self, framework: str) -> None:
        """Check the framework's field (again, if its text changed) in the background."""
        text = self.edits[framework].text().strip()
        if self._checked_text.get(framework) == text:
            return
        self._checked_text[framework] = text
        stale = self._current.pop(framework, None)
        if stale is not None:
            stale.cancel()
        if not text:
            self.verdicts[framework] = None
            self._show(framework, _own_python(framework))
            return
        self.verdicts[framework] = None
        self._show(framework, f"Checking {text} …")
        cancel = threading.Event()
        job = BackgroundJob(
            lambda _emit: check_interpreter(text, framework, cancel=cancel),
            cancel=cancel.set,
            parent=self,
        )
        # A bound slot of this GUI-thread object: the verdict arrives queued on the GUI thread.
        job.done.connect(self._checked)
        self._current[framework] = job
        self._jobs[job] = framework
        job.start()
        self._update_ok()

    @Slot(object)
    def _checked(self, outcome: object) -> None:
        job = self.sender()
        if not isinstance(job, BackgroundJob) or job not in self._jobs:
            return
        framework = self._jobs.pop(job)
        dispose(job)
        if self._current.get(framework) is not job:
            return  # the field changed while it ran
        del self._current[framework]
        if isinstance(outcome, InterpreterCheck):
            self.verdicts[framework] = outcome
            self._show(framework, outcome.message, OK_STYLE if outcome.ok else ERROR_STYLE)
        else:
            text = outcome.message if isinstance(outcome, JobError) else str(outcome)
            self._show(framework, f"The check failed: {text}", ERROR_STYLE)
        self._update_ok()

    def _show(self, framework: str, text: str, style: str = "") -> None:
        self.status[framework].setText(text)
        self.status[framework].setStyleSheet(style)
        self._update_ok()

    def _update_ok(self) -> None:
        bad = [f for f, edit in self.edits.items() if edit.text().strip() and not self._passed(f)]
        button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        button.setEnabled(not bad and not self.checking)
        button.setToolTip(
            "" if not bad else f"Fix or clear the Python for {', '.join(LABELS[f] for f in bad)}"
        )

    def _passed(self, framework: str) -> bool:
        verdict = self.verdicts.get(framework)
        return verdict is not None and verdict.ok

    def _browse(self, framework: str) -> None:
        current = self.edits[framework].text().strip()
        start = str(Path(current).parent) if current else str(Path.home())
        chosen, _ = QFileDialog.getOpenFileName(
            self, f"Python for {LABELS[framework]} workers", start
        )
        if chosen:
            self.edits[framework].setText(chosen)
            self.check(framework)

    def make_environment(self, framework: str) -> None:
        """Read the GPU and driver and pick the build (in the background), ask first
        (gui/shell/environment_ask.py: what it read, what it installs from where and why,
        about how many GB, where), then make it in the background, its progress under the
        button; on success its Python fills the field (checked again, kept on OK). A second
        click cancels."""
        if framework in self._env_jobs:
            self._env_jobs[framework].cancel()
            return
        if framework in self.asking:
            self.asking[framework].open()
            return

        def read(_emit: Callable[[object], None]) -> tuple[Machine, Choice]:
            machine = read_machine()
            return machine, choose(framework, machine)

        self._start(framework, read, self._read, "Reading the GPU and driver …")

    def _start(
        self,
        framework: str,
        work: Callable[[Callable[[object], None]], object],
        then: Callable[[str, object, bool], None],
        says: str,
        cancel: threading.Event | None = None,
    ) -> None:
        if self._shut:
            return
        job = BackgroundJob(work, cancel=None if cancel is None else cancel.set, parent=self)
        status = self.make_env_status[framework]
        job.item.connect(lambda line: status.setText(str(line)))
        job.done.connect(lambda outcome, f=framework: self._ended(f, outcome, then))
        self._env_jobs[framework] = job
        self.make_env[framework].setText("Cancel making the environment")
        status.setText(says)
        status.setStyleSheet("")
        job.start()

    def _ended(
        self, framework: str, outcome: object, then: Callable[[str, object, bool], None]
    ) -> None:
        job = self._env_jobs.pop(framework, None)
        dispose(job)
        self.make_env[framework].setText(MAKE_TEXT[framework])
        then(framework, outcome, job is not None and job.cancelled)

    def _read(self, framework: str, outcome: object, cancelled: bool) -> None:
        if self._shut:
            return  # closed while the GPU was read: no question after
        status = self.make_env_status[framework]
        if cancelled or not isinstance(outcome, tuple):
            text = outcome.message if isinstance(outcome, JobError) else str(outcome)
            status.setText("Not made." if cancelled else f"The GPU could not be read: {text}")
            status.setStyleSheet("" if cancelled else ERROR_STYLE)
            return
        machine, choice = outcome
        target = envs_home() / default_name(choice)
        question = MakeQuestion(framework, choice, machine, target, self)
        question.finished.connect(lambda _r, f=framework, c=choice: self._answered(f, c))
        self.asking[framework] = question
        status.setText(f"Asking first: {choice.label}, about {download_gb(choice):g} GB …")
        question.open()

    def _answered(self, framework: str, choice: Choice) -> None:
        question = self.asking.pop(framework)
        question.deleteLater()
        if question.clickedButton() is not question.make:
            self.make_env_status[framework].setText("Not made: nothing was downloaded.")
            return
        cancel = threading.Event()

        def work(emit: Callable[[object], None]) -> Created:
            emit(f"Installing {choice.label} …")
            return create(
                choice,
                progress=lambda done: emit(_progress_text(done)),
                say=emit,
                cancel=cancel,
                register=False,  # the field decides, on OK
            )

        self._start(framework, work, self._env_made, f"Installing {choice.label} …", cancel)

    def _env_made(self, framework: str, outcome: object, cancelled: bool) -> None:
        status = self.make_env_status[framework]
        if isinstance(outcome, Created):
            self.edits[framework].setText(str(outcome.python))
            self.check(framework)
            verb = "Kept" if outcome.kept else "Made"
            status.setText(f"{verb} {outcome.choice.label}: {outcome.python}")
            status.setStyleSheet(OK_STYLE)
        elif cancelled:
            status.setText(CANCELLED)
            status.setStyleSheet("")
            self._tell_cache(framework)
        else:
            text = outcome.message if isinstance(outcome, JobError) else str(outcome)
            status.setText(f"It failed; nothing was left behind: {text}")
            status.setStyleSheet(ERROR_STYLE)

    def _tell_cache(self, framework: str) -> None:
        """After a cancel: where the installer keeps what it downloaded, and how large."""
        if self._shut:
            return
        job = BackgroundJob(lambda _emit: installer_cache(find_uv()), parent=self)
        status = self.make_env_status[framework]

        def told(cache: object) -> None:
            self._side_jobs.remove(job)
            dispose(job)
            if isinstance(cache, Cache) and status.text() == CANCELLED:
                status.setText(cache.cancelled_text())

        job.done.connect(told)
        self._side_jobs.append(job)
        job.start()

    def shutdown(self) -> None:
        """Stop every check and wait for it (the dialog or the window closes); nothing new
        starts after (a cancelled environment's cache is not looked at then)."""
        self._shut = True
        for job in list(self._jobs):
            job.stop()
        for job in [*self._env_jobs.values(), *self._side_jobs]:
            job.stop()
        for question in list(self.asking.values()):
            question.close()

    def done(self, result: int) -> None:
        self.shutdown()
        super().done(result)


def _progress_text(done: Progress) -> str:
    return (
        f"{done.packages} packages, {done.downloaded_bytes / 1e6:,.0f} MB downloaded: {done.line}"
    )


def _own_python(framework: str) -> str:
    module = FRAMEWORK_MODULES[framework]
    if importlib.util.find_spec(module) is not None:
        return f"This app's own Python, which has {module}."
    return (
        f"This app's own Python has no {module}: choose the Python of an environment that has "
        f"it to run {LABELS[framework]} models."
    )
