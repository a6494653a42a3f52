"""Where epochcost keeps its files: EPOCHCOST_HOME, else the user data directory."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def home() -> Path:
    """The data folder (created on first use). EPOCHCOST_HOME overrides it (tests, portable use)."""
    override = os.environ.get("EPOCHCOST_HOME")
    path = (
        Path(override).expanduser()
        if override
        else Path(platformdirs.user_data_dir("epochcost", appauthor=False))
    )
    path.mkdir(parents=True, exist_ok=True)
    return path


def database() -> Path:
    return home() / "results.sqlite3"


def assets() -> Path:
    """The shipped data folder (price and GPU catalogs). Never written by the app."""
    return Path(__file__).resolve().parent.parent / "assets"
