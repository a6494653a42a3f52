"""Batch-size sweeps and the max-fit search on real worker processes (tiny model, CPU)."""

from __future__ import annotations

import json
import stat
import sys
import threading

import pytest

from engine.cli import main
from engine.process.launcher import WorkerSpec
from engine.results.store import Store
from engine.sweep.events import (
    SweepFinished,
    SweepStarted,
    TrialFinished,
    TrialProgress,
    TrialStarted,
)
from engine.sweep.plan import SweepPlan
from engine.sweep.runner import Sweep, run_sweep
from tests.engine.helpers import TINY, cli_here, started_here

# The max-fit case: tiny-mlp needs about 12.9 KiB per sample (the 3x32x32 input alone is
# 12 KiB) on top of ~11 MiB, so under a 48 MiB cap the boundary lies near batch 2950: 2048 fits
# with ~12 MiB to spare and 4096 overshoots by ~14 MiB, whatever the exact overhead.
MAXFIT_CAP_MB = 48
MAXFIT_START, MAXFIT_MULTIPLE = 2048, 256


def test_a_sweep_over_three_batch_sizes_measures_and_stores_each_as_one_group():
    store = Store()
    sweep = Sweep(TINY, SweepPlan(batch_sizes=(16, 32, 64)), store=store)
    events = list(sweep.events())

    assert isinstance(events[0], SweepStarted) and isinstance(events[-1], SweepFinished)
    started = [e.batch_size for e in events if isinstance(e, TrialStarted)]
    assert started == [16, 32, 64]
    steps = [e for e in events if isinstance(e, TrialProgress) and e.event.type == "step"]
    assert {e.batch_size for e in steps} == {16, 32, 64}  # each trial streams its steps
    summary = events[-1].summary
    assert summary.status == "completed"
    assert [(p.batch_size, p.status) for p in summary.points] == [
        (16, "ok"),
        (32, "ok"),
        (64, "ok"),
    ]
    for p in summary.points:
        assert p.value("throughput_samples_per_s") > 0
        assert p.value("usd_per_epoch") > 0  # TINY carries a price of $1/h
    data = summary.to_dict()
    assert data["trials"] == 3 and data["cheapest_basis"] == "usd_per_epoch"
    assert data["cheapest_batch"] in (16, 32, 64) and data["knee_batch"] in (16, 32, 64)
    stored = store.list(group_id=sweep.group_id)
    assert sorted(stored["batch_size"]) == [16, 32, 64]
    assert set(stored["run_id"]) == {p.run_id for p in summary.points}
    assert store.get(summary.points[0].run_id)["sweep"]["group_id"] == sweep.group_id


