"""An image folder checked without a framework: what the parent says before a worker starts
(missing, empty, no class folders, an unreadable or broken image, each named), the data source
as a config field, and the random folder `epochcost data make-imagefolder` writes."""

from __future__ import annotations

import os

import pytest
from PIL import Image

from engine.core.errors import ConfigError
from engine.measure.config import RunConfig
from engine.workloads.data import imagefolder, random_folder, source
from tests.engine.data_helpers import image_folder


def _refused(path) -> str:
    with pytest.raises(ConfigError) as caught:
        imagefolder.scan(path)
    assert caught.value.field == "data"
    return caught.value.message


def test_a_folder_of_class_folders_is_listed_with_its_images_and_classes(tmp_path):
    folder = image_folder(tmp_path / "set", images=30, classes=3)
    (folder / "class_000" / "notes.txt").write_text("not an image")
    found = imagefolder.scan(folder)
    assert found.images == 30
    assert found.classes == ("class_000", "class_001", "class_002")
    assert sorted(set(found.labels)) == [0, 1, 2]
    assert found.ignored == 1
    with Image.open(found.files[0]) as image:
        assert image.size == (40, 40)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: p / "missing", "does not exist"),
        (lambda p: (p / "file.jpg").write_bytes(b"x") and p / "file.jpg", "is a file"),
        (lambda p: (p / "empty").mkdir() or p / "empty", "has no class folders"),
    ],
    ids=["missing", "a file", "empty"],
)
def test_a_folder_that_cannot_be_used_is_named_with_what_to_do(tmp_path, make, words):
    path = make(tmp_path)
    message = _refused(path)
    assert words in message
    assert str(path.name) in message


def test_class_folders_without_images_say_which_files_are_read(tmp_path):
    (tmp_path / "cats").mkdir()
    (tmp_path / "cats" / "readme.txt").write_text("hello")
    message = _refused(tmp_path)
    assert "cats" in message and ".jpg" in message


@pytest.mark.parametrize(
    ("content", "words"),
    [(b"", "is empty"), (b"<html>not an image</html>", "is not a JPEG, PNG or BMP image")],
)
def test_a_broken_image_is_named(tmp_path, content, words):
    folder = image_folder(tmp_path / "set", images=6, classes=2)
    bad = folder / "class_001" / "zz_bad.jpg"
    bad.write_bytes(content)
    message = _refused(folder)
    assert str(bad) in message and words in message


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_image_is_named(tmp_path):
    folder = image_folder(tmp_path / "set", images=6, classes=2)
    locked = sorted(folder.glob("*/*.jpg"))[0]
    locked.chmod(0)
    try:
        message = _refused(folder)
    finally:
        locked.chmod(0o644)
    assert str(locked) in message and "cannot be read" in message


def test_the_data_source_is_a_config_field_checked_with_its_name(tmp_path):
    folder = image_folder(tmp_path / "set", images=12, classes=2)
    config = RunConfig(model="tiny-mlp", data=f"imagefolder:{folder}").validated()
    assert config.resolved_epoch_samples == 12  # the folder's images are the epoch
    cases = {
        "bogus": "is not a data source",
        "imagefolder:": "needs its folder",
        "synthetic:/x": "takes no path",
        f"imagefolder:{tmp_path / 'nope'}": "does not exist",
    }
    for spec, words in cases.items():
        with pytest.raises(ConfigError) as caught:
            RunConfig(model="tiny-mlp", data=spec).validated()
        assert caught.value.field == "data" and words in caught.value.message
    with pytest.raises(ConfigError) as caught:
        RunConfig(model="bert-base", data=f"imagefolder:{folder}").validated()
    assert "does not take images" in caught.value.message
    with pytest.raises(ConfigError) as caught:
        RunConfig(model="tiny-mlp", loader_workers=-1).validated()
    assert caught.value.field == "loader_workers"


def test_a_folder_spec_is_made_absolute_for_the_worker(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert source.normalized("imagefolder:set") == f"imagefolder:{tmp_path / 'set'}"
    assert source.normalized("synthetic") == "synthetic"
    assert source.normalized("bogus:x") == "bogus:x"  # left for the check to explain


def test_cifar10_without_its_files_says_how_to_get_them(tmp_path):
    with pytest.raises(ConfigError) as caught:
        _ = (
            RunConfig(model="tiny-mlp", data=f"cifar10:{tmp_path}")
            .validated()
            .resolved_epoch_samples
        )
    assert caught.value.field == "data" and "data download cifar10" in caught.value.message


def test_the_random_folder_refuses_a_folder_with_files_and_bad_sizes(tmp_path):
    image_folder(tmp_path / "set", images=4, classes=2)
    with pytest.raises(ConfigError, match="not empty"):
        random_folder.make(tmp_path / "set", 4, 16, 2)
    with pytest.raises(ConfigError) as caught:
        random_folder.make(tmp_path / "new", 4, 2, 2)
    assert caught.value.field == "size"
