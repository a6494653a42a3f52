"""Your own model in the GUI: "Add model file..." checks the file in a real worker; a valid
file is listed, measured like a built-in and remembered across restarts; a broken one ends in
a message naming its line, with the list and the form untouched."""

from __future__ import annotations

from PySide6.QtCore import Qt

from engine.measure.config import RunConfig
from engine.results.store import Store
from engine.workloads.model_file_source import file_sha256
from gui.panel.model_files import FILE_PREFIX, ModelFile
from gui.panel.model_picker import CANCEL_TEXT
from tests.engine.model_files import BAD, KERAS_VALID, VALID
from tests.gui.helpers import TINY_FORM, fill_form, run_to_end, show_tab

CHECK_TIMEOUT_MS = 120_000  # a fresh worker imports torch before it loads the file


def add(qtbot, window, path) -> None:
    picker = window.panel.picker
    assert picker.add_file(str(path))
    assert picker.checking and picker.add_button.text() == CANCEL_TEXT
    qtbot.waitUntil(lambda: not picker.checking, timeout=CHECK_TIMEOUT_MS)


def test_a_valid_file_is_listed_measured_and_remembered(qtbot, window, tmp_path):
    from gui.shell.main_window import MainWindow

    path = tmp_path / "my_net.py"
    path.write_text(VALID)
    add(qtbot, window, path)
    panel = window.panel
    entry = panel.picker.current_file()
    assert entry is not None and entry.path == str(path.resolve())
    assert (entry.name, entry.framework, entry.parameters) == ("my_net", "torch", 27)  # 8*3 + 3
    assert "27 parameters" in panel.model_info.text() and "1,000 samples" in panel.model_info.text()
    assert window.message_bar.level == "info" and "Added my_net" in window.message_bar.text.text()
    assert [panel.framework.itemText(i) for i in range(panel.framework.count())] == ["torch"]

    # Measured as a built-in is: the run's result names the file and its content hash.
    fill_form(panel, model=entry.key, **TINY_FORM)
    assert panel.config is not None and panel.config.model_file == entry.path
    run_to_end(qtbot, window)
    stored = Store().get(window.results.model.run_id(0))
    assert stored["status"] == "ok" and stored["workload"]["name"] == "my_net"
    assert stored["workload"]["model_file"] == {"path": entry.path, "sha256": file_sha256(path)}
    window.close()

    # The next session lists the file and puts the form back on it.
    second = MainWindow()
    qtbot.addWidget(second)
    assert second.panel.picker.current_file() == entry
    assert second.panel.config is not None and second.panel.config.model_file == entry.path

    # Remove takes it off the list only: the file stays where it is.
    qtbot.mouseClick(second.panel.picker.remove_button, Qt.MouseButton.LeftButton)
    assert second.panel.picker.files == [] and path.exists()
    assert second.panel.model.currentData() == RunConfig().model  # the default again


def test_a_file_of_the_other_framework_turns_the_form_to_it_and_warms_that_one(
    qtbot, window, tmp_path, monkeypatch
):
    """A Keras file offers TensorFlow alone: the form turns to it (its box refilled with its
    signals blocked), and TensorFlow's warm process is started for the run that follows, as
    when the user chooses TensorFlow (engine/process/forked.py)."""
    from gui.pages.run import page as run_page

    qtbot.waitUntil(lambda: window.run_page._plots is not None)  # painted: the warming is wired
    assert window.panel.framework.currentText() == "torch"
    warmed: list[str] = []
    monkeypatch.setattr(run_page.forked, "prewarm", lambda _spec, fw: warmed.append(fw))
    path = tmp_path / "keras_net.py"
    path.write_text(KERAS_VALID)
    add(qtbot, window, path)
    assert window.panel.picker.current_file().framework == "tensorflow"
    assert window.panel.framework.currentText() == "tensorflow"
    assert warmed == ["tensorflow"]


