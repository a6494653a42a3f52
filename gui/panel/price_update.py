"""The catalog dialog's "Update prices": today's instance prices from SkyPilot's catalog, online
(its hosted files, one cloud at a time) or from a folder in its layout (`<cloud>/vms.csv`,
offline), as `epochcost catalog update [--from DIR]` does (engine/cloud/prices.py).

The update runs on a BackgroundJob with a progress bar per cloud; then the catalog reloads
(every tab that shows a price follows it) and each updated price carries its new date. What
went wrong is one line beside the button, never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QProgressBar,
    QToolButton,
    QWidget,
)

from engine.core.errors import ConfigError
from gui.common.background import BackgroundJob, JobError, dispose
from gui.common.catalog_source import CatalogSource
from gui.common.field_error import ERROR_STYLE

ONLINE = "From SkyPilot's catalog (online)"
FROM_FOLDER = "From a folder (SkyPilot's <cloud>/vms.csv)…"


def updated_text(reports: list[Any]) -> str:
    """One line for what the update did: each cloud's prices, their date and what changed."""
    from engine.pricing.catalog import price_note

    parts = []
    for r in reports:
        note = price_note(r.as_of)
        age = f", {note}" if note else ""
        parts.append(f"{r.cloud}: {r.updated} prices dated {r.as_of}{age} ({r.changed} changed)")
    return "Prices updated. " + "; ".join(parts) + "."


class PriceUpdate(QWidget):
    """The button, its progress and its line; `updated` once the catalog has reloaded."""

    updated = Signal()

    def __init__(self, source: CatalogSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source = source
        self.job: BackgroundJob | None = None
        self.button = QToolButton(objectName="update_prices")
        self.button.setText("Update prices")
        self.button.setToolTip(
            "Today's instance prices from SkyPilot's catalog, each dated the day it was "
            "fetched; the shipped prices stay the fallback"
        )
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.button)
        menu.addAction(ONLINE, self.update_online)
        menu.addAction(FROM_FOLDER, self.choose_folder)
        self.button.setMenu(menu)
        self.progress = QProgressBar(objectName="update_progress")
        self.progress.setFixedWidth(180)
        self.progress.hide()
        self.status = QLabel(objectName="update_status", wordWrap=True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.progress)
        layout.addWidget(self.status, 1)

    @property
    def running(self) -> bool:
        return self.job is not None

    def clouds(self) -> list[str]:
        """The clouds whose prices the catalog ships (your own quotes are not fetched)."""
        cat = self.source.get()
        return sorted({i.cloud for i in cat.instances if not i.historical and i.origin != "user"})

    def update_online(self) -> bool:
        """Fetch each cloud's file from SkyPilot's hosted catalog (needs SkyPilot)."""
        from engine.cloud.skypilot import cloud_python

        try:
            cloud_python()
        except ConfigError as exc:
            self._say(f"Prices not updated: {exc.message}", error=True)
            return False
        clouds = self.clouds()
        return self._start(lambda emit: _online(clouds, emit), len(clouds))

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "A folder of SkyPilot's catalog files (<cloud>/vms.csv)", str(Path.home())
        )
        if folder:
            self.update_from_folder(Path(folder))

    def update_from_folder(self, folder: Path) -> bool:
        """Read `folder`/<cloud>/vms.csv, dated by each file's modification date (offline)."""
        return self._start(lambda emit: _from_folder(folder, emit), 0)

    def _start(self, work: Any, clouds: int) -> bool:
        if self.job is not None:
            return False
        self.button.setEnabled(False)
        self.progress.setRange(0, clouds)  # 0: busy, a folder is read at once
        self.progress.setValue(0)
        self.progress.setFormat("%v of %m clouds")
        self.progress.show()
        self._say("Updating prices…")
        self.job = BackgroundJob(work)
        self.job.item.connect(self._on_progress)
        self.job.done.connect(self._on_done)
        self.job.start()
        return True

    def _on_progress(self, item: tuple[int, str]) -> None:
        done, cloud = item
        self.progress.setValue(done)
        self._say(f"Fetching {cloud}'s prices…")

    def _on_done(self, outcome: Any) -> None:
        job, self.job = self.job, None
        dispose(job)
        self.progress.hide()
        self.button.setEnabled(True)
        if isinstance(outcome, JobError):  # an engine fault: still one line (the log has more)
            self._say(f"Prices not updated: {outcome.message}", error=True)
            return
        reports, error = outcome
        if reports:
            self.source.reload()  # every price shown follows, with its new date
            self.updated.emit()
        if error is not None:
            done = f" ({updated_text(reports)})" if reports else ""
            self._say(f"Prices not updated: {error.message}{done}", error=True)
            return
        self._say(updated_text(reports))

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setToolTip(text)
        self.status.setStyleSheet(ERROR_STYLE if error else "")

    def shutdown(self) -> None:
        """The dialog closes: wait for the update (it writes one file, whole or not at all)."""
        if self.job is not None:
            self.job.wait()


def _online(clouds: list[str], emit: Any) -> tuple[list[Any], ConfigError | None]:
    """On the job's thread: one cloud at a time, so that each shows; a cloud that fails is
    named at the end and keeps its prices, the others are updated."""
    from engine.cloud import prices

    reports: list[Any] = []
    failed: list[str] = []
    for n, cloud in enumerate(clouds):
        emit((n, cloud))
        try:
            fetched = prices.update_online([cloud])
        except ConfigError as exc:
            failed.append(f"{cloud}: {exc.message}")
            continue
        reports += fetched.reports
        failed += [f"{c}: {why}" for c, why in fetched.failed.items()]
    emit((len(clouds), clouds[-1] if clouds else ""))
    if failed:
        return reports, ConfigError("from", "not updated (prices kept): " + "; ".join(failed))
    return reports, None


def _from_folder(folder: Path, emit: Any) -> tuple[list[Any], ConfigError | None]:
    from engine.cloud import prices

    try:
        return prices.update_from(folder), None
    except ConfigError as exc:
        return [], exc
