"""Data sets for cost to accuracy: the CIFAR-10 binary reader on files written here, its
errors, the download (from a local file:// URL only), the built-in set and the batcher."""

from __future__ import annotations

import hashlib
import io
import tarfile

import numpy as np
import pytest

from engine.core.errors import ConfigError
from engine.workloads import data
from engine.workloads.data import cifar10, patterns
from engine.workloads.data.batches import Batches, normalised
from engine.workloads.data.download import download_cifar10


def _record(label: int, seed: int) -> tuple[bytes, np.ndarray]:
    """One record in the published layout (label, red plane, green plane, blue plane), and
    the image (H, W, C) it stands for, built independently of the reader."""
    rng = np.random.default_rng(seed)
    planes = rng.integers(0, 256, (3, 32, 32), dtype=np.uint8)
    return bytes([label]) + planes.tobytes(), np.stack(list(planes), axis=-1)


def _write(path, labels, first_seed):
    images = []
    with open(path, "wb") as f:
        for i, label in enumerate(labels):
            record, image = _record(label, first_seed + i)
            f.write(record)
            images.append(image)
    return np.stack(images)


def _cifar_folder(folder, per_file=3):
    folder.mkdir(parents=True, exist_ok=True)
    train = [
        _write(folder / name, [(i + k) % 10 for k in range(per_file)], 100 * i)
        for i, name in enumerate(cifar10.TRAIN_FILES)
    ]
    test = _write(folder / cifar10.TEST_FILE, [9, 0], 999)
    return np.concatenate(train), test


def test_the_binary_reader_puts_every_pixel_where_the_format_says(tmp_path):
    x_train_expected, x_test_expected = _cifar_folder(tmp_path)
    x_train, y_train, x_test, y_test = cifar10.load(tmp_path)
    assert x_train.shape == (15, 32, 32, 3) and x_train.dtype == np.uint8
    np.testing.assert_array_equal(x_train, x_train_expected)
    np.testing.assert_array_equal(x_test, x_test_expected)
    assert y_train[:3].tolist() == [0, 1, 2] and y_train[3:6].tolist() == [1, 2, 3]
    assert y_test.tolist() == [9, 0]
    # One pixel by hand: record 0 of test_batch.bin, row 5, column 7, green.
    raw = (tmp_path / cifar10.TEST_FILE).read_bytes()
    assert x_test[0, 5, 7, 1] == raw[1 + 1024 + 5 * 32 + 7]


def test_a_folder_is_described_without_reading_and_found_in_its_subfolder(tmp_path):
    _cifar_folder(tmp_path / cifar10.SUBFOLDER)
    info = data.describe(str(tmp_path))
    assert (info.name, info.train_samples, info.test_samples) == ("cifar10", 15, 2)
    assert info.source == str(tmp_path / cifar10.SUBFOLDER)
    loaded = data.load(str(tmp_path))
    assert loaded.x_train.shape == (15, 32, 32, 3) and loaded.info == info


def test_a_missing_folder_or_file_says_what_to_give(tmp_path):
    with pytest.raises(ConfigError, match="neither a built-in data set .*patterns10.* nor an"):
        data.describe(str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match="has no CIFAR-10 binary files: expected data_batch_1"):
        data.describe(str(tmp_path))
    _cifar_folder(tmp_path)
    (tmp_path / "data_batch_4.bin").unlink()
    with pytest.raises(ConfigError, match="has no data_batch_4.bin: expected") as info:
        data.describe(str(tmp_path))
    assert "epochcost data download cifar10" in info.value.message


def test_a_truncated_file_names_the_file_its_size_and_what_was_expected(tmp_path):
    _cifar_folder(tmp_path)
    path = tmp_path / "data_batch_2.bin"
    path.write_bytes(path.read_bytes()[:-100])  # 3 records less 100 bytes
    with pytest.raises(ConfigError) as info:
        data.describe(str(tmp_path))
    message = info.value.message
    assert str(path) in message
    assert f"is {3 * 3073 - 100:,} bytes, not a whole number of 3073-byte records" in message
    assert "2 records and 2,973 bytes over" in message
    assert "30,730,000 bytes (10,000 records)" in message


def test_the_python_pickle_version_is_refused_with_the_way_out(tmp_path):
    (tmp_path / "data_batch_1").write_bytes(b"\x80\x04pickle")
    with pytest.raises(ConfigError, match="Python \\(pickle\\) version .* binary version"):
        data.describe(str(tmp_path))


def test_a_label_byte_over_nine_is_not_cifar10(tmp_path):
    _cifar_folder(tmp_path)
    _write(tmp_path / cifar10.TEST_FILE, [3, 42], 5)
    with pytest.raises(ConfigError, match="record 1 has label byte 42"):
        data.load(str(tmp_path))


