"""`epochcost doctor` and `devices` as a user runs them: this machine's real environments (no
GPU here), and GPUs that are not here from the catalog; the builds are read for real. One
doctor runs in a fresh interpreter (cli), the rest in this process (cli_here), where each
build is read by a worker forked from the tests' warm process instead of a fresh one (about
2 s of the two cores each: issue 42, the suite's time)."""

from __future__ import annotations

import json

import pytest

from engine.measure.devices import Device
from engine.process import doctor
from tests.engine.helpers import cli, cli_here


@pytest.fixture(scope="module")
def torch_is_a_cuda_13_build():
    found = json.loads(cli_here("doctor", "--json").stdout)
    torch = next(e for e in found["environments"] if e["framework"] == "torch")
    if torch["cuda"] != "13.0" or "sm_61" in torch["archs"]:
        pytest.skip(f"the app's torch here is {torch['version']} (CUDA {torch['cuda']})")
    return found


def test_doctor_here_lists_the_machine_and_each_environment(torch_is_a_cuda_13_build):
    found = torch_is_a_cuda_13_build
    assert found["machine"]["logical_cores"] >= 1 and found["gpus"] == []  # no GPU here
    by_framework = {e["framework"]: e for e in found["environments"]}
    assert set(by_framework) == {"torch", "tensorflow"}
    assert all(e["own"] and e["used_for_runs"] for e in found["environments"])
    assert by_framework["torch"]["archs"][0] == "sm_75"
    assert by_framework["tensorflow"]["cuda"] == ""  # tensorflow-cpu
    text = cli("doctor")
    assert text.returncode == 0, text.stderr
    assert "none found by NVML" in text.stdout and "PyTorch 2.14.1" in text.stdout


def test_a_gtx_1080_ti_is_refused_with_the_reason_and_the_environment_to_make(
    torch_is_a_cuda_13_build,
):
    proc = cli_here("doctor", "--for-gpu", "GeForce GTX 1080 Ti", "--json")
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    assert found["gpu"] == "GeForce GTX 1080 Ti" and found["compute_capability"] == "6.1"
    torch = next(f for f in found["frameworks"] if f["framework"] == "torch")
    assert torch["ok"] is False and "sm_61" in torch["reason"]
    assert "epochcost env create --framework torch" in torch["remedy"]
    assert torch["version"].startswith("2.14.1") and torch["cuda"] == "13.0"
    tf = next(f for f in found["frameworks"] if f["framework"] == "tensorflow")
    assert tf["ok"] is False and "CPU-only build" in tf["reason"]


def test_an_rtx_4090_is_fine_unless_the_driver_is_too_old(torch_is_a_cuda_13_build):
    found = json.loads(cli_here("doctor", "--for-gpu", "GeForce RTX 4090", "--json").stdout)
    torch = next(f for f in found["frameworks"] if f["framework"] == "torch")
    assert torch["ok"] is True and "sm_89" in torch["reason"]
    old = cli_here("doctor", "--for-gpu", "GeForce RTX 4090", "--driver", "535.104.05")
    assert old.returncode == 0, old.stderr
    assert "driver 535.104.05 runs CUDA up to 12.2" in old.stdout
    assert "to fix: update the NVIDIA driver to 580.65.06 or newer" in old.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--for-gpu", "GeForce GTX 1080 Tie"], "did you mean"),
        (["--for-gpu", "RTX"], "GPUs (GeForce RTX"),
        (["--for-gpu", "GeForce RTX 4090", "--driver", "new"], "--driver: 'new': give an"),
        (["--driver", "535.104.05"], "--driver: give it with --for-gpu"),
    ],
)
def test_mistakes_are_said_in_one_line(args, says):
    proc = cli_here("doctor", *args)
    assert proc.returncode == 2 and says in proc.stderr and "Traceback" not in proc.stderr


def test_a_listed_gpu_is_judged_against_the_environments_runs_use():
    envs = [e for e in doctor.read_environments() if e.used]
    gtx = Device("cuda:0", "cuda", "NVIDIA GeForce GTX 1080 Ti", 11 * 2**30, "", "6.1", "550.54.14")
    found = doctor.assess(doctor.gpu_of(gtx), envs)
    assert found["index"] == 0 and found["driver_cuda"] == "12.4"
    assert {f["framework"] for f in found["frameworks"]} == {"torch", "tensorflow"}
