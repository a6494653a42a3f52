"""MFU: achieved FLOP/s over the dense peak for the precision, from the catalog by device name;
"peak unknown" (no MFU) on a CPU or an unknown GPU, never a guess.

There is no GPU here: a GPU result's environment is written by hand (as a result file from
another machine would hold it) and goes through the real lookup and the real report. The CPU
path runs for real in a worker.
"""

from __future__ import annotations

import pytest

from engine.core.events import Flops, Step
from engine.measure import utilisation
from engine.pricing import catalog
from engine.pricing.catalog import Catalog
from engine.pricing.rows import GpuSpec
from engine.results import report
from engine.results.schema import validate
from tests.engine.helpers import TINY, run_events
from tests.engine.price_results import result as priced_result

# achieved = 1e10 FLOPs per sample x 4375 samples/s = 43.75 TFLOP/s
FLOPS = {"per_step": 6.4e11, "per_sample": 1e10, "achieved_tflops": 43.75, "method": "counted"}


@pytest.fixture(scope="module")
def shipped() -> Catalog:
    return catalog.load()


def gpu_env(name: str, framework: str = "torch", **extra: object) -> dict:
    return {"device": "cuda:0", "device_name": name, "framework": framework, **extra}


def test_v100_fp16_mfu_against_the_tensor_peak(shipped):
    # 43.75 / 125 (V100 SXM2 dense FP16 tensor rate in assets/gpus.csv) = 0.35
    out = utilisation.with_mfu(FLOPS, gpu_env("Tesla V100-SXM2-16GB"), "fp16", shipped)
    assert out["peak_tflops"] == 125.0
    assert out["mfu"] == pytest.approx(0.35)
    assert out["peak_source"].startswith("Tesla V100 SXM2 16GB: tensor FP16/BF16 dense 125")
    assert out["per_sample"] == 1e10  # the counted figures are kept as they were


def test_fp32_peak_is_plain_fp32_unless_tf32_matmuls_ran(shipped):
    a100 = "NVIDIA A100-SXM4-40GB"
    torch_default = utilisation.with_mfu(FLOPS, gpu_env(a100, tf32_matmul=False), "fp32", shipped)
    assert torch_default["peak_tflops"] == 19.49
    assert torch_default["mfu"] > 1  # 43.75 TFLOP/s cannot be FP32 on an A100: it says so
    assert "MFU above 1" in torch_default["peak_source"]
    tf32 = utilisation.with_mfu(FLOPS, gpu_env(a100, tf32_matmul=True), "fp32", shipped)
    assert tf32["peak_tflops"] == 156.0
    assert tf32["mfu"] == pytest.approx(43.75 / 156.0)
    # TensorFlow enables TF32 by default: a TensorFlow result that does not say is read so.
    tf_default = utilisation.with_mfu(FLOPS, gpu_env(a100, "tensorflow"), "fp32", shipped)
    assert tf_default["peak_tflops"] == 156.0


def test_a_conv_net_under_pytorch_is_held_to_the_tf32_peak_where_cudnn_allows_it(shipped):
    # Seen on an H200 (2026-11-26): resnet18-cifar in fp32 read 102% of the plain FP32 peak,
    # because cuDNN ran its convolutions in TF32 (PyTorch's default); the rule projection
    # uses (engine/pricing/roofline.ran_tf32) now picks the peak too.
    h200 = "NVIDIA H200"
    env = gpu_env(h200, tf32_matmul=False, tf32_conv=True)
    conv = utilisation.with_mfu(FLOPS, env, "fp32", shipped, family="convolutional")
    assert "TF32" in conv["peak_source"]
    assert conv["mfu"] < 1
    assert "MFU above 1" not in conv["peak_source"]
    off = {**env, "tf32_conv": False}
    plain = utilisation.with_mfu(FLOPS, off, "fp32", shipped, family="convolutional")
    assert "FP32 (no tensor cores)" in plain["peak_source"]
    transformer = utilisation.with_mfu(FLOPS, env, "fp32", shipped, family="transformer")
    assert "FP32 (no tensor cores)" in transformer["peak_source"]


