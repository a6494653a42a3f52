"""Help > About: what this is and the versions of everything it runs on.

Framework versions come from package metadata, so the GUI never imports a framework.
"""

from __future__ import annotations

import platform
import sys
from importlib import metadata

import pyqtgraph
import PySide6
from PySide6.QtCore import qVersion

import engine

# Shown as "name: version" when installed; frameworks run in the worker, not here.
PACKAGES = ("torch", "torchvision", "tensorflow-cpu", "tensorflow", "keras", "numpy", "pandas")


def versions() -> dict[str, str]:
    found = {
        "epochcost": engine.__version__,
        "Python": sys.version.split()[0],
        "Qt": qVersion(),
        "PySide6": PySide6.__version__,
        "pyqtgraph": pyqtgraph.__version__,
    }
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    found["system"] = f"{platform.system()} {platform.release()} ({platform.machine()})"
    return found


def about_html() -> str:
    rows = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in versions().items())
    return (
        "<h3>epochcost</h3>"
        "<p>Measures what training a model costs on this machine: throughput, memory fill "
        "and the cost of one epoch, from timed training in a worker process.</p>"
        f"<table cellspacing='6'>{rows}</table>"
    )
