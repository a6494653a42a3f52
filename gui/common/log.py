"""The app's log file, in the data folder: what went wrong, with tracebacks, for a bug report."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from engine.core import paths

LOG_NAME = "epochcost-gui.log"


def log_path() -> Path:
    return paths.home() / LOG_NAME


def logger() -> logging.Logger:
    """The app's logger, writing to the log file in the current data folder."""
    log = logging.getLogger("epochcost.gui")
    path = str(log_path())
    if not any(getattr(h, "baseFilename", None) == path for h in log.handlers):
        for old in list(log.handlers):  # the data folder changed (tests): follow it
            log.removeHandler(old)
            old.close()
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=1_000_000, backupCount=2, encoding="utf-8"
        )
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    return log
