"""Issue 17: a stored result is never replaced or lost, and a store that cannot be used is one
sentence naming the file (exit 3), never a traceback."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from engine.cli import main
from engine.core import paths
from engine.core.errors import ConfigError, StoreError
from engine.results.files import write_json
from engine.results.store import Store
from tests.engine.test_store import _result

RUN_ID = "20261122T030000-aaaa0001"
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def _stored(tput: float = 100.0) -> Store:
    store = Store()
    store.add(_result(RUN_ID, tput))
    return store


def _body(store: Store) -> dict:
    return store.get(RUN_ID)


# import collisions ----------------------------------------------------------------------------


def test_importing_the_same_result_again_is_a_no_op_that_says_so(tmp_path, capsys):
    store = _stored()
    path = write_json(tmp_path / "same.json", _result(RUN_ID))
    assert main(["results", "import", str(path)]) == 0
    assert "already stored with the same content" in capsys.readouterr().out
    assert len(store.list()) == 1


def test_importing_a_different_result_under_a_stored_id_is_refused(tmp_path, capsys):
    store = _stored(100.0)
    path = write_json(tmp_path / "other.json", _result(RUN_ID, 999.0))
    assert main(["results", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert "already stored" in err and "--new-id" in err and "Traceback" not in err
    assert _body(store)["throughput_samples_per_s"] == 100.0  # the stored one is unchanged


def test_import_new_id_keeps_both(tmp_path, capsys):
    store = _stored(100.0)
    path = write_json(tmp_path / "other.json", _result(RUN_ID, 999.0))
    assert main(["results", "import", str(path), "--new-id"]) == 0
    assert f"{RUN_ID}-2" in capsys.readouterr().out
    assert _body(store)["throughput_samples_per_s"] == 100.0
    assert store.get(f"{RUN_ID}-2")["throughput_samples_per_s"] == 999.0
    # the same file again finds its copy: nothing more is added
    assert main(["results", "import", str(path), "--new-id"]) == 0
    assert len(store.list()) == 2


def test_the_store_never_replaces_a_result():
    store = _stored(100.0)
    with pytest.raises(ConfigError, match="already stored"):
        store.add(_result(RUN_ID, 5.0))
    assert store.add(_result(RUN_ID, 100.0)).outcome == "unchanged"
    assert _body(store)["throughput_samples_per_s"] == 100.0


# --out never over the store; never a partial file --------------------------------------------


@pytest.mark.parametrize("companion", ["", "-wal"])
def test_export_onto_the_store_is_refused(capsys, companion):
    store = _stored()
    before = store.path.read_bytes()
    target = str(store.path) + companion
    assert main(["results", "export", RUN_ID, "--out", target]) == 2
    err = capsys.readouterr().err
    assert "is the results store" in err and "--out" in err
    assert store.path.read_bytes() == before
    assert _body(store)["run_id"] == RUN_ID


def test_export_onto_another_sqlite_file_or_a_folder_is_refused(tmp_path, capsys):
    _stored()
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    assert main(["results", "export", RUN_ID, "--out", str(other)]) == 2
    assert "SQLite database" in capsys.readouterr().err
    assert main(["results", "export", RUN_ID, "--out", str(tmp_path)]) == 2
    assert "is a folder; give a file name" in capsys.readouterr().err


def test_a_full_disk_leaves_no_partial_file(tmp_path):
    """RLIMIT_FSIZE makes the export's write fail as a full disk would (EFBIG), for real: the
    store's own files (its 32 kB shared-memory file) fit under the limit, the result does not."""
    big = _result(RUN_ID)
    big["notes"] = "x" * 100_000
    Store().add(big)
    out = tmp_path / "out.json"
    out.write_text("the previous contents\n")
    code = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (50_000, 50_000))\n"
        "from engine.cli import main\n"
        f"sys.exit(main(['results', 'export', {RUN_ID!r}, '--out', {str(out)!r}]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "cannot be written" in proc.stderr and "Traceback" not in proc.stderr
    assert out.read_text() == "the previous contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["epochcost-home", "out.json"]


# read-only commands and stores that cannot be used ------------------------------------------


def test_read_only_commands_do_not_create_a_store(capsys):
    assert main(["results", "list"]) == 0
    assert "no results yet" in capsys.readouterr().out
    assert not paths.database(create=False).exists()
    assert main(["results", "show", "2026"]) == 2
    assert "no result" in capsys.readouterr().err


def _damage(path):
    path.write_bytes(b"this is not a database at all" * 100)


@pytest.mark.parametrize(
    "argv",
    [
        ["results", "list"],
        ["results", "show", RUN_ID],
        ["results", "export", RUN_ID, "--out", "x.json"],
        ["results", "import", "IMPORT"],
        ["results", "delete", RUN_ID],
    ],
)
@pytest.mark.parametrize("fault", ["damaged", "folder"])
def test_a_store_that_cannot_be_used_is_one_sentence(tmp_path, capsys, monkeypatch, argv, fault):
    monkeypatch.chdir(tmp_path)
    importable = write_json(tmp_path / "in.json", _result(RUN_ID))
    argv = [str(importable) if a == "IMPORT" else a for a in argv]
    db = paths.database()
    if fault == "damaged":
        _damage(db)
    else:
        db.mkdir()
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(db) in err
    assert len(err.strip().splitlines()) == 1
    assert ("damaged" if fault == "damaged" else "is a folder") in err
    assert not (tmp_path / "x.json").exists()


def test_a_locked_store_is_said_after_the_wait(monkeypatch, capsys, tmp_path):
    store = _stored()
    monkeypatch.setattr(Store, "lock_timeout_s", 0.2)
    holder = sqlite3.connect(store.path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        path = write_json(tmp_path / "new.json", _result("20261122T030000-bbbb0002"))
        assert main(["results", "import", str(path)]) == 3
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = capsys.readouterr().err
    assert "in use by another epochcost" in err and "Traceback" not in err


def test_the_store_is_read_while_another_process_writes(tmp_path):
    """A read-only open sees a WAL store that has an open writer."""
    store = _stored()
    writer = sqlite3.connect(store.path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        assert Store(readonly=True).get(RUN_ID)["run_id"] == RUN_ID
    finally:
        writer.execute("ROLLBACK")
        writer.close()


@pytest.mark.skipif(ROOT, reason="root reads and writes any file: permissions cannot be tested")
def test_a_read_only_store_reads_and_refuses_writes(tmp_path, capsys):
    store = _stored()
    home = store.path.parent
    store.path.chmod(0o444)
    home.chmod(0o555)
    try:
        assert main(["results", "show", RUN_ID]) == 0
        capsys.readouterr()
        path = write_json(tmp_path / "new.json", _result("20261122T030000-bbbb0002"))
        assert main(["results", "import", str(path)]) == 3
        assert "Traceback" not in capsys.readouterr().err
    finally:
        home.chmod(0o755)
        store.path.chmod(0o644)


def test_store_errors_are_os_errors_naming_the_file(tmp_path):
    db = tmp_path / "r.sqlite3"
    _damage(db)
    with pytest.raises(StoreError) as info:
        Store(db).list()
    assert info.value.path == str(db) and isinstance(info.value, OSError)
    assert json.dumps(str(info.value))  # one plain sentence
