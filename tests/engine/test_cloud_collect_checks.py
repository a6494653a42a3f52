"""Issue 37 item 6: `cloud collect` checks a job log as an import is. A real worker's log (CPU,
tiny-mlp, written as SkyPilot's job log writes it, with the run command's clock lines) is
collected; each forged copy of it (a run id that is a path, a result scaled 10^7 times, an H100
result collected as a T4 instance, a config and workload that disagree, a 30-million-minute
start-up, a result dated 9999) is refused in one line naming what to fix, and nothing is
written anywhere."""

from __future__ import annotations

import copy
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from engine.cloud import checks
from engine.results.store import Store

TINY = {
    "model": "tiny-mlp",
    "batch_size": 8,
    "device": "cpu",
    "warmup_steps": 2,
    "min_steps": 3,
    "max_steps": 5,
    "max_seconds": 2.0,
    "repeats": 1,
    "threads": 1,
}
# What the run command's clock lines say, in seconds before the result was written.
CLOCKS = {"launched": 400.0, "setup": 300.0, "setup-done": 120.0, "run": 100.0}
H100 = "NVIDIA H100 80GB HBM3"


@pytest.fixture(scope="module")
def events() -> list[dict[str, Any]]:
    """A real worker's events (one run on this CPU), as its stdout holds them."""
    proc = subprocess.run(
        [sys.executable, "-m", "engine.worker", "run", "--config-json", json.dumps(TINY)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    found = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert found[-1]["type"] == "finished", proc.stderr[-2000:]
    return found


def _result(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e["type"] == "finished")["result"]


def _written(log: Path, events: list[dict[str, Any]], clocks: dict[str, float] | None = None):
    """The job log of `events` as SkyPilot writes it, each line behind its prefix, with clock
    lines (seconds since the epoch; by default CLOCKS before the result was written, and the
    first measured step 10 s before it)."""
    end = dt.datetime.fromisoformat(_result(events)["created_at"]).timestamp()
    times = clocks or {name: end - ago for name, ago in CLOCKS.items()} | {
        "first-measured": end - 10
    }
    lines = [f"(task, pid=4242) epochcost-clock {name} {at:.3f}" for name, at in times.items()]
    lines += [f"(task, pid=4242) {json.dumps(e)}" for e in events]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


def _forged(events: list[dict[str, Any]], edit) -> list[dict[str, Any]]:
    """A copy of `events` with `edit(started_event, result)` applied."""
    out = copy.deepcopy(events)
    edit(next(e for e in out if e["type"] == "started"), _result(out))
    return out


def _collect(capsys, log: Path, instance: str = "aws:g5.xlarge", *more: str):
    """(exit code, stdout, stderr) of `cloud collect LOG --instance INSTANCE ...`."""
    rc = main(["cloud", "collect", str(log), "--instance", instance, *more])
    out, err = capsys.readouterr()
    return rc, out, err


def _refused(capsys, log: Path, *words: str, instance: str = "aws:g5.xlarge") -> str:
    """`cloud collect` of `log` exits 2 with one line holding `words`, storing nothing."""
    rc, out, err = _collect(capsys, log, instance)
    assert rc == 2, (out, err)
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    for word in words:
        assert word in err, err
    assert Store(readonly=True).list().empty
    return err


def test_the_real_log_is_collected(capsys, tmp_path, events):
    rc, out, err = _collect(
        capsys, _written(tmp_path / "job.log", events), "aws:g5.xlarge", "--json"
    )
    assert rc == 0, err
    result = json.loads(out)
    assert result["run_id"] == _result(events)["run_id"]
    assert result["cloud"]["startup_basis"] == "launch"
    assert result["cloud"]["startup_minutes"] == pytest.approx((400 - 10) / 60, abs=0.01)


# Run ids: checked before anything is written anywhere --------------------------------------------


def _with_run_id(run_id: str):
    def edit(started, result):
        result["run_id"] = run_id

    return edit


def test_a_run_id_that_climbs_out_leaves_profiles_untouched(
    capsys, tmp_path, events, epochcost_home
):
    epochcost_home.mkdir(parents=True, exist_ok=True)
    profiles = epochcost_home / "profiles.json"
    profiles.write_text('{"profiles": {"home": {}}}\n')
    forged = [{**e, "run_id": "../profiles"} for e in _forged(events, _with_run_id("../profiles"))]
    _refused(
        capsys, _written(tmp_path / "job.log", forged), "run id '../profiles', which is no run id"
    )
    assert profiles.read_text() == '{"profiles": {"home": {}}}\n'
    assert not (epochcost_home / "recovered").exists()


def test_an_absolute_run_id_writes_nowhere(capsys, tmp_path, events):
    target = tmp_path / "elsewhere" / "evil"
    target.parent.mkdir()
    forged = _forged(events, _with_run_id(str(target)))
    _refused(capsys, _written(tmp_path / "job.log", forged), "is not a run id")
    assert list(target.parent.iterdir()) == []


# The device: the instance's, and no faster than it can be -------------------------------------


def _scaled(factor: float):
    """Every figure of the measurement `factor` times faster, consistently."""

    def edit(started, result):
        for key in ("throughput_samples_per_s",):
            result[key] *= factor
        result["throughput_ci95"] = [x * factor for x in result["throughput_ci95"]]
        result["throughput_repeats"] = [x * factor for x in result["throughput_repeats"]]
        result["epoch_seconds"] /= factor
        result["window_seconds"] /= factor
        result["step_time_s"] = {
            k: (v / factor if isinstance(v, float) else v) for k, v in result["step_time_s"].items()
        }
        result["flops"]["achieved_tflops"] *= factor

    return edit


def test_a_log_scaled_ten_million_times_is_no_measurement(capsys, tmp_path, events):
    forged = _forged(events, _scaled(1e7))
    err = _refused(
        capsys, _written(tmp_path / "job.log", forged), "above the device's physical peak"
    )
    assert "TFLOP/s" in err and "logical cores" in err


def _on_gpu(name: str, scale: float = 1.0):
    def edit(started, result):
        for config in (started["config"], result["config"]):
            config["device"] = "cuda"
        for env in (started["environment"], result["environment"]):
            env.update(device="cuda", device_name=name, gpu_count=1)
        if scale != 1.0:
            _scaled(scale)(started, result)

    return edit


def test_an_h100_result_is_not_collected_as_a_t4_instance(capsys, tmp_path, events):
    forged = _forged(events, _on_gpu(H100))
    log = _written(tmp_path / "job.log", forged)
    _refused(
        capsys,
        log,
        f"ran on {H100}",
        "g4dn.xlarge has 1x T4",
        "--instance",
        instance="aws:g4dn.xlarge",
    )
    assert _collect(capsys, log, "aws:p5.48xlarge")[0] == 0  # where it ran: collected


def test_a_t4_result_past_the_t4s_peak_is_refused(capsys, tmp_path, events):
    ok = _written(tmp_path / "ok.log", _forged(events, _on_gpu("Tesla T4")))
    assert _collect(capsys, ok, "aws:g4dn.xlarge")[0] == 0
    Store().delete(_result(events)["run_id"])
    # tiny-mlp's rate (about 0.01 TFLOP/s on this CPU, less on a busy one) scaled to twice the
    # T4's 65.13 (tensor FP16 dense)
    scale = 2 * 65.13 / _result(events)["flops"]["achieved_tflops"]
    forged = _forged(events, _on_gpu("Tesla T4", scale))
    err = _refused(
        capsys, _written(tmp_path / "fast.log", forged), "65.13", instance="aws:g4dn.xlarge"
    )
    assert "Tesla T4" in err


# One run: the config, the workload and the epoch agree ------------------------------------------


def _model(model: str):
    def edit(started, result):
        started["config"]["model"] = result["config"]["model"] = model

    return edit


def test_a_resnet50_config_with_tiny_mlps_workload_is_refused(capsys, tmp_path, events):
    forged = _forged(events, _model("resnet50"))
    _refused(capsys, _written(tmp_path / "job.log", forged), "workload is 'tiny-mlp'", "'resnet50'")


def test_an_epoch_that_is_not_the_workloads_is_refused(capsys, tmp_path, events):
    def edit(started, result):
        result["epoch_samples"] = 1_281_167
        result["epoch_seconds"] = 1_281_167 / result["throughput_samples_per_s"]

    forged = _forged(events, edit)
    _refused(capsys, _written(tmp_path / "job.log", forged), "1281167 samples", "50000")


def test_a_result_whose_config_is_not_the_started_runs_is_refused(capsys, tmp_path, events):
    def edit(started, result):
        result["config"]["batch_size"] = 512

    forged = _forged(events, edit)
    _refused(capsys, _written(tmp_path / "job.log", forged), "not the started run's (batch_size)")


# Clock lines lie in the log's own span ------------------------------------------------------------


def _clocks(events, **seconds_before_end: float) -> dict[str, float]:
    end = dt.datetime.fromisoformat(_result(events)["created_at"]).timestamp()
    return {name: end - ago for name, ago in seconds_before_end.items()}


def test_a_thirty_million_minute_startup_is_refused(capsys, tmp_path, events):
    # launched 1 s after 1970 (a start-up of about 29.9 million minutes) ...
    clocks = {"launched": 1.0} | _clocks(events, setup=300, run=100, **{"first-measured": 10})
    log = _written(tmp_path / "old.log", events, clocks)
    _refused(
        capsys,
        log,
        "a start-up of 29,",
        "minutes",
        f"({checks.MAX_STARTUP_MINUTES:,} minutes at most)",
    )
    # ... or its first measured step 30 million minutes after an honest launch
    clocks = _clocks(events, launched=400, setup=300, run=100)
    clocks["first-measured"] = clocks["launched"] + 30e6 * 60
    log = _written(tmp_path / "late.log", events, clocks)
    _refused(capsys, log, "`first-measured`", "after its result was written")


def test_a_clock_line_after_the_result_was_written_is_refused(capsys, tmp_path, events):
    clocks = _clocks(events, launched=400, run=100, **{"first-measured": -3 * 86400})
    _refused(
        capsys,
        _written(tmp_path / "job.log", events, clocks),
        "`first-measured`",
        "after its result",
    )


def test_clock_lines_out_of_order_are_refused(capsys, tmp_path, events):
    clocks = _clocks(events, launched=400, setup=100, run=300, **{"first-measured": 10})
    _refused(
        capsys, _written(tmp_path / "job.log", events, clocks), "`run`", "comes before `setup`"
    )


def test_a_result_dated_9999_is_refused(capsys, tmp_path, events):
    def edit(started, result):
        result["created_at"] = "9999-12-31T00:00:00+00:00"

    forged = _forged(events, edit)
    clocks = _clocks(events, launched=400, run=100, **{"first-measured": 10})
    _refused(
        capsys, _written(tmp_path / "job.log", forged, clocks), "created_at 9999-12-31", "future"
    )


@pytest.mark.parametrize(
    "edit",
    [
        lambda started, result: result.update(schema=7),
        lambda started, result: result.update(environment="x"),
        lambda started, result: result.update(flops={"per_sample": "x"}),
    ],
)
def test_a_mangled_result_is_one_line(capsys, tmp_path, events, edit):
    _refused(capsys, _written(tmp_path / "job.log", _forged(events, edit)), "job.log:")


def test_mangled_started_and_failed_events_are_one_line(capsys, tmp_path, events):
    started = next(e for e in events if e["type"] == "started")
    bad = [{**started, "config": "x"}, {"type": "failed", "run_id": started["run_id"]}]
    log = tmp_path / "job.log"
    log.write_text("".join(f"(task, pid=1) {json.dumps(e)}\n" for e in bad))
    _refused(capsys, log, "job.log: its `started` and `failed` events are not epochcost-worker's")
