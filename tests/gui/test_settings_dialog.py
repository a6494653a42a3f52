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
from engine.envs.choice import Gpu, Machine
from engine.results.store import Store
from gui.common import settings
from gui.panel.run_rules import installed_frameworks
from gui.shell.settings_dialog import SettingsDialog
from tests.engine.helpers import started_here
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


GTX = Machine((Gpu("NVIDIA GeForce GTX 1080 Ti", (6, 1)),), "550.54.14", "nvidia-smi")


def _answer(qtbot, dialog: SettingsDialog, make: bool = True) -> None:
    """Answer the question asked before an environment is made."""
    qtbot.waitUntil(lambda: "torch" in dialog.asking, timeout=60_000)
    question = dialog.asking["torch"]
    (question.make if make else question.cancel).click()
    qtbot.waitUntil(lambda: "torch" not in dialog.asking)


def test_making_an_environment_asks_first_and_a_cancel_says_where_its_downloads_are(
    qtbot, monkeypatch, tmp_path
):
    """Issue 38: the button started a 3 GB download at once, and a cancel left 1.7 GB in uv's
    cache without a word. It asks first, saying what it read, what it installs from where and
    why, about how many GB and where; a cancel says where the downloads stay, and how large."""
    from engine.envs.create import Cancelled, envs_home
    from gui.shell import settings_dialog
    from gui.shell.environment_ask import Cache

    made = []

    def create(choice, *, progress, say, cancel, register):  # the installer, stood in for
        made.append(choice)
        say("Downloading torch (821.2MiB)")
        cancel.wait(30)  # until the second click
        raise Cancelled

    cache = tmp_path / "uv-cache"
    monkeypatch.setattr(settings_dialog, "read_machine", lambda: GTX)
    monkeypatch.setattr(settings_dialog, "create", create)
    monkeypatch.setattr(settings_dialog, "installer_cache", lambda uv: Cache("uv", cache, 17e8))
    dialog = SettingsDialog({})
    qtbot.addWidget(dialog)
    status = dialog.make_env_status["torch"]
    dialog.make_env["torch"].clicked.emit()
    qtbot.waitUntil(lambda: "torch" in dialog.asking)
    text = dialog.asking["torch"].informativeText()
    assert "Read here: NVIDIA GeForce GTX 1080 Ti (sm_61), driver 550.54.14" in text
    assert "PyTorch 2.7.1 with CUDA 12.6: torch==2.7.1, torchvision==0.22.1" in text
    assert "from https://download.pytorch.org/whl/cu126" in text
    assert (
        "Why this build: NVIDIA GeForce GTX 1080 Ti (sm_61), driver 550.54.14: the newest" in text
    )
    assert "a download of about 3 GB" in text
    assert f"Where: {envs_home() / 'torch-cu126'}." in text
    assert made == []  # nothing is downloaded before the answer
    _answer(qtbot, dialog, make=False)
    assert made == [] and status.text() == "Not made: nothing was downloaded."
    # asked again, and made: a second click cancels it
    dialog.make_env["torch"].clicked.emit()
    _answer(qtbot, dialog)
    qtbot.waitUntil(lambda: "Downloading torch" in status.text())
    assert [c.label for c in made] == ["PyTorch 2.7.1 with CUDA 12.6"]
    dialog.make_env["torch"].clicked.emit()
    qtbot.waitUntil(lambda: "uv's cache" in status.text())
    assert status.text() == (
        f"Cancelled: the environment's folder is removed. What was downloaded stays in uv's "
        f"cache, {cache} (1.7 GB now, shared with other environments); `uv cache clean` "
        "empties it."
    )
    assert dialog.make_env["torch"].text() == "Make a PyTorch environment for this machine…"
    dialog.shutdown()


