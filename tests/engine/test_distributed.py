"""Data-parallel runs (issue 19): two gloo processes on the CPU, started by PyTorch's
torch.distributed.run. A run and a scaling study on the command line; a rank killed mid-run,
a cancel and a rendezvous nobody else joins each end as one clear failure, with no process of
the run left behind; and (issue 32) nothing left in the temporary folder after a run, a cancel,
a failure or a SIGTERM to the command."""

from __future__ import annotations

import getpass
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import pytest

from engine.cli import main
from engine.core.events import Failed, Phase
from engine.measure.config import RunConfig
from engine.process.launcher import WorkerProcess
from engine.results.scaling import measured_scaling_efficiency, study_groups, study_points
from engine.results.schema import validate
from engine.results.store import Store

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")

SHORT = ["--model", "tiny-mlp", "--device", "cpu", "--batch-size", "16", "--warmup-steps", "2"]
SHORT += ["--min-steps", "5", "--max-steps", "20", "--max-seconds", "3", "--repeats", "1"]
# A run that goes on until it is stopped: no stability stop, a long window.
LONG = RunConfig(
    model="tiny-mlp",
    device="cpu",
    batch_size=16,
    warmup_steps=2,
    min_steps=5,
    max_steps=1_000_000,
    max_seconds=120.0,
    stability_threshold=0.0,
    repeats=1,
    nproc=2,
)
DEADLINE_S = 90.0
CLEANUP_S = 10.0  # a killed torchrun's folder is removed by the parent's watcher within this


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """The run's /tmp: a folder of the test's own (other tests and programs use /tmp at the same
    time), holding PyTorch's compile cache as any /tmp does after a first run (every run, one
    process or many, shares it). Yields its entries before the run."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    (folder / f"torchinductor_{getpass.getuser()}").mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _nothing_left(folder: Path) -> None:
    """The temporary folder has what it had before the run (no torchelastic_*, no scratch)."""
    before = [f"torchinductor_{getpass.getuser()}"]
    deadline = time.monotonic() + CLEANUP_S
    while sorted(os.listdir(folder)) != before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sorted(os.listdir(folder)) == before


def test_run_with_two_processes_records_them(capsys, private_tmp):
    assert main(["run", *SHORT, "--nproc", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    validate(result)
    spread = result["distributed"]
    assert spread["world_size"] == 2 and spread["backend"] == "gloo"
    assert spread["per_process_batch"] == 16 and spread["global_batch"] == 32
    assert [r["rank"] for r in spread["per_rank"]] == [0, 1]
    assert all(r["samples_per_s"] > 0 for r in spread["per_rank"])
    # Global samples over the slowest rank's window: never above the ranks' own rates added up.
    ranks_total = sum(r["samples_per_s"] for r in spread["per_rank"])
    assert result["throughput_samples_per_s"] <= ranks_total * (1 + 1e-9)
    assert result["config"]["nproc"] == 2
    assert Store().get(result["run_id"])["distributed"]["world_size"] == 2
    _nothing_left(private_tmp)


def test_scaling_study_gives_efficiency_and_is_stored_as_a_group(capsys):
    assert main(["scaling", *SHORT, "--nproc", "1,2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    points = {p["nproc"]: p for p in summary["points"]}
    assert points[1]["efficiency"] == 1.0
    assert points[2]["samples_per_s"] > 0 and points[2]["efficiency"] > 0
    store = Store()
    assert study_groups(store) == [summary["group_id"]]
    stored, config = study_points(store, summary["group_id"])
    assert [p.nproc for p in stored] == [1, 2] and config["model"] == "tiny-mlp"
    found = measured_scaling_efficiency(store, "tiny-mlp", "cpu", 2)
    assert found is not None
    assert found[0] == pytest.approx(points[2]["efficiency"])
    assert summary["group_id"] in found[1]
    assert measured_scaling_efficiency(store, "tiny-mlp", "cpu", 4) is None
    assert measured_scaling_efficiency(store, "resnet18-cifar", "cpu", 2) is None


def _until_measuring(worker: WorkerProcess) -> list[psutil.Process]:
    """Read events until the window starts; every process of the run then."""
    events = worker.events()
    for event in events:
        assert not isinstance(event, Failed), event.message
        if isinstance(event, Phase) and event.phase == "measuring":
            break
    assert worker.pid is not None
    return psutil.Process(worker.pid).children(recursive=True)


def _rank(processes: list[psutil.Process], rank: str) -> psutil.Process:
    for proc in processes:
        try:
            if proc.environ().get("RANK") == rank and "engine.worker" in proc.cmdline():
                return proc
        except psutil.Error:
            continue
    raise AssertionError(f"no rank {rank} among {processes}")


def _rest(worker: WorkerProcess) -> Failed:
    """The run's last event, within the deadline."""
    t0 = time.monotonic()
    last = None
    for event in worker.events():
        last = event
        assert time.monotonic() - t0 < DEADLINE_S
    assert isinstance(last, Failed)
    return last


