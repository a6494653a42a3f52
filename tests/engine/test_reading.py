"""One way to read a file the user gives (engine/core/reading.py): a FIFO, a device or a link
loop is refused before anything waits on it; a byte-order mark is read; an integer no float can
hold is refused where the file is named. And --out never replaces epochcost's own files."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from engine.cli import main
from engine.core import reading
from engine.results.store import Store
from tests.engine.test_report import stored_results
from tests.engine.test_store import _result

RUN_ID = "20261122T030000-aaaa0003"
posix = pytest.mark.skipif(os.name != "posix", reason="FIFOs and links are POSIX")


def _no_hang(argv: list[str]) -> int:
    """main(argv) in a thread that must end within 20 s: a FIFO opened to read would wait for
    ever for a writer."""
    code: list[int] = []
    worker = threading.Thread(target=lambda: code.append(main(argv)), daemon=True)
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), f"{argv} waits on the FIFO"
    return code[0]


@posix
@pytest.mark.parametrize(
    "argv",
    [
        ["results", "import", "{fifo}"],
        ["compare", "{fifo}"],
        ["project", "{fifo}", "--gpu", "all"],
        ["report", "{fifo}", "--out", "{out}"],
    ],
    ids=["import", "compare", "project", "report"],
)
def test_a_fifo_given_as_a_result_file_is_refused_without_waiting(
    argv, tmp_path, epochcost_home, capsys
):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    argv = [a.format(fifo=fifo, out=tmp_path / "r.html") for a in argv]
    assert _no_hang(argv) == 2
    err = capsys.readouterr().err
    assert f"{fifo}: is a FIFO (a named pipe), not a file; give a result file" in err
    assert "Traceback" not in err and not (tmp_path / "r.html").exists()


@posix
def test_a_link_loop_is_refused_as_input_and_as_out(tmp_path, epochcost_home, capsys):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert main(["results", "import", str(tmp_path / "a")]) == 2
    assert "cannot be read" in capsys.readouterr().err
    Store().add(_result(RUN_ID))
    assert main(["results", "export", RUN_ID, "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert f"--out: {tmp_path / 'a'} cannot be followed" in err and "Traceback" not in err
    assert (tmp_path / "a").is_symlink()


def test_a_byte_order_mark_is_read(tmp_path, epochcost_home, capsys):
    # Windows editors write one; Python's json refuses it with advice meant for programmers.
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(_result(RUN_ID)).encode())
    assert main(["results", "import", str(path)]) == 0
    assert Store().get(RUN_ID)["run_id"] == RUN_ID


@pytest.mark.parametrize("digits", [400, 5000])
def test_an_integer_no_float_can_hold_is_refused_naming_the_file(
    digits, tmp_path, epochcost_home, capsys
):
    text = json.dumps(_result(RUN_ID))
    assert '"usd_per_hour": 0.9' in text
    path = tmp_path / "big.json"
    path.write_text(text.replace('"usd_per_hour": 0.9', f'"usd_per_hour": {"9" * digits}'))
    assert main(["results", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: holds the integer 999999999999... ({digits:,} digits)" in err
    assert "set_int_max_str_digits" not in err and "internal error" not in err
    assert len(Store().list()) == 0


def test_loads_keeps_the_integers_a_float_holds():
    assert reading.loads('{"n": 100000000000000000000000000000}') == {"n": 10**29}
    with pytest.raises(reading.BadJson, match="NaN, which is not a number"):
        reading.loads('{"n": NaN}')
    with pytest.raises(reading.BadJson, match="not valid JSON"):
        reading.loads("{")


def test_out_never_replaces_epochcosts_own_files(tmp_path, epochcost_home, capsys):
    Store().add(_result(RUN_ID))
    own = {
        epochcost_home / "profiles.json": '{"schema": 1, "profiles": []}\n',
        epochcost_home / "catalog" / "instances.csv": "provider,instance\n",
    }
    for path, text in own.items():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        assert main(["results", "export", RUN_ID, "--out", str(path)]) == 2
        err = capsys.readouterr().err
        assert "is one of epochcost's own files in its data folder" in err
        assert path.read_text() == text
    # A link elsewhere that points into the data folder is followed to what it would replace.
    link = tmp_path / "innocent.json"
    link.symlink_to(epochcost_home / "profiles.json")
    assert main(["results", "export", RUN_ID, "--out", str(link)]) == 2
    assert "is one of epochcost's own files" in capsys.readouterr().err
    # A new name in the data folder replaces nothing.
    assert main(["results", "export", RUN_ID, "--out", str(epochcost_home / "new.json")]) == 0


def test_a_report_of_good_files_still_reads_them(tmp_path, epochcost_home):
    ids = stored_results(epochcost_home)
    out = tmp_path / "r.html"
    assert main(["report", *ids, "--out", str(out)]) == 0
    assert Path(out).read_text().startswith("<!DOCTYPE html>")


@posix
def test_a_fifo_among_the_other_inputs_is_refused_without_waiting(tmp_path):
    # The user's catalog files, a saved cloud job log and SkyPilot's vms.csv are read the same
    # way: a FIFO there would have stopped every command that reads the catalog.
    from engine.cloud import log, prices
    from engine.core.errors import ConfigError
    from engine.pricing import catalog

    fifo = tmp_path / "instances.csv"
    os.mkfifo(fifo)
    rows, problems = catalog.read_rows(fifo, "instances", "user")
    assert rows == [] and [p.message for p in problems] == [
        "cannot be read (a FIFO (a named pipe), not a file); file skipped"
    ]
    for read in (log.read, prices.read_vms):
        with pytest.raises(ConfigError, match=r"cannot be read \(a FIFO \(a named pipe\), not a"):
            read(fifo)
