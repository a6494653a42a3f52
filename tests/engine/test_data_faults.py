"""Data that would hang or break a run (issue 39): a FIFO, a socket or a device named like an
image in a class folder is refused, not waited on; a loop of links given as --data or met
inside an image folder is one line naming it; a model file's make_dataset whose items sleep is
bounded by the run's time limit (max_seconds), waiting for data included."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from engine.cli import main
from engine.core.errors import ConfigError
from engine.core.events import Failed
from engine.workloads.data import imagefolder
from tests.engine.data_helpers import image_folder
from tests.engine.helpers import TINY, run_events


def _scan_within(folder, seconds: float = 20.0):
    """imagefolder.scan(folder), failing the test (not hanging it) when it waits."""
    outcome: list[BaseException | object] = []

    def scan() -> None:
        try:
            outcome.append(imagefolder.scan(folder))
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=scan, daemon=True)
    thread.start()
    thread.join(seconds)
    if not outcome:
        fd = os.open(next(folder.glob("*/x.jpg")), os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)  # lets the waiting reader go
        pytest.fail("the scan waited on the FIFO")
    return outcome[0]


def test_a_fifo_named_like_an_image_is_refused_not_waited_on(tmp_path):
    folder = image_folder(tmp_path / "set", images=6, classes=2)
    os.mkfifo(folder / "class_001" / "x.jpg")
    refused = _scan_within(folder)
    assert isinstance(refused, ConfigError)
    assert (
        f"{folder}/class_001/x.jpg is a FIFO (a named pipe), not an image file" in refused.message
    )


def test_a_socket_named_like_an_image_is_refused(tmp_path):
    import socket

    folder = image_folder(tmp_path / "set", images=6, classes=2)
    here = os.getcwd()
    with socket.socket(socket.AF_UNIX) as sock:
        os.chdir(folder / "class_000")  # a relative name: a socket's path holds 107 bytes at most
        try:
            sock.bind("x.jpg")
        finally:
            os.chdir(here)
        refused = _scan_within(folder)
    assert isinstance(refused, ConfigError)
    assert f"{folder}/class_000/x.jpg is a socket, not an image file" in refused.message


def test_a_device_named_like_an_image_is_refused(tmp_path):
    import stat

    if os.geteuid() != 0:
        pytest.skip("making a device node needs root (mknod)")
    folder = image_folder(tmp_path / "set", images=6, classes=2)
    # A private node in tmp_path (the null device's numbers), never a real /dev path.
    try:
        os.mknod(folder / "class_001" / "x.jpg", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("this container does not let root make device nodes")
    refused = _scan_within(folder)
    assert isinstance(refused, ConfigError)
    assert f"{folder}/class_001/x.jpg is a device, not an image file" in refused.message


def test_a_link_to_nothing_named_like_an_image_is_named(tmp_path):
    folder = image_folder(tmp_path / "set", images=6, classes=2)
    (folder / "class_000" / "gone.jpg").symlink_to(tmp_path / "nowhere.jpg")
    with pytest.raises(ConfigError, match="gone.jpg is a link to nothing"):
        imagefolder.scan(folder)


def test_a_loop_of_links_inside_an_image_folder_is_named(tmp_path):
    folder = image_folder(tmp_path / "set", images=6, classes=2)
    (folder / "class_000" / "up").symlink_to(folder)
    with pytest.raises(ConfigError) as refused:
        imagefolder.scan(folder)
    assert f"{folder}/class_000/up/class_000 leads back to {folder}/class_000 (a loop" in (
        refused.value.message
    )


@pytest.mark.parametrize("kind", ["imagefolder", "cifar10"])
@pytest.mark.parametrize("below", ["", "/inner"])
def test_a_loop_of_links_given_as_data_is_one_line(tmp_path, capsys, kind, below):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    argv = ["run", "--model", "tiny-mlp", "--data", f"{kind}:{loop}{below}", "--no-store"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{loop}{below} is a loop of symbolic links" in err
    assert "internal error" not in err and len(err.strip().splitlines()) == 1


SLEEPY = """\
import time

import torch
from torch import nn

INPUT_SHAPE = (8,)
TARGET = ("classes", 3)


class Sleepy(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        time.sleep(600)
        return torch.zeros(8), i % 3


def make_dataset(hints):
    return Sleepy()


def build_model(batch_size, hints):
    return nn.Linear(8, 3)
"""


@pytest.mark.worker
@pytest.mark.parametrize("workers", [0, 1])
def test_a_make_dataset_whose_items_sleep_is_bounded_by_the_time_limit(tmp_path, workers):
    model = tmp_path / "sleepy.py"
    model.write_text(SLEEPY)
    config = TINY.with_changes(
        model="sleepy", model_file=str(model), loader_workers=workers, max_seconds=2.0
    )
    t0 = time.monotonic()
    events = run_events(config)
    assert time.monotonic() - t0 < 120
    failed = events[-1]
    assert isinstance(failed, Failed) and failed.kind == "config", failed
    assert f"data: make_dataset in {model} gave no batch in 2 s" in failed.message


def test_the_data_watchdog_sleeps_until_a_wait_is_armed_then_reports_it():
    """A run on a synthetic batch never arms a bounded wait: the watchdog's thread must not
    wake (each wake takes the interpreter's lock from the training loop). Once armed past its
    deadline, it hands the failure to the handler."""
    from engine.core.errors import RunFailed
    from engine.worker.measure.input_wait import _Watchdog

    dog = _Watchdog()
    reported: list[RunFailed] = []
    dog.handler = reported.append
    thread = threading.Thread(target=dog.watch, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while _state(thread) not in ("S", None) and time.monotonic() < deadline:
        time.sleep(0.01)  # until it sleeps (a loaded machine may start it late)
    switches = _voluntary_switches(thread)
    time.sleep(0.6)  # more than two of the armed polls' periods
    assert thread.is_alive() and not reported
    if switches is not None:  # Linux: the thread did not run at all meanwhile
        assert _voluntary_switches(thread) == switches
    failure = RunFailed("config", "data: the batch gave no batch")
    dog.arm(0.0, failure)
    thread.join(timeout=5)
    assert reported == [failure]


def _voluntary_switches(thread: threading.Thread) -> int | None:
    """How often a thread has gone to sleep (Linux's count; None elsewhere)."""
    try:
        status = Path(f"/proc/self/task/{thread.native_id}/status").read_text()
    except OSError:
        return None
    return int(status.split("voluntary_ctxt_switches:")[1].split()[0])


def _state(thread: threading.Thread) -> str | None:
    """A thread's scheduler state (Linux: "R" running, "S" asleep; None elsewhere)."""
    try:
        stat = Path(f"/proc/self/task/{thread.native_id}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]
