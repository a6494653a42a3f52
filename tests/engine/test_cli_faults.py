"""Issue 17 on the command line: a measured run is never lost, bad options are exit 2 naming
the option, a closed pipe is no traceback."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys

import pytest

from engine.cli import build_parser, main
from engine.cli.common import option_name
from engine.core import paths
from engine.measure.config import RunConfig
from engine.results.store import Store
from tests.engine.helpers import TINY_ARGS


def _hold_lock(path):
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    return holder


@pytest.mark.parametrize("with_out", [False, True])
def test_a_run_the_store_cannot_take_is_kept_and_said(tmp_path, monkeypatch, capsys, with_out):
    store = Store()  # made, then locked by another process for the whole run
    monkeypatch.setattr(Store, "lock_timeout_s", 0.2)
    holder = _hold_lock(store.path)
    out = tmp_path / "run.json"
    argv = ["run", *TINY_ARGS, "--device", "cpu", "--price-per-hour", "0.9"]
    try:
        code = main(argv + (["--out", str(out)] if with_out else []))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    captured = capsys.readouterr()
    assert code == 3, captured.err
    assert "Traceback" not in captured.err and "could not take it" in captured.err
    kept = out if with_out else paths.recovered() / f"{_run_id(captured.out)}.json"
    assert str(kept) in captured.err
    result = json.loads(kept.read_text())
    assert result["status"] == "ok" and result["throughput_samples_per_s"] > 0
    assert not (paths.home() / "recovered").exists() or not with_out
    # the kept file goes into the store once it works again
    assert main(["results", "import", str(kept)]) == 0
    assert Store().get(result["run_id"])["throughput_samples_per_s"] == pytest.approx(
        result["throughput_samples_per_s"]
    )


def _run_id(summary: str) -> str:
    return next(line.split()[-1] for line in summary.splitlines() if line.startswith("run id"))


@pytest.mark.parametrize("target", ["store", "wal", "folder", "no-folder"])
def test_run_out_is_refused_before_measuring(tmp_path, capsys, target):
    store = Store()
    store.add  # noqa: B018 - the store exists
    before = store.path.read_bytes()
    out = {
        "store": store.path,
        "wal": store.path.with_name(store.path.name + "-wal"),
        "folder": tmp_path,
        "no-folder": tmp_path / "nowhere" / "r.json",
    }[target]
    assert main(["run", *TINY_ARGS, "--device", "cpu", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "Traceback" not in err
    assert store.path.read_bytes() == before


@pytest.mark.parametrize("command", ["run", "sweep"])
@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--memory-limit-mb", "0", "1 MB or more"),
        ("--model", "", "give a model name"),
        ("--model", "   ", "give a model name"),
        ("--price-date", "2024-01-01GARBAGE", "YYYY-MM-DD"),
        ("--price-date", "20240101", "YYYY-MM-DD"),
        ("--price-per-hour", "nan", "not a number"),
        ("--price-per-hour", "inf", "not a number"),
        ("--max-seconds", "nan", "not a number"),
        ("--build-timeout", "nan", "give 1 to 86400"),
    ],
)
def test_bad_run_options_name_the_option(capsys, command, option, value, words):
    assert main([command, *TINY_ARGS_WITHOUT(option), option, value, "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert f"{option}:" in err and words in err and "Traceback" not in err
    assert Store(readonly=True).list().empty


def TINY_ARGS_WITHOUT(option: str) -> list[str]:  # noqa: N802 - reads as the constant it edits
    args = list(TINY_ARGS)
    if option in args:
        i = args.index(option)
        del args[i : i + 2]
    return args


def test_accuracy_refuses_the_same_options(capsys):
    base = ["accuracy", "--target", "0.5", "--device", "cpu", "--dataset", "synthetic"]
    assert main([*base, "--memory-limit-mb", "0"]) == 2
    assert "--memory-limit-mb: " in capsys.readouterr().err
    assert main([*base, "--price-date", "2024-01-01GARBAGE"]) == 2
    assert "--price-date: " in capsys.readouterr().err


# A data-parallel run's fields (run --nproc, scaling): a sweep's trials are one process each.
DATA_PARALLEL = {"nproc", "nnodes", "node_rank", "rdzv_endpoint", "rdzv_timeout_s"}


def test_every_run_config_field_names_an_option_that_exists():
    """An error on a config field names an option the user can type (no --memory-limit-bytes,
    no --price-as-of)."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    for command in ("run", "sweep"):
        options = {s for a in subparsers[command]._actions for s in a.option_strings}
        for field in RunConfig.known_fields() - {"stability_threshold"}:  # no option: fixed
            if command == "sweep" and field == "batch_size":
                continue  # the sweep chooses batch sizes
            if command == "sweep" and field in DATA_PARALLEL:
                continue  # one process a trial: left at their defaults, never wrong
            assert option_name(field) in options, (command, field)


@pytest.mark.parametrize("argv", [["results", "list"], ["catalog", "instances"]])
def test_a_closed_pipe_is_no_traceback(argv):
    """`epochcost results list | head -1`: the reader has gone before the writing ends."""
    if argv[0] == "results":
        from tests.engine.test_store import _result

        store = Store()
        for i in range(300):
            store.add(_result(f"20261122T030000-{i:08x}"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    # The reader leaves before anything is written (the listing, 30-40 KB, fits a 64 KiB pipe:
    # a reader that first took a line could leave after the whole was written, and CI saw exit
    # 0), so the first write meets the closed pipe, every time.
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err
    assert proc.returncode == 141, err


def test_control_characters_are_never_printed_raw(tmp_path, capsys):
    from tests.engine.test_store import _result

    result = _result("20261122T030000-cccc0001")
    result["config"].update(model="evil\x1b[2J\x07name", model_file="/x/\x1b]0;title\x07.py")
    result["warnings"] = ["ring\x07 the bell", "line\nbreak kept"]
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(result))
    assert main(["results", "import", str(path)]) == 0
    for argv in (["results", "show", result["run_id"]], ["results", "list"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\x07" not in out
    assert main(["results", "show", result["run_id"]]) == 0
    assert "evil\\x1b[2J\\x07name" in capsys.readouterr().out


@pytest.mark.skipif(
    not (hasattr(os, "geteuid") and os.geteuid() == 0), reason="os.mknod of a device needs root"
)
@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["--version"]])
def test_help_written_to_a_full_device_is_not_a_success(tmp_path, argv):
    """argparse ignores a failed write of its help: `--help > /dev/full` exited 0, the help
    lost. The device is made in the test's folder with /dev/full's numbers (1, 7)."""
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    with open(full, "w") as out:
        proc = subprocess.run(
            [sys.executable, "-m", "engine.cli", *argv],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 3
    assert (
        proc.stderr == "epochcost: error: the output cannot be written (No space left on device)\n"
    )
    # A usage error still exits 2 when its message cannot be written.
    with open(full, "w") as err:
        bad = subprocess.run(
            [sys.executable, "-m", "engine.cli", "run", "--batch-size", "x"],
            stderr=err,
            timeout=120,
        )
    assert bad.returncode == 2
