"""Framework environments made for the machine (engine/envs/): the build chosen for recorded
machines, the GPU and driver read from nvidia-smi's and /proc's own text, and real
environments: pip's cancelled and failed, uv's made (the installer "auto" takes), listed, used
for one real measurement and removed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine.core.errors import ConfigError
from engine.envs import create as create_module
from engine.envs import installed
from engine.envs.choice import Choice, Gpu, Machine, choose
from engine.envs.create import MARKER, Cancelled, InstallFailed, create, envs_home, reachable
from engine.envs.machine import from_proc, from_smi
from engine.process import environments

GTX_1080_TI = Machine((Gpu("NVIDIA GeForce GTX 1080 Ti", (6, 1)),), "535.104.05", "NVML")
RTX_4090 = Machine((Gpu("NVIDIA GeForce RTX 4090", (8, 9)),), "580.82.07", "NVML")
V100_OLD_DRIVER = Machine((Gpu("Tesla V100-SXM2-16GB", (7, 0)),), "470.182.03", "NVML")
RTX_5090_OLD_DRIVER = Machine((Gpu("NVIDIA GeForce RTX 5090", (12, 0)),), "560.35.03", "NVML")
NO_DRIVER = Machine()


def test_a_gtx_1080_ti_with_driver_535_gets_pytorch_2_7_1_with_cuda_12_6():
    choice = choose("torch", GTX_1080_TI)
    assert choice.label == "PyTorch 2.7.1 with CUDA 12.6"
    assert choice.packages == ("torch==2.7.1", "torchvision==0.22.1")
    assert choice.index_url == "https://download.pytorch.org/whl/cu126"
    assert "sm_61" in choice.reason and "535.104.05" in choice.reason
    # PyPI's torch 2.7.1 is the same CUDA 12.6 build: the fallback needs no other index.
    assert choice.fallback is not None and choice.fallback.index_url is None
    assert choice.fallback.packages == choice.packages


def test_an_rtx_4090_with_driver_580_gets_the_newest_cuda_13_build():
    choice = choose("torch", RTX_4090)
    assert choice.label == "PyTorch 2.14.1 with CUDA 13.0"
    assert choice.index_url.endswith("/cu130")
    assert choice.fallback.packages == ("torch==2.14.1", "torchvision==0.29.1")


def test_an_rtx_4090_with_driver_535_gets_cuda_12_6():
    older = Machine(RTX_4090.gpus, "535.54.03", "NVML")
    assert choose("torch", older).label == "PyTorch 2.7.1 with CUDA 12.6"


def test_a_v100_with_driver_470_gets_cuda_11_8_and_a_cpu_build_without_pytorchs_index():
    choice = choose("torch", V100_OLD_DRIVER)
    assert choice.label == "PyTorch 2.7.1 with CUDA 11.8"
    assert choice.index_url.endswith("/cu118")
    fallback = choice.fallback
    assert fallback.device == "cpu"
    assert "update the driver to 525.60.13" in fallback.reason


def test_blackwell_on_a_cuda_12_driver_gets_cuda_12_8():
    choice = choose("torch", RTX_5090_OLD_DRIVER)
    assert choice.label == "PyTorch 2.7.1 with CUDA 12.8"
    assert "580.65.06" in choice.fallback.reason


def test_no_driver_or_asking_for_the_cpu_gives_a_cpu_build_and_says_why():
    for machine, device, why in (
        (NO_DRIVER, "auto", "no NVIDIA GPU"),
        (GTX_1080_TI, "cpu", "asked for the CPU"),
    ):
        choice = choose("torch", machine, device)
        assert choice.device == "cpu" and choice.index_url.endswith("/cpu")
        assert why in choice.reason
        assert "PyPI has no CPU-only PyTorch" in choice.fallback.reason


def test_tensorflow_uses_cuda_where_driver_and_gpu_allow_it():
    assert choose("tensorflow", GTX_1080_TI).packages == ("tensorflow[and-cuda]==2.21.*",)
    assert choose("tensorflow", NO_DRIVER).packages == ("tensorflow-cpu==2.21.*",)
    old = choose("tensorflow", V100_OLD_DRIVER)
    assert old.packages == ("tensorflow-cpu==2.21.*",) and "525.60.13" in old.reason
    kepler = Machine((Gpu("Tesla K80", (3, 7)),), "470.182.03", "NVML")
    assert choose("tensorflow", kepler).device == "cpu"
    assert "no PyTorch build runs on sm_37" in choose("torch", kepler).reason


def test_the_gpu_and_driver_are_read_from_nvidia_smi_and_proc_text():
    smi = from_smi("NVIDIA GeForce GTX 1080 Ti, 6.1, 535.104.05\n")
    assert smi == Machine((Gpu("NVIDIA GeForce GTX 1080 Ti", (6, 1)),), "535.104.05", "nvidia-smi")
    assert from_smi("") is None and from_smi("garbage") is None
    proc = from_proc(
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"
    )
    assert proc.driver == "535.104.05" and proc.gpus[0].compute_capability is None
    # Without the GPU's capability the choice is a CPU build, and it says why.
    assert "compute capability" in choose("torch", proc).reason
    assert from_proc(None) == Machine()


def test_a_pytorch_index_that_cannot_be_reached_is_said_so():
    assert not reachable("http://127.0.0.1:9/whl/cu126", timeout_s=2)


def _small(label: str, packages: tuple[str, ...]) -> Choice:
    """A real build to install, small enough for a test: `packages` from the package index."""
    return Choice("torch", label, "cpu", packages, "a test")


@pytest.mark.slow
def test_a_failed_install_leaves_nothing_and_registers_nothing(tmp_path):
    before = environments.load()
    with pytest.raises(InstallFailed, match="failed"):
        create(_small("none", ("epochcost-no-such-package==0",)), "broken", installer="pip")
    assert not (envs_home() / "broken").exists()
    assert environments.load() == before


@pytest.mark.slow
def test_a_cancelled_install_leaves_nothing(tmp_path):
    cancel = threading.Event()
    seen: list[str] = []

    def progress(done):
        seen.append(done.line)
        cancel.set()  # at the installer's first line

    with pytest.raises(Cancelled):
        create(
            _small("six", ("six",)),
            "cancelled",
            installer="pip",
            packages=["psutil"],
            progress=progress,
            cancel=cancel,
        )
    assert seen and not (envs_home() / "cancelled").exists()


def test_a_bad_name_and_a_foreign_folder_are_refused():
    with pytest.raises(ConfigError, match="usable name"):
        create(_small("six", ("six",)), "../up")
    folder = envs_home(create=True) / "mine"
    folder.mkdir()
    with pytest.raises(ConfigError, match="does not pass its check"):
        create(_small("six", ("six",)), "mine")
    assert folder.is_dir()  # the user's folder is never removed


def _cpu_torch_wheel() -> Path | None:
    """This machine's CPU build of torch 2.13.0, where pip finds it on disk (find-links): a
    real PyTorch environment in about a minute instead of a download of gigabytes."""
    links = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.find-links"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    found = sorted(Path(links).glob("torch-2.13.0+cpu-cp311-*.whl")) if links else []
    return found[0] if found else None


# Read as the module loads: a cloud test moves HOME for SkyPilot for the rest of its test
# process (tests/engine/cloud_helpers.py's sky_home), and pip and uv read their configuration
# and keep their caches in the user's home.
USER_HOME = os.environ.get("HOME", "")
CPU_TORCH_WHEEL = _cpu_torch_wheel()


@pytest.mark.slow
@pytest.mark.skipif(CPU_TORCH_WHEEL is None, reason="no CPU torch wheel on this disk")
def test_a_real_pytorch_environment_is_made_registered_used_and_removed(tmp_path, monkeypatch):
    # uv, the installer the app and `epochcost env create` take where it is: 15 s against
    # pip's 28 s for the same environment (pip unpacks the wheel and compiles it each time; one
    # run each, quiet). pip's own runs are the failed and the cancelled installs above. uv
    # reads the wheel's folder from its own variable, not pip's configuration.
    if create_module.find_uv() is None:
        pytest.skip("no uv here: the PyTorch environment is uv's")
    assert CPU_TORCH_WHEEL is not None  # the skipif's
    monkeypatch.setenv("HOME", USER_HOME)  # uv's cache, as the user's own uv has it
    monkeypatch.setenv("UV_FIND_LINKS", str(CPU_TORCH_WHEEL.parent))
    made = create(_small("PyTorch 2.13.0 (CPU)", ("torch==2.13.0",)), "cpu-torch", installer="uv")
    assert made.message.startswith("ok:") and "torch 2.13.0" in made.message
    assert made.installer == "uv"
    assert environments.load()["torch"] == str(made.python)
    assert not (made.python.parents[1] / MARKER).exists()
    # The worker side is there: this epochcost's own `epochcost-worker`.
    assert (made.python.parent / "epochcost-worker").exists()
    # A real measurement runs in it (the CLI starts the worker under the registered Python).
    out = tmp_path / "r.json"
    subprocess.run(
        [sys.executable, "-m", "engine.cli", "run", "--model", "tiny-mlp", "--threads", "1"]
        + ["--warmup-steps", "2", "--min-steps", "5", "--max-seconds", "1", "--repeats", "2"]
        + ["--no-store", "--out", str(out)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    result = json.loads(out.read_text())
    assert result["status"] == "ok"
    # The project's own venv has torch 2.14.1: 2.13.0 is the new environment's.
    assert result["environment"]["framework_version"].startswith("2.13.0")
    # Again: kept, not made anew.
    again = create(_small("PyTorch 2.13.0 (CPU)", ("torch==2.13.0",)), "cpu-torch")
    assert again.kept
    listed = {e.name: e for e in installed.installed()}
    assert listed["cpu-torch"].used and listed["cpu-torch"].whole
    installed.remove("cpu-torch")
    assert "torch" not in environments.load()
    assert not made.python.exists()


@pytest.mark.slow
def test_with_no_python_found_uv_is_asked_for_the_python_it_needs(monkeypatch):
    # The slim download on a machine without python3: epochcost finds no Python to base the
    # environment on and asks uv for Python 3.11 or newer, which uv takes from the machine or
    # downloads (its managed Python, where the network allows; not here: the machine's is
    # used). The environment passes no PyTorch check (six stands in for the build), so it is
    # removed again: the uv venv step with no base is what this shows.
    monkeypatch.setattr(create_module, "find_python", lambda: None)
    uv = create_module.find_uv()
    if uv is None:
        pytest.skip("no uv here")
    ran: list[list[str]] = []
    real_run = create_module.run_step
    monkeypatch.setattr(
        create_module,
        "run_step",
        lambda command, *rest: (ran.append(command), real_run(command, *rest)),
    )
    with pytest.raises(InstallFailed, match="does not pass its check"):
        create(_small("six", ("six",)), "uv-python", installer="uv", packages=["psutil"])
    venv = ran[0]
    assert venv[:2] == [uv, "venv"] and venv[venv.index("--python") + 1] == ">=3.11"
    assert len(ran) == 3  # the venv was made and both installs ran in it
    assert not (envs_home() / "uv-python").exists()
