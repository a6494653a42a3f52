"""Issue 32: one write path. A regular file or a new path is written whole or not at all; a
link's target is written and the link kept; a device or a FIFO is written straight into and
stays what it was; a folder is refused; a write that fails is one line, exit 3, and what was
there is kept. For `results export`, `run --out` and `report --out`.

Device nodes are made in the test's own folder (os.mknod, as root) with the numbers of the
machine's /dev/full (1, 7) and /dev/null (1, 3): the tests never touch /dev itself."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine.cli import main
from engine.core import writing
from engine.core.errors import StoreError
from engine.results.store import Store
from tests.engine.test_report import stored_results
from tests.engine.test_store import _result

RUN_ID = "20261122T030000-aaaa0001"
RUN_OUT_ID = "20261122T030000-aaaa0002"
CAN_MKNOD = hasattr(os, "geteuid") and os.geteuid() == 0
posix = pytest.mark.skipif(os.name != "posix", reason="links, devices and FIFOs are POSIX")
needs_root = pytest.mark.skipif(not CAN_MKNOD, reason="os.mknod of a device needs root")
COMMANDS = ["export", "run", "report"]


def _argv(command: str, out: Path, home: Path, monkeypatch) -> list[str]:
    """The command line that writes to `out` (run's worker replaced: the file is the subject)."""
    if command == "export":
        Store().add(_result(RUN_ID))
        return ["results", "export", RUN_ID, "--out", str(out)]
    if command == "report":
        return ["report", *stored_results(home), "--out", str(out)]
    monkeypatch.setattr(
        "engine.cli.cmd_run.run_worker", lambda *a, **k: (_result(RUN_OUT_ID), None, {})
    )
    return ["run", "--model", "tiny-mlp", "--device", "cpu", "--out", str(out)]


def _written(command: str, text: str) -> None:
    if command == "report":
        assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    else:
        assert json.loads(text)["run_id"] in (RUN_ID, RUN_OUT_ID)


def _untouched_folder(folder: Path, *names: str) -> None:
    """No temporary file left beside the target."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)


@posix
@pytest.mark.parametrize("command", COMMANDS)
def test_a_link_is_followed_and_kept(command, tmp_path, epochcost_home, monkeypatch, capsys):
    target = tmp_path / "real" / "target.html"
    target.parent.mkdir()
    target.write_text("old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.html"
    link.symlink_to(target)
    assert main(_argv(command, link, epochcost_home, monkeypatch)) == 0, capsys.readouterr().err
    assert link.is_symlink() and link.resolve() == target
    _written(command, target.read_text())
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # replaced whole, its mode kept
    _untouched_folder(target.parent, "target.html")


@posix
@needs_root
@pytest.mark.parametrize("command", COMMANDS)
def test_a_device_is_written_into_and_stays_a_device(
    command, tmp_path, epochcost_home, monkeypatch, capsys
):
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    assert main(_argv(command, null, epochcost_home, monkeypatch)) == 0, capsys.readouterr().err
    assert stat.S_ISCHR(null.lstat().st_mode) and null.lstat().st_rdev == os.makedev(1, 3)


@posix
@needs_root
@pytest.mark.parametrize("command", COMMANDS)
def test_a_full_device_is_one_line_and_stays_a_device(
    command, tmp_path, epochcost_home, monkeypatch, capsys
):
    full = tmp_path / "full"
    os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    assert main(_argv(command, full, epochcost_home, monkeypatch)) == 3
    err = capsys.readouterr().err
    assert f"{full}: cannot be written (No space left on device)" in err, err
    assert "Traceback" not in err and "internal error" not in err
    assert stat.S_ISCHR(full.lstat().st_mode) and full.lstat().st_rdev == os.makedev(1, 7)
    if command == "run":  # the measured result is kept all the same
        assert Store().get(RUN_OUT_ID)["run_id"] == RUN_OUT_ID


@posix
@pytest.mark.parametrize("command", COMMANDS)
def test_a_fifo_is_written_into_without_hanging(
    command, tmp_path, epochcost_home, monkeypatch, capsys
):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    argv = _argv(command, fifo, epochcost_home, monkeypatch)
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert main(argv) == 0, capsys.readouterr().err
    reader.join(10)
    assert not reader.is_alive()
    _written(command, read[0].decode())
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@posix
@pytest.mark.parametrize("command", COMMANDS)
def test_a_fifo_nobody_reads_is_given_up_on(command, tmp_path, epochcost_home, monkeypatch, capsys):
    monkeypatch.setattr(writing, "FIFO_WAIT_S", 0.3)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert main(_argv(command, fifo, epochcost_home, monkeypatch)) == 3
    err = capsys.readouterr().err
    assert "a FIFO nothing read within 0.3 s" in err and "Traceback" not in err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    if command == "run":
        assert Store().get(RUN_OUT_ID)["run_id"] == RUN_OUT_ID


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_is_refused(command, tmp_path, epochcost_home, monkeypatch, capsys):
    folder = tmp_path / "out.html"
    folder.mkdir()
    assert main(_argv(command, folder, epochcost_home, monkeypatch)) == 2
    err = capsys.readouterr().err
    assert "is a folder; give a file name" in err and "Traceback" not in err
    assert folder.is_dir() and list(folder.iterdir()) == []


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("tail", ["/", "//", "/."])
def test_a_name_that_ends_in_a_separator_names_a_folder_and_replaces_no_file(
    command, tail, tmp_path, epochcost_home, monkeypatch, capsys
):
    # Path("kept.html/") is Path("kept.html"): read as a Path, the slash would be lost and the
    # file the user meant as a folder replaced.
    out = tmp_path / "out" / "kept.html"
    out.parent.mkdir()
    out.write_text("the previous contents\n")
    argv = _argv(command, out, epochcost_home, monkeypatch)
    argv[argv.index(str(out))] = str(out) + tail
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --out: {out}{tail} ends in" in err and "names a folder" in err
    assert "Traceback" not in err
    assert out.read_text() == "the previous contents\n"
    _untouched_folder(out.parent, "kept.html")


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_name_is_refused(command, tmp_path, epochcost_home, monkeypatch, capsys):
    argv = _argv(command, tmp_path / "x", epochcost_home, monkeypatch)
    argv[argv.index(str(tmp_path / "x"))] = ""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "argument --out: is empty: give a file name" in capsys.readouterr().err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_failed_write_keeps_the_file_and_leaves_nothing(
    command, tmp_path, epochcost_home, monkeypatch, capsys
):
    out = tmp_path / "out" / "kept.html"
    out.parent.mkdir()
    out.write_text("the previous contents\n")
    argv = _argv(command, out, epochcost_home, monkeypatch)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(writing.os, "fsync", full)
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert f"{out}: cannot be written (No space left on device); nothing was written there" in err
    assert out.read_text() == "the previous contents\n"
    _untouched_folder(out.parent, "kept.html")


def test_a_missing_folder_is_one_line(tmp_path):
    with pytest.raises(StoreError, match="folder .* does not exist"):
        writing.write_text(tmp_path / "nope" / "x.json", "{}")


def test_text_that_cannot_be_encoded_leaves_no_file(tmp_path):
    out = tmp_path / "report.html"
    with pytest.raises(StoreError, match="not valid Unicode"):
        writing.write_text(out, "bad \ud800 text")
    assert list(tmp_path.iterdir()) == []


@posix
def test_a_dangling_link_writes_its_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    writing.write_text(link, "{}\n")
    assert link.is_symlink() and (tmp_path / "new.json").read_text() == "{}\n"


@posix
def test_dev_stdout_is_written_at_the_shells_place(tmp_path, epochcost_home):
    """`--out /dev/stdout >> file`: the file the shell opened keeps what it had, the result
    follows it, then the line that says so (one descriptor, one offset)."""
    Store().add(_result(RUN_ID))
    out = tmp_path / "appended.txt"
    out.write_text("kept\n")
    argv = ["results", "export", RUN_ID, "--out", "/dev/stdout"]
    code = f"import sys; from engine.cli import main; sys.exit(main({argv!r}))"
    with out.open("a") as stdout:
        proc = subprocess.run([sys.executable, "-c", code], stdout=stdout, timeout=120)
    assert proc.returncode == 0
    text = out.read_text()
    assert text.startswith("kept\n{") and text.endswith("}\nwrote /dev/stdout\n")
    assert json.loads(text[len("kept\n") : -len("wrote /dev/stdout\n")])["run_id"] == RUN_ID