def _none_left(processes: list[psutil.Process]) -> None:
    _, alive = psutil.wait_procs(processes, timeout=10)
    assert not alive, [p.pid for p in alive]


def test_a_killed_rank_ends_the_run_as_a_clear_failure_and_leaves_no_process(private_tmp):
    worker = WorkerProcess(LONG.validated()).start()
    try:
        processes = _until_measuring(worker)
        _rank(processes, "1").send_signal(signal.SIGKILL)
        failed = _rest(worker)
    finally:
        worker.close()
    assert failed.kind == "crashed"
    assert "process" in failed.message and "2-process run" in failed.message
    _none_left(processes)
    _nothing_left(private_tmp)


def test_cancel_ends_every_process_of_the_run(private_tmp):
    worker = WorkerProcess(LONG.validated()).start()
    try:
        processes = _until_measuring(worker)
        assert len([p for p in processes if "engine.worker" in p.cmdline()]) == 2
        worker.cancel()
        failed = _rest(worker)
    finally:
        worker.close()
    assert failed.kind == "cancelled"
    _none_left(processes)
    _nothing_left(private_tmp)


def test_sigterm_to_the_command_leaves_nothing_behind(private_tmp):
    """`kill PID` of `epochcost run --nproc 2` mid-window: its ranks end (they watch the pipe
    from the command) and torchrun's scratch folder goes with them."""
    endless = ["--min-steps", "1000000", "--max-steps", "1000000", "--max-seconds", "120"]
    argv = ["run", *SHORT[:-8], *endless, "--nproc", "2", "--no-store"]
    code = f"import sys; from engine.cli import main; sys.exit(main({argv!r}))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # phase lines (no terminal)
            if "measuring" in line:
                break
        processes = psutil.Process(proc.pid).children(recursive=True)
        assert any(n.startswith("epochcost-dp-") for n in os.listdir(private_tmp))
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(DEADLINE_S) == -signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stderr.close()
    _none_left(processes)
    _nothing_left(private_tmp)


def test_a_rendezvous_nobody_joins_times_out_with_what_to_check():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = LONG.with_changes(
        nproc=1, nnodes=2, rdzv_endpoint=f"127.0.0.1:{port}", rdzv_timeout_s=2.0
    )
    worker = WorkerProcess(config).start()
    try:
        failed = _rest(worker)
    finally:
        worker.close()
    assert failed.kind == "crashed"
    assert "did not meet within 2 s" in failed.message and "--rdzv-endpoint" in failed.message


def test_two_nodes_meet_at_an_endpoint_and_each_reports_the_run():
    # Two launchers on this machine stand for two machines: node 0 hosts the rendezvous.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = LONG.with_changes(
        nproc=1, nnodes=2, rdzv_endpoint=f"127.0.0.1:{port}", max_steps=20, max_seconds=3.0
    ).with_changes(threads=1, stability_threshold=0.1)
    workers = [WorkerProcess(config.with_changes(node_rank=r)).start() for r in (0, 1)]
    last: dict[int, object] = {}
    threads = [
        threading.Thread(target=lambda r=r: last.update({r: list(workers[r].events())[-1]}))
        for r in (0, 1)
    ]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(DEADLINE_S)
    finally:
        for w in workers:
            w.close()
    spreads = [getattr(last[r], "result", {}).get("distributed") for r in (0, 1)]
    assert all(s and s["world_size"] == 2 and s["nnodes"] == 2 for s in spreads), last
    assert spreads[0]["per_rank"] == spreads[1]["per_rank"]  # one run, seen from each node
