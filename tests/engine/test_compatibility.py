"""Whether a framework build runs on a GPU, worked by hand from the CUDA rules: machine code
(sm_XY) runs on the same major with an equal or newer minor, PTX (compute_XY) on anything
newer, an "a" variant on its own GPU only; a build needs a driver of its CUDA major version."""

from __future__ import annotations

import pytest

from engine.measure.compatibility import (
    GPU_ENV,
    Build,
    capability,
    driver_cuda,
    runs_on,
    span,
    verdict,
)

# torch._C._cuda_getArchFlags() of the two PyTorch builds the issue names.
TORCH_2_14 = Build(
    "torch",
    "2.14.1+cu130",
    "/app/.venv/bin/python",
    "13.0",
    ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"),
)
TORCH_2_7 = Build(
    "torch",
    "2.7.1+cu126",
    "/app/.venv-gpu-cu126/bin/python",
    "12.6",
    ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"),
)
TF_CPU = Build("tensorflow", "2.21.0", "/app/.venv/bin/python")


@pytest.mark.parametrize(
    ("archs", "cc", "runs"),
    [
        (["sm_60"], (6, 1), True),  # GP100 code on a GP102 (GTX 1080 Ti): same major
        (["sm_61"], (6, 0), False),  # never onto an older minor
        (TORCH_2_14.archs, (6, 1), False),
        (TORCH_2_14.archs, (7, 0), False),  # V100, TITAN V
        (TORCH_2_14.archs, (7, 5), True),
        (TORCH_2_14.archs, (8, 9), True),  # RTX 4090 runs sm_86 code
        (TORCH_2_14.archs, (10, 3), True),  # sm_100 code on a 10.3
        (TORCH_2_14.archs, (13, 0), False),  # no PTX: nothing for a newer major
        (["sm_80", "compute_90"], (12, 0), True),  # PTX compiled by the driver
        (["compute_90"], (8, 9), False),
        (["sm_90a"], (9, 0), True),
        (["sm_90a"], (10, 0), False),
        (["bogus", "sm_x"], (8, 0), False),
    ],
)
def test_which_architectures_run_on_which_gpu(archs, cc, runs):
    assert runs_on(tuple(archs), cc) is runs


def test_the_span_of_a_build_in_words():
    assert span(TORCH_2_14.archs) == "sm_75 to sm_120"
    assert span(GPU_ENV.archs) == "sm_50 to sm_90"
    assert span(("sm_50", "sm_90", "compute_90")) == "sm_50 and newer"
    assert span(()) == "no GPU architecture"


@pytest.mark.parametrize(
    ("driver", "cuda"),
    [
        ("580.65.06", (13, 0)),
        ("575.51.03", (12, 9)),
        ("535.104.05", (12, 2)),
        ("525.60.13", (12, 0)),
        ("525.60.12", (11, 8)),  # one below 12.0's driver
        ("470.82.01", (11, 4)),
        ("390.157", None),  # older than CUDA 11
        ("five", None),
        ("", None),
    ],
)
def test_the_cuda_a_driver_runs(driver, cuda):
    assert driver_cuda(driver) == cuda


def test_capability_text():
    assert capability("6.1") == (6, 1) and capability(" 12.0 ") == (12, 0)
    assert capability("") is None and capability("six") is None and capability(None) is None


def test_a_gtx_1080_ti_cannot_run_the_apps_pytorch_and_is_told_to_make_the_older_one():
    v = verdict(TORCH_2_14, "NVIDIA GeForce GTX 1080 Ti", (6, 1), "550.54.14")
    assert not v.ok
    assert v.reason == (
        "NVIDIA GeForce GTX 1080 Ti is sm_61; "
        "this PyTorch 2.14.1+cu130 (CUDA 13.0) runs on sm_75 to sm_120"
    )
    assert "epochcost env create --framework torch" in v.remedy
    assert "PyTorch 2.7.1 with CUDA 12.6" in v.remedy
    # ... which does run there, on a driver for CUDA 12
    assert verdict(TORCH_2_7, "NVIDIA GeForce GTX 1080 Ti", (6, 1), "550.54.14").ok


def test_an_rtx_4090_runs_it_given_a_driver_for_cuda_13():
    assert verdict(TORCH_2_14, "NVIDIA GeForce RTX 4090", (8, 9), "580.65.06").ok
    assert verdict(TORCH_2_14, "NVIDIA GeForce RTX 4090", (8, 9)).ok  # driver unknown
    old = verdict(TORCH_2_14, "NVIDIA GeForce RTX 4090", (8, 9), "535.104.05")
    assert not old.ok
    assert old.reason == (
        "driver 535.104.05 runs CUDA up to 12.2; this PyTorch 2.14.1+cu130 (CUDA 13.0) needs "
        "CUDA 13, driver 580.65.06 or newer"
    )
    assert old.remedy.startswith("update the NVIDIA driver to 580.65.06 or newer, or ")
    # CUDA 12.6 runs on that driver, sm_86 on an 8.9
    assert "epochcost env create --framework torch" in old.remedy


def test_a_driver_of_an_older_minor_runs_through_minor_version_compatibility():
    v = verdict(TORCH_2_7, "Tesla V100-SXM2-16GB", (7, 0), "535.104.05")
    assert v.ok and "minor-version compatibility" in v.reason
    too_old = verdict(TORCH_2_7, "Tesla V100-SXM2-16GB", (7, 0), "470.82.01")
    assert not too_old.ok and "driver 525.60.13 or newer" in too_old.reason
    assert too_old.remedy == "update the NVIDIA driver to 525.60.13 or newer"


def test_gpus_no_installable_pytorch_runs_on_say_so():
    v = verdict(TORCH_2_7, "Tesla K80", (3, 7))
    assert not v.ok and "no PyTorch from PyPI runs on sm_37" in v.remedy
    # a Blackwell card under the older environment: back to the app's own
    blackwell = verdict(TORCH_2_7, "NVIDIA GeForce RTX 5090", (12, 0))
    assert not blackwell.ok and "the app's own PyTorch" in blackwell.remedy


def test_cpu_builds_unknown_gpus_and_unreadable_environments_are_not_ok_and_say_why():
    tf = verdict(TF_CPU, "NVIDIA GeForce RTX 4090", (8, 9))
    assert not tf.ok and tf.reason == "this TensorFlow 2.21.0 is a CPU-only build"
    assert "tensorflow[and-cuda]" in tf.remedy
    unknown = verdict(TORCH_2_14, "Some GPU", None)
    assert not unknown.ok and "compute capability of Some GPU is not known" in unknown.reason
    broken = Build("torch", python="/x/bin/python", error="ModuleNotFoundError: torch")
    b = verdict(broken, "NVIDIA GeForce RTX 4090", (8, 9))
    assert not b.ok and "/x/bin/python" in b.reason and "ModuleNotFoundError" in b.reason
