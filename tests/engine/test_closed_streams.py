"""Issue 32: a command started with a standard stream closed (`>&-`, `2>&-`) ends as it would
with it open: a run completes and is stored, and nothing says "internal error"; and
`results list` with one damaged row lists the rest and names that row (it can be deleted)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from engine.cli import main
from engine.results.store import Store
from tests.engine.helpers import TINY_ARGS
from tests.engine.test_store import _result

pytestmark = pytest.mark.skipif(os.name != "posix", reason="a shell closes the stream")
DAMAGED, HEALTHY = "20261122T030000-aaaa0001", "20261122T030000-aaaa0002"


def _closed(redirect: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`epochcost ARGS` with `redirect` (`>&-`, `2>&-`) applied by a shell, as a user types it."""
    command = f'exec "$@" {redirect}'
    argv = ["sh", "-c", command, "sh", sys.executable, "-m", "engine.cli", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=600)


def _run_ids() -> set[str]:
    return set(Store(readonly=True).list()["run_id"])


def test_results_list_with_stdout_closed():
    Store().add(_result(HEALTHY))
    proc = _closed(">&-", "results", "list")
    assert proc.returncode == 0, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("redirect", [">&-", "2>&-", ">&- 2>&- <&-"])
def test_a_run_with_a_stream_closed_completes_and_is_stored(redirect):
    proc = _closed(redirect, "run", *TINY_ARGS, "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    assert "internal error" not in proc.stderr + proc.stdout
    assert len(_run_ids()) == 1
    if redirect == "2>&-":  # what could be printed was
        assert "throughput" in proc.stdout


def _store_with_a_damaged_row() -> Store:
    store = Store()
    store.add(_result(DAMAGED))
    store.add(_result(HEALTHY, 250.0))
    with store._connect() as db:
        db.execute("UPDATE results SET body = 'not json {' WHERE run_id = ?", (DAMAGED,))
    return store


def test_results_list_names_a_damaged_row_and_lists_the_rest(capsys):
    _store_with_a_damaged_row()
    assert main(["results", "list"]) == 0
    out, err = capsys.readouterr()
    assert HEALTHY in out and "250.0" in out
    assert f"stored result {DAMAGED} cannot be read" in err
    assert "move it aside" not in err and len(err.strip().splitlines()) == 1
    assert main(["results", "show", DAMAGED]) == 2
    assert "results delete" in capsys.readouterr().err
    assert main(["results", "delete", DAMAGED]) == 0  # as the message says
    assert _run_ids() == {HEALTHY}
    assert main(["results", "list"]) == 0
    assert capsys.readouterr().err == ""
