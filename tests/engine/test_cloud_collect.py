"""A cloud run's result comes home: the task's run command, executed here (CPU, tiny-mlp),
writes a log that `cloud collect` imports with the instance's price and the start-up; `cloud
run` with only the call that reaches a cloud replaced; Ctrl-C tears down and says what was
billed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.cli import cmd_cloud, main
from engine.cloud import task
from tests.engine.cloud_helpers import prepared, run_here, sky_home  # noqa: F401

G5 = 1.006  # the catalog's aws g5.xlarge $/h


def test_the_run_commands_log_is_collected_with_price_and_startup(tmp_path, capsys):
    mapping = task.task_mapping(prepared())
    job_log = tmp_path / "job.log"
    assert run_here(mapping, job_log) == 0
    assert "(task, pid=4242) epochcost-clock first-measured" in job_log.read_text()
    args = ["cloud", "collect", str(job_log), "--instance", "aws:g5.xlarge"]
    assert main([*args, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "ok" and result["config"]["model"] == "tiny-mlp"
    assert result["price"]["usd_per_hour"] == G5
    cloud = result["cloud"]
    assert cloud["instance_type"] == "g5.xlarge" and cloud["startup_basis"] == "launch"
    assert 0 < cloud["startup_minutes"] < 10
    assert cloud["startup_usd"] == pytest.approx(cloud["startup_minutes"] / 60 * G5)
    assert main(["results", "show", result["run_id"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cloud"]["price"]["usd_per_hour"] == G5
    assert main(["results", "list"]) == 0  # the listing names the instance it ran on
    (row,) = [line for line in capsys.readouterr().out.splitlines() if result["run_id"] in line]
    assert row.endswith(" on g5.xlarge"), row


def test_a_log_without_a_result_is_one_line(tmp_path, capsys):
    job_log = tmp_path / "job.log"
    job_log.write_text("(task, pid=1) epochcost-clock run 5\n(task, pid=1) Killed\n")
    assert main(["cloud", "collect", str(job_log), "--instance", "aws:g5.xlarge"]) == 2
    err = capsys.readouterr().err
    assert "no result of epochcost-worker" in err and len(err.strip().splitlines()) == 1


class RunsHere:
    """SkyPilot's cloud calls replaced by this machine: launch runs the task's command here."""

    downs: list[str] = []

    def launch(self, mapping, cluster, output):
        self.mapping = mapping
        return 1

    def follow(self, cluster, job_id, output):
        # A log of each cluster's own: a parallel sweep's two jobs run here at once.
        self.log = Path(cmd_cloud.paths.home()) / f"job-here-{cluster}.log"
        code = run_here(self.mapping, self.log)
        output.write(self.log.read_text())
        return code

    def download_log(self, cluster, job_id, folder):
        return Path(shutil.copy(self.log, folder / f"{cluster}.log"))

    def down(self, cluster):
        self.downs.append(cluster)

    def down_command(self, cluster):
        return f"sky down {cluster}"


@pytest.fixture
def on_this_cpu(monkeypatch):
    """The task's command runs on this machine's CPU (a cloud run refuses --device cpu)."""
    monkeypatch.setattr(task, "check_device", lambda config: None)


def test_cloud_run_brings_the_result_home_and_tears_down(monkeypatch, capsys, on_this_cpu):
    monkeypatch.setattr(cmd_cloud, "connect", RunsHere)
    RunsHere.downs.clear()
    args = ["cloud", "run", "--instance", "aws:g5.xlarge", "--model", "tiny-mlp", "--device"]
    args += ["cpu", "--batch-size", "8", "--warmup-steps", "2", "--min-steps", "3"]
    args += ["--max-steps", "5", "--max-seconds", "2", "--repeats", "1", "--threads", "1"]
    assert main([*args, "--yes"]) == 0
    out, err = capsys.readouterr()
    assert "cloud: aws g5.xlarge (us-east-1) at $1.006/h" in out
    assert "start-up:" in out and "min from launch" in out
    assert "is torn down" in err and len(RunsHere.downs) == 1
    shown = json.loads(capsys.readouterr().out or "null")
    assert shown is None
    assert main(["results", "list", "--json"]) == 0
    (kept,) = json.loads(capsys.readouterr().out)
    assert main(["results", "show", kept["run_id"], "--json"]) == 0
    cloud = json.loads(capsys.readouterr().out)["cloud"]
    # the rental whole, launch to teardown, at AWS's granularity (a minute at least)
    assert cloud["rental_minutes"] >= 1.0
    assert cloud["rental_usd"] == pytest.approx(cloud["rental_minutes"] / 60 * G5)


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("stage", ["launch", "follow", "download_log"])
def test_sigterm_and_sighup_in_each_stage_reach_the_teardown(
    monkeypatch, capsys, on_this_cpu, stage, signal_name
):
    import os
    import signal

    def killed(self, *args):
        os.kill(os.getpid(), getattr(signal, signal_name))
        raise AssertionError("the signal did not stop the run")

    stopped = type("Stopped", (RunsHere,), {stage: killed})
    monkeypatch.setattr(cmd_cloud, "connect", stopped)
    RunsHere.downs.clear()
    args = ["cloud", "run", "--instance", "aws:g5.xlarge", "--model", "tiny-mlp", "--device"]
    args += ["cpu", "--batch-size", "8", "--warmup-steps", "2", "--min-steps", "3"]
    args += ["--max-steps", "5", "--max-seconds", "2", "--repeats", "1", "--threads", "1"]
    assert main([*args, "--yes", "--json"]) == 3
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "cancelled"
    assert "is torn down" in err and "billed at most" in err and len(RunsHere.downs) == 1
    # the handlers are put back: a SIGTERM now would end the process as before
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_failed_teardown_is_retried_then_says_how_to_end_it(monkeypatch, capsys):
    from engine.cloud import launch

    class NeverDown(RunsHere):
        def launch(self, *args):
            raise KeyboardInterrupt

        def down(self, cluster):
            self.downs.append(cluster)
            raise RuntimeError("the API server is gone")

    monkeypatch.setattr(launch, "DOWN_RETRY_PAUSES_S", (0.0, 0.0))
    monkeypatch.setattr(cmd_cloud, "connect", NeverDown)
    RunsHere.downs.clear()
    assert main(["cloud", "run", "--instance", "aws:g5.xlarge", "--yes"]) == 3
    err = capsys.readouterr().err
    assert len(RunsHere.downs) == 3 and "may still run and bill" in err and "sky down" in err


def test_ctrl_c_tears_down_and_says_what_was_billed(monkeypatch, capsys):
    class Interrupted(RunsHere):
        def launch(self, *args):
            raise KeyboardInterrupt

    monkeypatch.setattr(cmd_cloud, "connect", Interrupted)
    RunsHere.downs.clear()
    assert main(["cloud", "run", "--instance", "aws:g5.xlarge", "--yes", "--json"]) == 3
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["status"] == "cancelled" and result["cloud"]["startup_usd"] is not None
    assert "stopped during provisioning and setup" in err and "billed at most" in err
    assert len(RunsHere.downs) == 1


@pytest.mark.parametrize(("status", "stored"), [(None, "preempted"), ("UP", "failed")])
def test_a_spot_cluster_taken_back_is_stored_as_preempted_with_its_bill(
    monkeypatch, capsys, on_this_cpu, status, stored
):
    class TakenBack(RunsHere):
        def follow(self, cluster, job_id, output):
            from engine.cloud.skypilot import SkyError

            raise SkyError("ClusterNotUpError", f"{cluster} is not up", True)

        def status(self, cluster):
            return status

    monkeypatch.setattr(cmd_cloud, "connect", TakenBack)
    RunsHere.downs.clear()
    args = ["cloud", "run", "--instance", "aws:g5.xlarge", "--spot", "--model", "tiny-mlp"]
    args += ["--device", "cpu", "--batch-size", "8", "--repeats", "1", "--max-seconds", "2"]
    assert main([*args, "--yes", "--json"]) == 3
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["status"] == stored and len(RunsHere.downs) == 1
    assert result["cloud"]["spot"] is True and result["cloud"]["rental_minutes"] >= 1.0
    if stored == "preempted":
        assert "taken back (preempted) during the measurement" in err and "billed at most" in err
    assert main(["results", "list", "--json"]) == 0
    assert [r["status"] for r in json.loads(capsys.readouterr().out)] == [stored]


@pytest.mark.worker
def test_cloud_sweep_measures_each_instance_tears_each_down_and_compares_with_home(
    monkeypatch, capsys, on_this_cpu
):
    from engine.results.store import Store
    from tests.engine.cloud_helpers import need_cloud_env
    from tests.engine.price_results import result as home_result

    need_cloud_env()  # each instance's dry run is SkyPilot's own
    home = home_result(model="tiny-mlp", batch_size=8)
    Store().add(home)
    monkeypatch.setattr(cmd_cloud, "connect", RunsHere)
    RunsHere.downs.clear()
    args = ["cloud", "sweep", "--instances", "aws:g5.xlarge,aws:p3.2xlarge", "--model"]
    args += ["tiny-mlp", "--device", "cpu", "--batch-size", "8", "--warmup-steps", "2"]
    args += ["--min-steps", "3", "--max-steps", "5", "--max-seconds", "2", "--repeats", "1"]
    args += ["--threads", "1", "--home", home["run_id"], "--yes"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert len(RunsHere.downs) == 2 and len(set(RunsHere.downs)) == 2
    assert err.count("is torn down") == 2
    assert "total" in out and f"against the home run {home['run_id']}" in out
    table = out.split("against the home run", 1)[1]
    assert "this machine" in table and "aws g5.xlarge" in table and "aws p3.2xlarge" in table
    assert main(["results", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(r["cloud_instance"] or "" for r in listed) == ["", "g5.xlarge", "p3.2xlarge"]


SWEEP = ["cloud", "sweep", "--instances", "aws:g5.xlarge,aws:p3.2xlarge", "--model", "tiny-mlp"]
SWEEP += ["--device", "cpu", "--batch-size", "8", "--warmup-steps", "2", "--min-steps", "3"]
SWEEP += ["--max-steps", "5", "--max-seconds", "2", "--repeats", "1", "--threads", "1", "--yes"]


@pytest.mark.worker
def test_cloud_sweep_in_parallel_measures_both_and_tears_both_down(
    monkeypatch, capsys, on_this_cpu
):
    from tests.engine.cloud_helpers import need_cloud_env

    need_cloud_env()
    monkeypatch.setattr(cmd_cloud, "connect", RunsHere)
    RunsHere.downs.clear()
    assert main([*SWEEP, "--parallel", "2", "--json"]) == 0
    out, err = capsys.readouterr()
    results = json.loads(out)["results"]
    assert sorted(r["cloud"]["instance_type"] for r in results) == ["g5.xlarge", "p3.2xlarge"]
    assert len(set(RunsHere.downs)) == 2
    assert "[aws g5.xlarge] " in err and "[aws p3.2xlarge] " in err  # each line says whose


@pytest.mark.worker
def test_a_stop_during_a_sweep_tears_that_cluster_down_and_launches_no_more(
    monkeypatch, capsys, on_this_cpu
):
    from tests.engine.cloud_helpers import need_cloud_env

    need_cloud_env()

    class Stopped(RunsHere):
        def launch(self, *args):
            raise KeyboardInterrupt

    monkeypatch.setattr(cmd_cloud, "connect", Stopped)
    RunsHere.downs.clear()
    assert main([*SWEEP, "--json"]) == 3
    out, err = capsys.readouterr()
    (result,) = json.loads(out)["results"]
    assert result["status"] == "cancelled" and len(RunsHere.downs) == 1
    assert "not launched: aws p3.2xlarge" in err
