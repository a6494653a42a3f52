"""The panel's Data box (issue 28): synthetic by default, an image folder chosen with its
picker becomes the run's data and its images the epoch, a folder that cannot be used is said
beside the field (naming the file), a model that takes no images is offered synthetic only,
and the choice is remembered with the form."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFileDialog

from engine.measure.devices import list_devices
from engine.workloads.data import random_folder
from gui.panel.panel import ConfigPanel


@pytest.fixture
def panel(qtbot):
    p = ConfigPanel(list_devices())
    qtbot.addWidget(p)
    p.show()
    return p


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A small image folder: 40 images of 32 px in 2 classes."""
    root = tmp_path_factory.mktemp("data") / "set"
    return random_folder.make(root, images=40, size=32, classes=2)


def choose(panel, kind: str) -> None:
    box = panel.data_box
    box.kind.setCurrentIndex(box.kind.findData(kind))


def shown(panel, field: str) -> str:
    label = panel._error_labels[field]
    return label.text() if label.isVisible() else ""


def test_synthetic_is_the_default_and_loads_nothing(panel):
    assert panel.data_box.kind.currentData() == "synthetic"
    assert not panel.data_box.folder.isVisible() and not panel.data_box.workers.isVisible()
    assert panel.validate()
    assert panel.config.data == "synthetic"
    assert panel.config.loader_workers is None and panel.config.pin_memory is False


def test_an_image_folder_chosen_with_the_picker_is_the_runs_data(panel, folder, monkeypatch):
    choose(panel, "imagefolder")
    assert panel.data_box.folder.isVisible() and panel.data_box.workers.isVisible()
    # No folder yet: said beside the field, and Run waits for one.
    assert not panel.validate()
    assert "choose the image folder" in shown(panel, "data")
    assert not panel.run_button.isEnabled()
    asked = []
    monkeypatch.setattr(
        QFileDialog,
        "getExistingDirectory",
        lambda *args: asked.append(args) or str(folder),
    )
    panel.data_box.browse_button.click()
    assert asked, "the folder picker opened"
    panel.data_box.workers.setText("2")
    panel.data_box.pin.setChecked(True)
    assert panel.validate(), panel.errors
    assert panel.config.data == f"imagefolder:{folder}"
    assert panel.config.loader_workers == 2 and panel.config.pin_memory is True
    assert shown(panel, "data") == ""
    # The folder's images are the epoch: the epoch field says so until a number is typed.
    assert panel.numbers["epoch_samples"].placeholderText().startswith("40 ")
    assert panel.config.resolved_epoch_samples == 40
    assert panel.run_button.isEnabled()


@pytest.mark.parametrize(
    "spoil, named",
    [
        (lambda root: (root / "class_000" / "0000000.jpg").write_bytes(b"not an image"), "0.jpg"),
        (lambda root: None, "does not exist"),
    ],
    ids=["a corrupt image", "a folder that is not there"],
)
def test_a_folder_that_cannot_be_used_is_said_beside_the_field(panel, tmp_path, spoil, named):
    root = tmp_path / "set"
    if "exist" not in named:
        random_folder.make(root, images=4, size=16, classes=2)
    spoil(root)
    choose(panel, "imagefolder")
    panel.data_box.folder.setText(str(root))
    panel.data_box.folder.editingFinished.emit()  # the field is left: the folder is chosen
    assert not panel.validate()
    said = shown(panel, "data")
    assert named in said and "Traceback" not in said
    assert not panel.run_button.isEnabled()
    assert panel.other_error.isHidden()  # beside the field, not at the form's foot


def test_loader_workers_out_of_range_are_said_beside_their_field(panel, folder):
    choose(panel, "imagefolder")
    panel.data_box.folder.setText(str(folder))
    panel.data_box.workers.setText("-1")
    assert not panel.validate()
    assert "0" in shown(panel, "loader_workers")  # the range it takes
    panel.data_box.workers.setText("")  # blank: automatic
    assert panel.validate()
    assert panel.config.loader_workers is None


def test_a_model_that_takes_no_images_is_offered_synthetic_only(panel, folder):
    choose(panel, "imagefolder")
    panel.data_box.folder.setText(str(folder))
    panel.model.setCurrentIndex(panel.model.findData("bert-base"))
    box = panel.data_box
    assert [box.kind.itemData(i) for i in range(box.kind.count())] == ["synthetic"]
    assert panel.validate()
    assert panel.config.data == "synthetic"
    panel.model.setCurrentIndex(panel.model.findData("resnet18-cifar"))
    kinds = [box.kind.itemData(i) for i in range(box.kind.count())]
    assert kinds == ["synthetic", "imagefolder", "cifar10"]


def test_cifar10_without_a_folder_reads_the_data_folders(panel, epochcost_home):
    choose(panel, "cifar10")
    assert "cifar10" in panel.data_box.folder.placeholderText()
    assert not panel.validate()  # not downloaded: said, with how to get it
    assert "cifar10" in shown(panel, "data")


def test_the_form_remembers_the_data_choice(panel, qtbot, folder):
    choose(panel, "imagefolder")
    panel.data_box.folder.setText(str(folder))
    panel.data_box.workers.setText("3")
    panel.data_box.pin.setChecked(True)
    state = panel.state()
    again = ConfigPanel(list_devices())
    qtbot.addWidget(again)
    again.restore(state)
    assert again.validate(), again.errors
    assert again.config.data == f"imagefolder:{folder}"
    assert again.config.loader_workers == 3 and again.config.pin_memory is True
    assert again.data_box.kind.currentText() == "Image folder"
