"""The Accuracy tab's data-set folder: its two dialogs (Browse…, Download…) and fetching CIFAR-10
(engine.workloads.data.download on a BackgroundJob).

DataFolders asks for a folder and hands it to the form, remembering it as the last folder;
CifarDownload fetches into one.

The download has no cancel of its own; its progress callback raises between chunks once
stop() is asked, so closing the window never waits for 162 MB to arrive. What the user reads
comes out as one `finished(folder, message, level, details)`: folder is None unless the
files are there.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from engine.core.errors import ConfigError
from engine.workloads.data.download import download_cifar10
from gui.common import settings
from gui.common.background import BackgroundJob, JobError, dispose

if TYPE_CHECKING:
    from gui.pages.accuracy.form import AccuracyForm

MIB = float(2**20)


class DownloadCancelled(Exception):
    """Raised from the progress callback to stop the download between chunks."""


class CifarDownload(QObject):
    progress = Signal(str)  # "Downloading CIFAR-10: 12 MiB of 162 MiB"
    finished = Signal(object, str, str, str)  # folder or None, message, level, details

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job: BackgroundJob | None = None

    @property
    def running(self) -> bool:
        return self.job is not None

    def start(self, folder: Path, **source: Any) -> bool:
        """Fetch into `folder`; `source` (url, md5) replaces the official archive (tests
        serve a small one). False while a download is going."""
        if self.job is not None:
            return False
        stop = threading.Event()

        def work(emit: Any) -> Path | ConfigError:
            def progress(done: int, total: int | None) -> None:
                if stop.is_set():
                    raise DownloadCancelled
                emit((done, total))

            try:
                return download_cifar10(folder, progress=progress, **source)
            except ConfigError as exc:  # offline, corrupt, not writable: a sentence
                return exc

        self.job = BackgroundJob(work, cancel=stop.set)
        self.job.item.connect(self._on_progress)
        self.job.done.connect(self._on_done)
        self.progress.emit("Downloading CIFAR-10…")
        self.job.start()
        return True

    def stop(self, timeout_s: float) -> None:
        """Stop between chunks and wait (window close)."""
        if self.job is not None and not self.job.stop(timeout_s):
            self.job.wait()  # a read in progress times out after 30 s at worst

    def _on_progress(self, progress: tuple[int, int | None]) -> None:
        done, total = progress
        of = f" of {total / MIB:.0f} MiB" if total else ""
        self.progress.emit(f"Downloading CIFAR-10: {done / MIB:.0f} MiB{of}")

    def _on_done(self, outcome: Any) -> None:
        job, self.job = self.job, None
        dispose(job)  # `done` is its last act
        if isinstance(outcome, Path):
            self.finished.emit(outcome, f"CIFAR-10 is ready in {outcome}.", "info", "")
        elif isinstance(outcome, ConfigError):
            text = f"CIFAR-10 was not downloaded: {outcome.message}"
            self.finished.emit(None, text, "error", "")
        elif isinstance(outcome, JobError) and "DownloadCancelled" in outcome.message:
            self.finished.emit(None, "", "", "")
        else:
            message = outcome.message if isinstance(outcome, JobError) else str(outcome)
            details = outcome.details if isinstance(outcome, JobError) else ""
            self.finished.emit(None, f"CIFAR-10 was not downloaded: {message}", "error", details)


class DataFolders(QObject):
    """Browse… and Download… of the form: a folder dialog each; the folder chosen (or the one
    downloaded into) becomes the form's data set. What the user reads comes out as
    `status(text)` (the download's progress) and `message(text, level, details)`."""

    status = Signal(str)
    message = Signal(str, str, str)
    running_changed = Signal()  # a download started or ended: what may start changes

    def __init__(self, window: QWidget, form: AccuracyForm, prefs: settings.Settings) -> None:
        super().__init__(window)
        self.window = window  # the dialogs' parent
        self.form = form
        self.prefs = prefs
        self.download = CifarDownload(self)
        form.browse_requested.connect(self.browse_folder)
        form.download_requested.connect(self.download_dialog)
        self.download.progress.connect(self.status)
        self.download.finished.connect(self._on_downloaded)

    def _ask(self, title: str) -> str:
        """A folder from the dialog, remembered as the last one ("" when cancelled)."""
        folder = QFileDialog.getExistingDirectory(self.window, title, self._last_folder())
        if folder:
            self.prefs.set(settings.LAST_FOLDER, folder)
        return folder

    def _last_folder(self) -> str:
        return self.prefs.text(settings.LAST_FOLDER, str(Path.home()))

    def browse_folder(self) -> None:
        folder = self._ask("CIFAR-10 binary folder")
        if folder:
            self.form.set_folder(folder)

    def download_dialog(self) -> None:
        folder = self._ask("Download CIFAR-10 into")
        if folder:
            self.download_to(Path(folder))

    def download_to(self, folder: Path, **source: Any) -> None:
        """Fetch CIFAR-10 into `folder`; the form takes the folder once it is there."""
        if self.download.start(folder, **source):
            self.running_changed.emit()

    def _on_downloaded(self, folder: Path | None, text: str, level: str, details: str) -> None:
        self.status.emit("")
        if folder is not None:
            self.form.set_folder(str(folder))
        if text:
            self.message.emit(text, level, details)
        self.running_changed.emit()
