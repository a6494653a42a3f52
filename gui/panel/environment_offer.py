"""The panel's offer to make the framework environment a run needs, where it is missing.

Shown under the framework box when the model's frameworks are none of them installed here
(the slim download has no framework), or when the chosen framework's build cannot run on the
chosen GPU (PyTorch with CUDA 13 on a GTX 1080 Ti). A click asks the window to open File >
Settings and start making that framework's environment for this machine there (engine/envs/,
`epochcost env create`), where its progress shows and a second click cancels it.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QPushButton

from engine.measure.compatibility import LABELS


def framework_to_make(errors: dict[str, str], chosen: str, supported: Sequence[str]) -> str | None:
    """The framework whose environment would let the run start, or None. `errors`: the
    panel's own (ConfigPanel.values), where "framework" says none is installed and "device"
    that the chosen framework's build cannot run on the chosen GPU. The model's first
    supported framework in the first case, the chosen one in the second; only frameworks
    epochcost can make an environment for."""
    if "framework" in errors:
        wanted = next((f for f in supported if f in LABELS), None)
    else:
        wanted = chosen if "device" in errors else None
    return wanted if wanted in LABELS else None


def make_text(framework: str) -> str:
    """The button's words, here and in File > Settings: the build fits the machine's GPU and
    driver, or its CPU where there is none."""
    return f"Make a {LABELS[framework]} environment for this machine…"


class EnvironmentOffer(QPushButton):
    """ "Make a PyTorch environment for this machine…": hidden unless one is to be made."""

    requested = Signal(str)  # the framework

    def __init__(self) -> None:
        super().__init__(objectName="make_environment")
        self.framework: str | None = None
        self.setToolTip(
            "Opens File > Settings and makes the environment this framework needs on this "
            "GPU there (a download of up to a few GB); a second click there cancels it"
        )
        self.clicked.connect(lambda: self.framework and self.requested.emit(self.framework))
        self.hide()

    def offer(self, framework: str | None) -> None:
        self.framework = framework
        if framework is not None:
            self.setText(make_text(framework))
        self.setVisible(framework is not None)