def test_the_installers_cache_is_found_where_uv_says_and_measured(tmp_path):
    from gui.shell.environment_ask import installer_cache

    cache = tmp_path / "cache"
    (cache / "wheels").mkdir(parents=True)
    (cache / "wheels" / "torch.whl").write_bytes(b"x" * 1500)
    (cache / "a").write_bytes(b"x" * 500)
    uv = tmp_path / "uv"
    uv.write_text(f"#!/bin/sh\necho {cache}\n")
    uv.chmod(0o755)
    found = installer_cache(str(uv))
    assert found is not None
    assert (found.installer, found.path, found.size_bytes) == ("uv", cache, 2000)


def _tiny(monkeypatch):
    """The build the button installs, made small: `six` from the package index instead of a
    framework of gigabytes (the installer, the worker side and the check are the real ones)."""
    from engine.envs.choice import Choice
    from gui.shell import settings_dialog

    tiny = Choice("torch", "six (a test's stand-in build)", "cpu", ("six",), "a test")
    monkeypatch.setattr(settings_dialog, "choose", lambda framework, machine: tiny)


@pytest.mark.slow
def test_the_button_makes_an_environment_and_a_failed_check_leaves_nothing(qtbot, monkeypatch):
    from engine.envs.create import envs_home

    _tiny(monkeypatch)
    dialog = SettingsDialog({})
    qtbot.addWidget(dialog)
    dialog.make_env["torch"].clicked.emit()
    _answer(qtbot, dialog)
    assert dialog.make_env["torch"].text() == "Cancel making the environment"
    qtbot.waitUntil(lambda: "torch" not in dialog._env_jobs, timeout=240_000)
    assert dialog.make_env["torch"].text() == "Make a PyTorch environment for this machine…"
    # six is no PyTorch: the new environment does not pass its check, and is gone.
    status = dialog.make_env_status["torch"].text()
    assert status.startswith("It failed; nothing was left behind:"), status
    assert "torch" in status
    assert dialog.edits["torch"].text() == ""
    assert list(envs_home(create=True).iterdir()) == []
    dialog.shutdown()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
def test_a_second_click_cancels_making_it_and_what_it_started(qtbot, monkeypatch):
    from engine.envs.create import envs_home

    _tiny(monkeypatch)
    dialog = SettingsDialog({})
    qtbot.addWidget(dialog)
    dialog.make_env["torch"].clicked.emit()
    _answer(qtbot, dialog)
    # The installer has started once it reports a line of its own.
    qtbot.waitUntil(lambda: "packages," in dialog.make_env_status["torch"].text(), timeout=60_000)
    started = started_here()  # uv or pip, and what they run
    dialog.make_env["torch"].clicked.emit()
    qtbot.waitUntil(lambda: "torch" not in dialog._env_jobs, timeout=60_000)
    # the environment's folder is gone; the installer's cache is said (where, how large)
    qtbot.waitUntil(lambda: "cache" in dialog.make_env_status["torch"].text(), timeout=60_000)
    assert dialog.make_env_status["torch"].text().startswith("Cancelled: the environment's")
    assert dialog.edits["torch"].text() == ""
    assert list(envs_home(create=True).iterdir()) == []
    _, alive = psutil.wait_procs(started, timeout=10)
    for proc in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            assert proc.status() == psutil.STATUS_ZOMBIE
    dialog.shutdown()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
def test_closing_the_window_ends_the_installer_and_leaves_no_folder(qtbot, monkeypatch, window):
    """Issue 39: the window closed while an environment is made ends its installer (the
    whole session) and removes the half-made folder."""
    from engine.envs.create import envs_home

    _tiny(monkeypatch)
    dialog = window.make_environment("torch")
    _answer(qtbot, dialog)
    qtbot.waitUntil(lambda: "packages," in dialog.make_env_status["torch"].text(), timeout=60_000)
    started = started_here()
    assert started and any(envs_home().iterdir())  # installing, its folder half-made
    window.close()
    assert list(envs_home().iterdir()) == []
    _, alive = psutil.wait_procs(started, timeout=10)
    for proc in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            assert proc.status() == psutil.STATUS_ZOMBIE
