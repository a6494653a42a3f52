"""File > Settings: each framework's worker Python, checked in the background and said in
plain words; the choice is kept, offered in the form, and used by the next run's worker."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from pathlib import Path

import psutil
import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialogButtonBox

from engine.core.events import Started
from engine.results.store import Store
from gui.common import settings
from gui.panel.run_rules import installed_frameworks
from gui.shell.settings_dialog import SettingsDialog
from tests.gui.helpers import RUN_TIMEOUT_MS, TINY_FORM, fill_form, torch_and_jax_workload
from tests.gui.test_run_flow import click_run

OUTPUT = Path(__file__).resolve().parents[1] / "output"
CHECK_TIMEOUT_MS = 150_000  # importing TensorFlow in the checked Python, on a busy box


def ok_button(dialog: SettingsDialog):
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)


def settings_action(window) -> QAction:
    return next(a for a in window.findChildren(QAction) if a.text() == "&Settings…")


def other_name_for_this_python() -> str:
    """This venv's Python by another name (bin/python3 beside bin/python): a path that is not
    sys.executable, so a run that uses it shows it in the worker's command line."""
    here = Path(sys.executable)
    for name in ("python3", "python"):
        other = here.with_name(name)
        if other.exists() and other != here:
            return str(other)
    pytest.skip("this Python has no second name in its folder")


def test_the_menu_opens_the_dialog_with_each_framework_at_the_apps_own_python(qtbot, window):
    action = settings_action(window)
    assert action.shortcut().toString() == "Ctrl+,"
    action.trigger()
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None and dialog.isVisible()
    assert dialog.edits["torch"].text() == dialog.edits["tensorflow"].text() == ""
    assert dialog.status["torch"].text() == "This app's own Python, which has torch."
    assert ok_button(dialog).isEnabled()
    OUTPUT.mkdir(exist_ok=True)
    dialog.grab().save(str(OUTPUT / "settings-dialog.png"))
    dialog.reject()


def test_a_path_that_does_not_exist_is_said_and_blocks_ok_until_cleared(qtbot, window):
    dialog = window.show_settings()
    dialog.edits["tensorflow"].setText("/no/such/env/bin/python")
    dialog.check("tensorflow")
    qtbot.waitUntil(lambda: not dialog.checking)
    assert dialog.status["tensorflow"].text() == "/no/such/env/bin/python does not exist"
    assert not ok_button(dialog).isEnabled()
    assert "TensorFlow" in ok_button(dialog).toolTip()
    dialog.edits["tensorflow"].clear()
    dialog.check("tensorflow")
    assert ok_button(dialog).isEnabled()
    dialog.reject()
    assert window.prefs.interpreters() == {}


@pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None, reason="TensorFlow is not installed here"
)
def test_a_checked_python_is_kept_and_offered_after_ok(qtbot, window):
    dialog = window.show_settings()
    dialog.edits["tensorflow"].setText(sys.executable)
    dialog.check("tensorflow")
    assert dialog.checking and not ok_button(dialog).isEnabled()
    qtbot.waitUntil(lambda: not dialog.checking, timeout=CHECK_TIMEOUT_MS)
    assert dialog.status["tensorflow"].text().startswith("ok: Python 3.")
    assert "tensorflow 2." in dialog.status["tensorflow"].text()
    OUTPUT.mkdir(exist_ok=True)
    dialog.grab().save(str(OUTPUT / "settings-dialog-checked.png"))
    ok_button(dialog).click()
    assert window.prefs.interpreters() == {"tensorflow": sys.executable}
    assert window.controller.interpreters == {"tensorflow": sys.executable}
    assert settings.Settings().interpreters() == {"tensorflow": sys.executable}  # on disk


def test_a_framework_with_its_own_python_is_offered_though_not_installed_here():
    workload = torch_and_jax_workload()
    assert installed_frameworks(workload, {"jax": "/envs/jax/bin/python"}) == ["torch", "jax"]


def test_a_run_uses_the_python_chosen_for_its_framework(qtbot, window):
    python = other_name_for_this_python()
    window.set_interpreters({"torch": python})
    fill_form(window.panel, **TINY_FORM)
    commands = []

    def on_event(event):
        if isinstance(event, Started):
            commands.append(psutil.Process(window.controller.worker_pid).cmdline()[:3])

    window.controller.engine_event.connect(on_event)
    with qtbot.waitSignal(
        window.controller.running_changed, timeout=RUN_TIMEOUT_MS, check_params_cb=lambda r: not r
    ):
        click_run(qtbot, window)
    assert commands == [[python, "-m", "engine.worker"]]
    assert list(Store().list().status) == ["ok"]