def test_a_broken_file_shows_its_error_and_line_and_changes_nothing(qtbot, window, tmp_path):
    fill_form(window.panel, model="resnet18-cifar")
    text, words, line = BAD["syntax error"]
    path = tmp_path / "broken.py"
    path.write_text(text)
    add(qtbot, window, path)
    shown = window.message_bar.text.text()
    assert window.message_bar.level == "error"
    assert shown.startswith("broken.py cannot be used:") and words in shown
    assert shown.endswith(f"(line {line}: def build_model(batch_size, hints))")
    assert shown.count(f"line {line}") == 1
    assert window.panel.picker.files == []
    assert window.panel.model.currentData() == "resnet18-cifar" and window.panel.config is not None


def test_a_file_that_hangs_can_be_cancelled(qtbot, window, tmp_path):
    path = tmp_path / "hangs.py"
    path.write_text("import time\n\ntime.sleep(600)\n" + VALID)
    picker = window.panel.picker
    assert picker.add_file(str(path))
    assert not picker.add_file(str(path))  # one check at a time
    # No measurement beside the check's worker: no run, no sweep, no study.
    assert not window.panel.run_button.isEnabled() and not window.menu_actions.run.isEnabled()
    assert not show_tab(window, "Sweep").start_button.isEnabled()
    assert not show_tab(window, "Accuracy").run_button.isEnabled()
    window.show_page("Compare")
    qtbot.mouseClick(picker.add_button, Qt.MouseButton.LeftButton)  # now "Cancel check"
    qtbot.waitUntil(lambda: not picker.checking, timeout=CHECK_TIMEOUT_MS)
    assert window.message_bar.text.text() == "The model file check was cancelled."
    assert picker.files == [] and window.panel.run_button.isEnabled()
    assert window.pages["Accuracy"].run_button.isEnabled()


def test_a_listed_file_that_has_gone_is_said_beside_the_model_box(qtbot, window, tmp_path):
    path = tmp_path / "gone.py"
    path.write_text(VALID)
    entry = ModelFile(path=str(path), name="gone", framework="torch", parameters=27)
    window.panel.picker.remember(entry)
    assert window.panel.config is not None
    path.unlink()
    window.panel.validate()
    assert window.panel.config is None and not window.panel.run_button.isEnabled()
    assert window.panel.errors["model"] == f"{path} does not exist"
    # The Accuracy tab trains built-in models on real data: a model file is refused, in words.
    path.write_text(VALID)
    page = show_tab(window, "Accuracy")
    assert page.validate() is None
    assert "gone is your model file, which brings no data set" in page.form._errors["other"].text()


def test_hand_edited_entries_in_the_settings_file_are_skipped(qtbot, tmp_path):
    from gui.common import settings
    from gui.panel import model_files

    prefs = settings.Settings(tmp_path / "gui-settings.ini")
    good = {"path": str(tmp_path / "a.py"), "name": "a", "framework": "torch"}
    no_framework = {**good, "path": "b.py", "framework": ""}
    bad_shape = {**good, "path": "c.py", "input_shape": [3, None]}
    entries = [good, {"path": 3}, "junk", good, no_framework, bad_shape]
    prefs.set(settings.MODEL_FILES, {"files": entries})
    assert [f.name for f in model_files.load(prefs)] == ["a"]


def test_listed_files_and_no_saved_form_start_on_the_default_model(qtbot, tmp_path):
    # The list is saved when a file is added, the form only at a run or at close: an app
    # killed in between starts with files listed and no form (the separator has no data).
    from gui.common import settings
    from gui.shell.main_window import MainWindow

    path = tmp_path / "net.py"
    path.write_text(VALID)
    prefs = settings.Settings()
    entry = {"path": str(path), "name": "net", "framework": "torch", "parameters": 27}
    prefs.set(settings.MODEL_FILES, {"files": [entry]})
    prefs.sync()
    window = MainWindow()
    qtbot.addWidget(window)
    assert window.panel.model.currentData() == RunConfig().model
    assert window.panel.config is not None
    assert window.panel.model.findData(FILE_PREFIX + str(path)) > 0