def _archive(tmp_path, extra_member=None):
    source = tmp_path / "src"
    _cifar_folder(source)
    path = tmp_path / "cifar-10-binary.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name in (*cifar10.TRAIN_FILES, cifar10.TEST_FILE):
            tar.add(source / name, arcname=f"{cifar10.SUBFOLDER}/{name}")
        if extra_member:
            member = tarfile.TarInfo(extra_member)
            member.size = 4
            tar.addfile(member, io.BytesIO(b"evil"))
    return path, hashlib.md5(path.read_bytes()).hexdigest()


def test_download_unpacks_only_the_batch_files_from_a_local_url(tmp_path):
    archive, md5 = _archive(tmp_path, extra_member="../../escaped.bin")
    seen = []
    folder = download_cifar10(
        tmp_path / "data", url=archive.as_uri(), md5=md5, progress=lambda d, t: seen.append(d)
    )
    assert folder == tmp_path / "data" / cifar10.SUBFOLDER
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        (*cifar10.TRAIN_FILES, cifar10.TEST_FILE)
    )
    assert not list(tmp_path.rglob("escaped.bin"))
    assert not list((tmp_path / "data").glob("*.part"))  # the archive is not kept
    assert seen and seen[-1] == archive.stat().st_size
    assert data.describe(str(tmp_path / "data")).train_samples == 15
    # Already there: nothing is fetched again (the URL would fail).
    assert download_cifar10(tmp_path / "data", url="file:///nothing/here") == folder


def test_download_refuses_a_corrupt_archive_and_says_when_offline(tmp_path):
    archive, _ = _archive(tmp_path)
    with pytest.raises(ConfigError, match="is corrupt \\(MD5 .*, expected 0000"):
        download_cifar10(tmp_path / "a", url=archive.as_uri(), md5="0" * 32)
    assert not (tmp_path / "a" / cifar10.SUBFOLDER / cifar10.TEST_FILE).exists()
    with pytest.raises(ConfigError, match="This machine looks offline.*--dataset patterns10"):
        download_cifar10(tmp_path / "b", url=(tmp_path / "missing.tar.gz").as_uri())


def test_patterns10_is_the_same_every_time_and_holds_every_class():
    first = patterns.generate(train=300, test=100)
    again = patterns.generate(train=300, test=100)
    other = patterns.generate(seed=1, train=300, test=100)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])
    x_train, y_train, x_test, y_test = first
    assert x_train.shape == (300, 32, 32, 3) and x_train.dtype == np.uint8
    assert x_test.shape == (100, 32, 32, 3)
    assert set(y_train.tolist()) == set(range(10))
    assert 100 < x_train.mean() < 160  # mid-grey with patterns and noise, not saturated


def test_batches_visit_every_image_once_per_epoch_normalised_and_shaped():
    images = np.arange(10 * 2 * 2 * 3, dtype=np.uint8).reshape(10, 2, 2, 3)
    labels = np.arange(10)
    mean = np.array([10.0, 20.0, 30.0], dtype=np.float32)
    std = np.array([2.0, 4.0, 5.0], dtype=np.float32)
    batches = Batches(images, labels, 3, seed=0, mean=mean, std=std, channels_first=True)
    assert batches.steps_per_epoch == 3
    first_epoch = [batches.next() for _ in range(3)]
    seen = np.concatenate([y for _, y in first_epoch])
    assert len(set(seen.tolist())) == 9  # 3 batches of 3; the 10th image waits (last dropped)
    x, y = batches.next()
    assert batches.epochs_started == 2
    assert x.shape == (3, 3, 2, 2) and x.dtype == np.float32
    expected = (images[y].transpose(0, 3, 1, 2) - mean[None, :, None, None]) / std[
        None, :, None, None
    ]
    np.testing.assert_allclose(x, expected, rtol=1e-6)
    np.testing.assert_allclose(
        normalised(images[y], mean, std, channels_first=True), expected, rtol=1e-6
    )


def test_an_accuracy_study_reads_a_runs_data_words(tmp_path, monkeypatch):
    """One data language (issue 41): cifar10:PATH and cifar10 (the data folder's) name the same
    folder for accuracy as for a timed run's --data; a bare folder still reads."""
    from engine.workloads.data import source

    _cifar_folder(tmp_path / "c")
    by_words = data.describe(f"cifar10:{tmp_path / 'c'}")
    assert by_words == data.describe(str(tmp_path / "c"))
    assert by_words.train_samples == 15 and by_words.source == str(tmp_path / "c")
    monkeypatch.setattr(source, "default_cifar10_folder", lambda: tmp_path / "c")
    assert data.describe("cifar10") == by_words
    assert data.load(f"cifar10:{tmp_path / 'c'}").x_test.shape == (2, 32, 32, 3)
