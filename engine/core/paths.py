"""Where epochcost keeps its files: EPOCHCOST_HOME, else the user data directory; and where its
shipped data and engine code are, from a source checkout, an installed package or the desktop
bundle (PyInstaller, `make bundle`)."""

from __future__ import annotations

import os
import site
import sys
from pathlib import Path

import platformdirs

from engine.core.errors import StoreError

# Set by the launcher for every worker, so a worker under another interpreter (File > Settings)
# reads the same shipped data as the app that started it.
ASSETS_ENV = "EPOCHCOST_ASSETS"
# Where `pip install` puts the assets (pyproject's data-files), under the install's prefix.
INSTALLED_ASSETS = Path("share", "epochcost", "assets")
# In the bundle: the engine's source (.py), alone, for a worker under another interpreter.
BUNDLED_ENGINE_SOURCE = "engine-src"


def home(create: bool = True) -> Path:
    """The data folder (created on first use). EPOCHCOST_HOME overrides it (tests, portable use).
    StoreError when it cannot be made."""
    override = os.environ.get("EPOCHCOST_HOME")
    path = (
        Path(override).expanduser()
        if override
        else Path(platformdirs.user_data_dir("epochcost", appauthor=False))
    )
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                path,
                f"the data folder cannot be made ({exc.strerror}); "
                "set EPOCHCOST_HOME to a folder you can write to",
            ) from None
    return path


def database(create: bool = True) -> Path:
    """The results store's file (its folder made unless create is False)."""
    return home(create) / "results.sqlite3"


def recovered() -> Path:
    """Where a measured result goes when the store cannot take it (`results import` it later)."""
    return home() / "recovered"


def frozen() -> bool:
    """True in the desktop bundle: sys.executable is the app, not a Python interpreter."""
    return bool(getattr(sys, "frozen", False))


def bundle_root() -> Path:
    """The bundle's folder of collected files (sys._MEIPASS, dist/epochcost/_internal)."""
    return Path(getattr(sys, "_MEIPASS", Path(sys.executable).resolve().parent))


def assets() -> Path:
    """The shipped data folder (price and GPU catalogs, planner tables, examples). Never written
    by the app. In order: the launching app's (EPOCHCOST_ASSETS, in a worker), the bundle's,
    the source checkout's, then an installed package's (under sys.prefix or the user base)."""
    override = os.environ.get(ASSETS_ENV)
    if override:
        return Path(override)
    if frozen():
        return bundle_root() / "assets"
    candidates = [
        Path(__file__).resolve().parents[2] / "assets",
        Path(sys.prefix) / INSTALLED_ASSETS,
        Path(site.getuserbase()) / INSTALLED_ASSETS,
    ]
    for folder in candidates:
        if (folder / "instances.csv").is_file():
            return folder
    return candidates[0]


def docs() -> Path:
    """The user guide's folder (docs/): the bundle's copy (build.spec ships it), else the
    source checkout's."""
    if frozen():
        return bundle_root() / "docs"
    return Path(__file__).resolve().parents[2] / "docs"


def engine_source_root() -> Path:
    """The folder that holds the `engine` package as source, for a worker's PYTHONPATH: the
    checkout (or site-packages) here, the bundle's engine-src folder in the bundle."""
    if frozen():
        return bundle_root() / BUNDLED_ENGINE_SOURCE
    return Path(__file__).resolve().parents[2]


CLOUD_PYTHON_ENV = "EPOCHCOST_CLOUD_PYTHON"  # the cloud environment's Python, where not the default


def cloud_env() -> Path:
    """The cloud environment's folder (`epochcost env create --cloud`: SkyPilot's own)."""
    return home(create=False) / "envs" / "cloud"


def cloud_program() -> Path:
    """The cloud program's file (engine/cloud_program/main.py), run with that environment's
    Python: beside this package, or in the bundle's engine source."""
    return engine_source_root() / "engine" / "cloud_program" / "main.py"
