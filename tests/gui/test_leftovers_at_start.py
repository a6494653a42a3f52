"""The app's start finds a half-made environment that a killed `env create` left (issue 39),
removes it and says so on its message bar, as the command line's next start does
(engine/envs/leftovers.py; tests/engine/test_env_leftovers.py for the kill itself)."""

from __future__ import annotations

import json
import os

import pytest

from engine.envs.create import MARKER, envs_home

pytestmark = pytest.mark.gui


def test_the_app_removes_a_half_made_environment_at_start_and_says_so(qtbot):
    from gui.shell.main_window import MainWindow

    folder = envs_home(create=True) / "torch-cpu"
    (folder / "bin").mkdir(parents=True)
    # Its maker's process number is this one's, its start time another's: that maker is gone.
    record = {"pid": os.getpid(), "started": "1", "installer": None, "installer_started": ""}
    (folder / MARKER).write_text(json.dumps(record))
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: not folder.exists(), timeout=30_000)
    qtbot.waitUntil(lambda: "half-made environment" in window.message_bar.text.text())
    said = window.message_bar.text.text()
    assert said.startswith("Removed a half-made environment") and str(folder) in said, said
    assert window.message_bar.level == "info"