@pytest.mark.parametrize(
    ("environment", "precision", "why"),
    [
        (gpu_env("NVIDIA Imaginary X9000"), "fp16", "NVIDIA Imaginary X9000 is not in the GPU"),
        (gpu_env("Tesla V100-SXM2-16GB"), "bf16", "has no bf16"),
        (gpu_env("NVIDIA GeForce GTX 1080 Ti"), "fp16", "has no tensor cores"),
        ({"device": "cpu", "cpu": "AMD EPYC 7B13"}, "fp32", "AMD EPYC 7B13 is a CPU"),
        ({"device": "mps", "device_name": "Apple MPS"}, "fp32", "Apple MPS is Apple's MPS"),
        ({"device": "cuda:0"}, "fp16", "the GPU is not in the GPU catalog"),
    ],
)
def test_unknown_peak_gives_no_mfu(shipped, environment, precision, why):
    out = utilisation.with_mfu(FLOPS, environment, precision, shipped)
    assert out["mfu"] is None
    assert out["peak_tflops"] is None
    assert out["peak_source"].startswith("peak unknown: ")
    assert why in out["peak_source"]
    assert out["achieved_tflops"] == 43.75  # the achieved rate is still shown


def test_a_users_gpu_row_gives_the_peak():
    mine = GpuSpec(
        name="Lab card",
        aliases=("NVIDIA Lab Card 48GB",),
        fp32_tflops=50.0,
        fp16_bf16_tensor_tflops_dense=200.0,
        has_tensor_cores=True,
        architecture="Ada Lovelace",
        origin="user",
    )
    out = utilisation.with_mfu(
        FLOPS, gpu_env("NVIDIA Lab Card 48GB"), "bf16", Catalog(gpus=(mine,))
    )
    assert out["mfu"] == pytest.approx(43.75 / 200.0)
    assert "(user catalog)" in out["peak_source"]


def test_no_count_stays_null(shipped):
    assert utilisation.with_mfu(None, gpu_env("Tesla V100-SXM2-16GB"), "fp16", shipped) is None


def test_summary_shows_mfu_for_a_gpu_result(shipped):
    data = priced_result(device_name="Tesla V100-SXM2-16GB", precision="fp16")
    data["workload"] = {"epoch_unit": "images"}
    data["step_time_s"] = {"median": 0.01, "p10": 0.01, "p90": 0.01}
    data.update(steps_measured=10, stop_reason="max_steps", memory_source="nvml")
    data["flops"] = utilisation.with_mfu(FLOPS, data["environment"], "fp16", shipped)
    text = report.summary(validate(data))
    assert "FLOPs      1e+10 per image, 43.8 TFLOP/s achieved, MFU 35.0% of 125" in text


def test_a_real_cpu_run_records_peak_unknown():
    events = run_events(TINY)
    result = events[-1].result
    flops = result["flops"]
    assert flops["per_sample"] > 0 and flops["achieved_tflops"] > 0
    assert flops["mfu"] is None and flops["peak_tflops"] is None
    assert flops["peak_source"].startswith("peak unknown: ")
    assert "is a CPU" in flops["peak_source"]
    assert "peak unknown: " in report.summary(result)
    # The live view learns the same count and peak before the first step (a Flops event).
    (counted,) = [e for e in events if isinstance(e, Flops)]
    first_step = next(i for i, e in enumerate(events) if isinstance(e, Step))
    assert events.index(counted) < first_step
    assert counted.per_step == flops["per_step"] and counted.peak_tflops is None
    assert counted.peak_source == flops["peak_source"]


def test_an_unusable_data_folder_keeps_the_count(tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("EPOCHCOST_HOME", str(blocked))  # the user catalog cannot be opened
    out = utilisation.with_mfu(FLOPS, gpu_env("Tesla V100-SXM2-16GB"), "fp16")
    assert out["mfu"] is None and out["peak_source"].startswith("peak unknown: ")
    assert out["achieved_tflops"] == 43.75