def test_max_fit_under_a_memory_cap_finds_the_boundary_in_the_expected_trials():
    out = cli_here(
        "sweep",
        "--model", "tiny-mlp", "--threads", "1", "--max-seconds", "5",
        "--warmup-steps", "2", "--min-steps", "5", "--max-steps", "10",
        "--max-fit", "--start", str(MAXFIT_START), "--multiple", str(MAXFIT_MULTIPLE),
        "--memory-limit-mb", str(MAXFIT_CAP_MB), "--price-per-hour", "0.5", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    log = data["trial_log"]
    # 2048 fits, 4096 does not (2 probes); 7 multiples of 256 lie between, bisected in exactly
    # 3 probes; then 1 full run confirms the recommended batch.
    assert data["trials"] == 2 + 3 + 1
    assert [t["batch_size"] for t in log[:2]] == [2048, 4096]
    assert [t["role"] for t in log] == ["probe"] * 5 + ["confirm"]
    assert {t["status"] for t in log} <= {"ok", "oom"}  # out of memory is data; nothing crashed
    max_fit = data["max_fit_batch"]
    assert 2048 <= max_fit < 4096 and max_fit % MAXFIT_MULTIPLE == 0
    assert data["first_failure_batch"] == max_fit + MAXFIT_MULTIPLE
    tried = {t["batch_size"]: t["status"] for t in log if t["role"] == "probe"}
    assert tried[max_fit] == "ok" and tried[max_fit + MAXFIT_MULTIPLE] == "oom"
    assert data["recommended_batch"] == int(max_fit * 0.9) // MAXFIT_MULTIPLE * MAXFIT_MULTIPLE
    assert log[-1]["batch_size"] == data["recommended_batch"] and log[-1]["status"] == "ok"
    assert 0 < log[-1]["memory_fill"] <= 1  # memory fill against the cap
    assert data["cheapest_batch"] == data["recommended_batch"]
    stored = Store().list(group_id=data["group_id"])
    assert len(stored) == 6
    assert (stored["status"] == "oom").sum() == sum(t["status"] == "oom" for t in log)


def _fake_oom_killer(tmp_path, kill_above: int) -> str:
    """A stand-in for the worker's Python that the OS kills (SIGKILL, as the host's OOM killer
    does) when the batch is larger than `kill_above`, and otherwise runs the real worker."""
    script = tmp_path / "python-with-oom-killer"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, signal, sys\n"
        "config = json.loads(sys.argv[sys.argv.index('--config-json') + 1])\n"
        f"if config['batch_size'] > {kill_above}:\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        f"os.execv({sys.executable!r}, [{sys.executable!r}, *sys.argv[1:]])\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_a_worker_killed_by_the_os_counts_as_not_fitting_and_is_reported_as_crashed(tmp_path):
    spec = WorkerSpec(python=_fake_oom_killer(tmp_path, kill_above=64))
    plan = SweepPlan(max_fit=True, start=32, multiple=32)
    summary = run_sweep(TINY.with_changes(memory_limit_bytes=256 * 2**20), plan, spec=spec)

    assert summary.status == "completed"
    log = [(t.batch_size, t.role, t.status) for t in summary.trials]
    assert log == [
        (32, "probe", "ok"),
        (64, "probe", "ok"),
        (128, "probe", "crashed"),
        (96, "probe", "crashed"),
        (32, "confirm", "ok"),
    ]
    assert summary.search.max_fit_batch == 64 and summary.search.recommended_batch == 32
    notes = summary.to_dict()["notes"]
    assert any("batch 128 crashed the worker" in n and "not fitting" in n for n in notes)


def test_cancel_mid_sweep_keeps_the_finished_points_and_leaves_no_worker():
    store = Store()
    sweep = Sweep(TINY, SweepPlan(batch_sizes=(16, 32, 64)), store=store)
    seen = []
    for event in sweep.events():
        seen.append(event)
        second_is_stepping = (
            isinstance(event, TrialProgress) and event.index == 2 and event.event.type == "step"
        )
        if second_is_stepping and not sweep.cancelled:
            # As a GUI would: from another thread, while the second trial's worker trains.
            canceller = threading.Thread(target=sweep.cancel)
            canceller.start()
            canceller.join()

    summary = seen[-1].summary
    assert summary.status == "cancelled"
    assert [(t.batch_size, t.status) for t in summary.trials] == [(16, "ok"), (32, "cancelled")]
    assert [p.batch_size for p in summary.points] == [16]
    assert not any(isinstance(e, TrialStarted) and e.batch_size == 64 for e in seen)
    finished = [e.trial.status for e in seen if isinstance(e, TrialFinished)]
    assert finished == ["ok", "cancelled"]
    assert list(store.list(group_id=sweep.group_id)["batch_size"]) == [16]
    assert started_here() == []


def test_sweep_cli_prints_a_table_and_verdicts_and_exits_0(tmp_path):
    out = cli_here(
        "sweep", "--model", "tiny-mlp", "--threads", "1", "--warmup-steps", "2",
        "--min-steps", "5", "--max-steps", "10", "--max-seconds", "5",
        "--batch-sizes", "16,32",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "batch" in out.stdout and "samples/s" in out.stdout
    assert "cheapest" in out.stdout and "no price given" in out.stdout
    assert "knee" in out.stdout
    assert "trial  2  batch      32" in out.stderr  # a line per trial as it ends


def test_sweep_cli_exits_3_when_no_batch_trains():
    out = cli_here(
        "sweep", "--model", "tiny-mlp", "--threads", "1", "--batch-sizes", "20000,40000",
        "--memory-limit-mb", "8", "--json",
    )  # fmt: skip
    assert out.returncode == 3, out.stderr
    data = json.loads(out.stdout)
    assert [(p["batch_size"], p["status"]) for p in data["points"]] == [
        (20000, "oom"),
        (40000, "skipped"),
    ]
    assert data["trials"] == 1
    assert "no batch size trained" in out.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--batch-sizes", "16,abc"], "--batch-sizes: 'abc' is not a whole number"),
        (["--batch-sizes", "64:16"], "--batch-sizes: '64:16': the range ends below its start"),
        (["--max-fit", "--margin", "2"], "--margin: 2 is out of range (allowed 0 to 0.9)"),
        (["--start", "64", "--max-batch", "32"], "--max-batch: 32 is below the start (64)"),
        (["--multiple", "0"], "--multiple: 0 is out of range"),
    ],
)
def test_sweep_bad_input_exits_2_naming_the_option(args, words, capsys):
    assert main(["sweep", "--model", "tiny-mlp", *args]) == 2
    err = capsys.readouterr().err
    assert words in err
    assert "Traceback" not in err


def test_sizes_and_max_fit_together_are_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as info:
        main(["sweep", "--model", "tiny-mlp", "--batch-sizes", "16", "--max-fit"])
    assert info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