def test_a_chosen_python_that_is_gone_is_a_plain_message_not_a_crash(qtbot, window):
    window.set_interpreters({"torch": "/no/such/env/bin/python"})
    fill_form(window.panel, **TINY_FORM)
    with qtbot.waitSignal(
        window.controller.running_changed, timeout=10_000, check_params_cb=lambda r: not r
    ):
        click_run(qtbot, window)
    assert window.message_bar.level == "error"
    assert window.message_bar.text.text() == (
        "The settings were refused: the worker's Python /no/such/env/bin/python could not be "
        "started (No such file or directory)."
    )
    assert len(Store().list()) == 0  # nothing ran, nothing stored


def test_a_choice_an_older_version_kept_moves_to_environments_json_once(qtbot):
    import json as _json

    from engine.process import environments

    old = settings.Settings()
    old.set(settings.INTERPRETERS, {"tensorflow": sys.executable})
    old.sync()
    assert settings.Settings().interpreters() == {"tensorflow": sys.executable}
    assert _json.loads(environments.path().read_text()) == {"tensorflow": sys.executable}
    assert settings.Settings().mapping(settings.INTERPRETERS) == {}  # gone from the INI
    # From then on the file decides: the CLI and the app read the same choice.
    environments.save({})
    assert settings.Settings().interpreters() == {}


@pytest.mark.parametrize("code", [0, 1])
def test_the_button_makes_the_older_gpu_environment_and_chooses_it(
    qtbot, monkeypatch, tmp_path, code
):
    # pip and PyPI are the boundary: the command stands in for `make gpu-env`'s module.
    from engine.process import gpu_env
    from gui.shell import settings_dialog

    script = f"print('making the environment'); print('pip said no'); raise SystemExit({code})"
    monkeypatch.setattr(settings_dialog, "gpu_env_command", lambda: [sys.executable, "-c", script])
    monkeypatch.setattr(gpu_env, "DEFAULT_DIR", tmp_path / "env")
    dialog = SettingsDialog({})
    qtbot.addWidget(dialog)
    dialog.make_env.clicked.emit()
    assert dialog.make_env.text() == "Cancel making the environment"
    qtbot.waitUntil(lambda: dialog._env_job is None, timeout=30_000)
    assert dialog.make_env.text() == "Make a PyTorch environment for older GPUs…"
    if code == 0:
        python = str(tmp_path / "env" / "bin" / "python")
        assert dialog.edits["torch"].text() == python
        assert dialog.make_env_status.text() == f"Made and set for PyTorch runs: {python}"
    else:
        assert dialog.edits["torch"].text() == ""
        assert dialog.make_env_status.text() == "It failed: pip said no"
    dialog.shutdown()


def test_the_button_runs_what_make_gpu_env_runs():
    from gui.shell.settings_dialog import gpu_env_command

    assert gpu_env_command() == [sys.executable, "-m", "engine.process.gpu_env"]
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    assert "$(PY) -m engine.process.gpu_env" in makefile


@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
def test_a_second_click_cancels_making_it_and_what_it_started(qtbot, monkeypatch):
    # The stand-in starts a child, as the module starts pip: cancel ends both.
    from gui.shell import settings_dialog

    script = (
        "import subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "print(p.pid, flush=True); time.sleep(60)"
    )
    monkeypatch.setattr(settings_dialog, "gpu_env_command", lambda: [sys.executable, "-c", script])
    dialog = SettingsDialog({})
    qtbot.addWidget(dialog)
    dialog.make_env.clicked.emit()
    qtbot.waitUntil(lambda: dialog.make_env_status.text().isdigit(), timeout=30_000)
    child = psutil.Process(int(dialog.make_env_status.text()))
    dialog.make_env.clicked.emit()
    qtbot.waitUntil(lambda: dialog._env_job is None, timeout=30_000)
    assert dialog.make_env_status.text() == "Cancelled; nothing was chosen."
    assert dialog.edits["torch"].text() == ""
    _, alive = psutil.wait_procs([child], timeout=10)
    for proc in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            assert proc.status() == psutil.STATUS_ZOMBIE
    dialog.shutdown()
