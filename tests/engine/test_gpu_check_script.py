"""benchmarks/gpu_check.py (`make gpu-check`, issue 19): on a machine without an NVIDIA GPU it
says so and exits 0 with a report; on one, each check is judged from what a result records,
judged here on results written as a GPU machine records them."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core.events import Failed
from engine.measure.probes import nvml_devices
from tests.engine.price_results import result

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_check.py"
_spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
assert _spec is not None and _spec.loader is not None
gpu_check = importlib.util.module_from_spec(_spec)
sys.modules["gpu_check"] = gpu_check  # its dataclasses look their module up by name
_spec.loader.exec_module(gpu_check)


@pytest.mark.skipif(bool(nvml_devices()), reason="this machine has an NVIDIA GPU")
def test_without_a_gpu_it_says_so_and_exits_0(tmp_path):
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "no GPU here" in done.stdout
    report = json.loads(out.read_text())
    assert report["gpus"] == [] and report["checks"] == []
    assert "no GPU here" in report["summary"]


def _gpu_result(**changes):
    data = result(device_name="NVIDIA H100 80GB HBM3", samples_per_s=1000.0)
    data.update(steps_measured=100, window_seconds=10.0)
    data["step_time_s"] = {"median": 0.1, "p10": 0.09, "p90": 0.11}
    data["device_peak_used_bytes"] = 5 * 2**30
    data["energy"] = {"energy_j": 3000.0, "energy_method": "nvml counter", "mean_power_w": 300.0}
    data["flops"] = {"mfu": 0.41, "peak_tflops": 989.4, "peak_source": "catalog"}
    data.update(changes)
    return data


def test_cuda_timers_must_add_up_to_the_wall_clock():
    assert gpu_check.judge_timers(_gpu_result())[0] == "pass"
    status, detail = gpu_check.judge_timers(_gpu_result(window_seconds=20.0))
    assert status == "fail" and "0.500" in detail


def test_nvml_needs_memory_power_and_energy():
    assert gpu_check.judge_nvml(_gpu_result())[0] == "pass"
    status, detail = gpu_check.judge_nvml(_gpu_result(energy={"energy_j": None}))
    assert status == "fail" and "mean power (W) none" in detail


def test_mfu_must_be_a_fraction_of_a_known_peak():
    assert gpu_check.judge_mfu(_gpu_result())[0] == "pass"
    assert gpu_check.judge_mfu(_gpu_result(flops={"mfu": 1.7}))[0] == "fail"
    status, detail = gpu_check.judge_mfu(_gpu_result(flops={"mfu": None, "peak_source": "x?"}))
    assert status == "fail" and "x?" in detail


def test_an_oom_run_must_fail_as_out_of_memory_and_nccl_must_be_the_backend():
    oom = Failed(run_id="r", kind="oom", message="out of memory at batch size 1048576")
    assert gpu_check.judge_oom(None, oom)[0] == "pass"
    assert gpu_check.judge_oom(_gpu_result(), None)[0] == "fail"
    wide = _gpu_result(distributed={"world_size": 2, "backend": "nccl", "per_rank": []})
    assert gpu_check.judge_distributed(wide, None, 2)[0] == "pass"
    assert gpu_check.judge_distributed(wide, None, 4)[0] == "fail"
