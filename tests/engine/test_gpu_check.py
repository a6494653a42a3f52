"""The worker's check before it builds a model on a GPU, and reading what a framework
environment was built for in a child process. No GPU here: the device's capability is the one
thing faked (the boundary); the builds read are this machine's real ones."""

from __future__ import annotations

import sys
import time
import types

import pytest

from engine.core.errors import RunFailed
from engine.measure.compatibility import Build, runs_on
from engine.process import forked
from engine.process.builds import read_build
from engine.process.launcher import WorkerSpec
from engine.worker.frameworks.tensorflow.build import check_gpu as tf_check_gpu


@pytest.fixture
def torch_with_a_gpu(monkeypatch):
    """This machine's real torch, with one GPU of the given capability answering."""
    import torch

    def install(name: str, cc: tuple[int, int]):
        monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: name)
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: cc)
        return torch

    return install


def test_this_torch_describes_its_build():
    import torch

    from engine.worker.frameworks.torch.build import describe

    found = Build.from_dict(describe(torch))
    assert found.version == torch.__version__ and found.python == sys.executable
    assert found.cuda == (torch.version.cuda or "")
    if found.cuda:  # PyPI's CUDA build: its compiled architectures, GPU or not
        assert found.archs and all(a.startswith(("sm_", "compute_")) for a in found.archs)


def test_the_worker_refuses_a_gpu_its_torch_has_no_kernels_for(torch_with_a_gpu):
    from engine.worker.frameworks.torch.build import check_gpu, describe

    torch = torch_with_a_gpu("NVIDIA GeForce GTX 1080 Ti", (6, 1))
    archs = describe(torch)["archs"]
    if not archs or runs_on(tuple(archs), (6, 1)):
        pytest.skip("this torch runs on sm_61 (or is a CPU build): nothing to refuse")
    with pytest.raises(RunFailed) as failed:
        check_gpu(torch, "cuda:0")
    assert failed.value.kind == "config"
    message = str(failed.value)
    assert message.startswith("device: NVIDIA GeForce GTX 1080 Ti is sm_61; this PyTorch")
    fix = "To fix: make an environment that runs on it: `epochcost env create --framework torch`"
    assert fix in message
    newest = tuple(int(d) for d in (archs[-1][3:-1], archs[-1][-1]))
    check_gpu(torch_with_a_gpu("a GPU it was built for", newest), "cuda:0")  # no error


def _fake_tf(cc: tuple[int, int], cuda_build: bool = True) -> types.SimpleNamespace:
    """tensorflow's API as a CUDA build of 2.21 with one GPU answers it (no GPU here)."""
    info = {
        "is_cuda_build": cuda_build,
        "cuda_version": "12.5.1",
        "cuda_compute_capabilities": ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"],
    }
    gpu = object()
    return types.SimpleNamespace(
        __version__="2.21.0",
        sysconfig=types.SimpleNamespace(get_build_info=lambda: info),
        config=types.SimpleNamespace(
            list_physical_devices=lambda kind: [gpu],
            experimental=types.SimpleNamespace(
                get_device_details=lambda device: {
                    "compute_capability": cc,
                    "device_name": "Tesla K80",
                }
            ),
        ),
    )


def test_the_tensorflow_worker_refuses_a_gpu_its_build_cannot_run_on():
    tf_check_gpu(_fake_tf((7, 0)), 0)  # sm_70 is in the build: no error
    tf_check_gpu(_fake_tf((12, 0)), 0)  # PTX compute_90 covers newer GPUs
    with pytest.raises(RunFailed) as failed:
        tf_check_gpu(_fake_tf((3, 7)), 0)
    assert "Tesla K80 is sm_37; this TensorFlow 2.21.0 (CUDA 12.5.1) runs on sm_60 and newer" in (
        str(failed.value)
    )


def test_builds_are_read_in_a_child_process_with_the_environments_python():
    torch = read_build("torch", WorkerSpec())
    assert not torch.error and torch.framework == "torch" and torch.version.startswith("2.")
    assert torch.python == sys.executable
    tf = read_build("tensorflow", WorkerSpec())
    assert not tf.error and tf.version.startswith("2.")
    assert tf.cuda == "" and tf.archs == ()  # tensorflow-cpu: a CPU-only build


@pytest.mark.parametrize("framework", ["torch", "tensorflow"])
def test_a_build_read_from_the_warm_process_is_the_fresh_childs(monkeypatch, framework):
    """Where a warm process of the framework runs (the app's; these tests' own), the child
    that reads the build is forked from it (engine/process/forked.py): the same answer."""
    assert forked.wait_ready(framework=framework, timeout_s=60)
    forked_child = []
    real = forked.spawn_forked

    def spawn_forked(*args, **kwargs):
        forked_child.append(real(*args, **kwargs))
        return forked_child[-1]

    monkeypatch.setattr(forked, "spawn_forked", spawn_forked)
    warm = read_build(framework, WorkerSpec())
    assert isinstance(forked_child[-1], forked.ForkedWorker) and not warm.error
    monkeypatch.setenv(forked.OFF_ENV, "0")
    fresh = read_build(framework, WorkerSpec())
    assert forked_child[-1] is None and fresh == warm


def test_a_build_that_does_not_come_in_time_is_said_and_its_child_killed(tmp_path):
    script = tmp_path / "python"
    script.write_text("#!/bin/sh\nexec sleep 60\n")
    script.chmod(0o755)
    t0 = time.monotonic()
    late = read_build("torch", WorkerSpec(python=str(script)), timeout_s=1.0)
    assert late.error == "no answer within 1 s" and time.monotonic() - t0 < 10


def test_an_environment_that_cannot_be_read_says_why(tmp_path):
    gone = read_build("torch", WorkerSpec(python=str(tmp_path / "bin" / "python")))
    assert gone.error == f"{tmp_path / 'bin' / 'python'} does not exist"
    # A Python without the engine's needs: the child fails, its last line comes back.
    script = tmp_path / "python"
    script.write_text("#!/bin/sh\necho 'ModuleNotFoundError: No module named numpy' >&2\nexit 1\n")
    script.chmod(0o755)
    broken = read_build("torch", WorkerSpec(python=str(script)))
    assert broken.error == "exit code 1: ModuleNotFoundError: No module named numpy"
