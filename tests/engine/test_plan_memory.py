"""Plan: the memory check (worked by hand), the precision a GPU gets by default, and the
whole-instance offers a plan rents (a multi-GPU instance is never taken for one GPU when an
instance of one sells it)."""

from __future__ import annotations

import json

import pytest

from engine.core.errors import ConfigError
from engine.plan import memory
from engine.plan import targets as plan_targets
from engine.plan.memory import Shape
from engine.plan.options import PlanOptions
from engine.pricing.catalog import Catalog
from engine.pricing.rows import GpuSpec, Instance

H100 = GpuSpec(
    name="H100 SXM5 80GB",
    fp32_tflops=66.91,
    fp16_bf16_tensor_tflops_dense=989.4,
    tdp_w=700.0,
    has_tensor_cores=True,
    architecture="Hopper",
    memory_gb=80.0,
)
GTX = GpuSpec(name="GeForce GTX 1080 Ti", fp32_tflops=11.34, architecture="Pascal", memory_gb=11.0)


def _instance(kind: str, gpus: int, usd: float, spot: float | None, notes: str = "") -> Instance:
    return Instance(
        cloud="c",
        instance_type=kind,
        usd_per_hour=usd,
        usd_per_hour_spot=spot,
        gpu_spec=H100.name,
        gpu_count=gpus,
        price_date="2025-06",
        notes=notes,
    )


# As the shipped catalog has them: spot is sold on an 8-GPU instance and on a 1-GPU one whose
# price is flagged "verify"; on-demand on a 1-GPU one.
EIGHT = _instance("p5.48xlarge", 8, 55.04, 17.6289)
ONE_FLAGGED = _instance("a3-highgpu-1g", 1, 5.38327, 3.35377, "verify")
ONE = _instance("gpu_1x_h100_sxm5", 1, 4.29, None)
CATALOG = Catalog(instances=(EIGHT, ONE_FLAGGED, ONE), gpus=(H100, GTX))


def test_adam_on_an_11_gb_card_does_not_fit():
    # 1.5e9 parameters at fp32 with Adam: 4 + 4 + 8 = 16 B each = 24 GB > 11 GB;
    # sharded: ceil(24 / 11) = 3 GPUs.
    fit = memory.check(1.5e9, "fp32", "adam", Shape(), 11.0)
    assert (fit.weights_gb, fit.gradients_gb, fit.optimizer_gb) == pytest.approx((6, 6, 12))
    assert fit.need_gb == pytest.approx(24.0) and fit.fits is False and fit.gpus_needed == 3
    assert fit.text.startswith(
        "does not fit in 11 GB: needs about 24 GB; use 3 GPUs with sharding (ZeRO-3, FSDP) "
        "or a smaller model"
    )
    assert "activations not estimated" in fit.basis


def test_mixed_precision_keeps_a_master_copy_and_sgd_less_state():
    # 1e9 parameters, bf16: weights 2 GB, gradients 2 GB, SGD momentum 4 B + fp32 master 4 B
    # = 8 GB: 12 GB. Plain SGD: master copy only, 8 GB.
    momentum = memory.check(1e9, "bf16", "sgd-momentum", Shape(), 80.0)
    assert momentum.need_gb == pytest.approx(12.0) and momentum.fits
    assert memory.check(1e9, "bf16", "sgd", Shape(), 80.0).need_gb == pytest.approx(8.0)
    assert momentum.text.startswith("fits in 80 GB: needs about 12 GB")


def test_activations_of_the_batch_and_sharding_over_the_gpus():
    # 12 layers x 512 context x 768 width x batch 32 x 34 B (16-bit) = 5.1339 GB;
    # 110e6 parameters x 16 B = 1.76 GB over 2 GPUs = 0.88 GB each: 6.0139 GB a GPU.
    fit = memory.check(110e6, "fp16", "adam", Shape(12, 512, 768, 32), 80.0, count=2)
    assert fit.activations_gb == pytest.approx(12 * 512 * 768 * 32 * 34 / 1e9)
    assert fit.need_gb == pytest.approx(0.88 + 12 * 512 * 768 * 32 * 34 / 1e9)
    assert "each, sharded over 2 GPUs" in fit.text


def test_activations_larger_than_the_card_ask_for_a_smaller_batch():
    # fp32 doubles the bytes: 48 x 1024 x 1600 x 8 x 68 B = 42.78 GB > 11 GB.
    fit = memory.check(1.54e9, "fp32", "adam", Shape(48, 1024, 1600, 8), 11.0)
    assert not fit.fits
    assert "use a smaller batch or activation checkpointing and 3 GPUs with sharding" in fit.text


def test_unknown_optimizer_names_the_field():
    with pytest.raises(ConfigError) as info:
        PlanOptions(optimizer="lion").validated()
    assert info.value.field == "optimizer"


def test_default_precision_is_what_the_gpu_has():
    assert plan_targets.default_precision(H100) == "fp16"
    assert plan_targets.default_precision(GTX) == "fp32"  # no tensor cores, no FP16 rate


def test_one_gpu_is_not_priced_on_an_eight_gpu_instance():
    # Before: spot took the unflagged p5.48xlarge, $17.63/h for one GPU (7 idle), four
    # times the $4.29/h on-demand. Now an instance without idle GPUs comes first.
    target = plan_targets.target_for_gpu(CATALOG, H100, PlanOptions(count=1).validated())
    assert target.usd_per_hour == pytest.approx(4.29) and target.billed_gpus == 1
    assert target.usd_per_hour_spot == pytest.approx(3.35377)
    assert "a3-highgpu-1g" in target.spot_basis and "verify" in target.spot_basis


def test_spot_dearer_than_on_demand_through_idle_gpus_is_no_offer():
    catalog = Catalog(instances=(EIGHT, ONE), gpus=(H100,))
    target = plan_targets.target_for_gpu(catalog, H100, PlanOptions(count=1).validated())
    assert target.usd_per_hour_spot is None
    assert target.spot_basis.startswith("no spot offer for 1 GPU(s) below on-demand")
    # Eight GPUs fill the instance: its spot price is the offer.
    eight = plan_targets.target_for_gpu(catalog, H100, PlanOptions(count=8).validated())
    assert eight.usd_per_hour_spot == pytest.approx(17.6289) and eight.billed_gpus == 8


def test_cli_plans_a_1080_ti_at_fp32_and_says_the_model_does_not_fit(capsys):
    from engine.cli import main

    args = ["plan", "--params", "1.5e9", "--tokens", "3e10", "--gpu", "GeForce GTX 1080 Ti"]
    assert main([*args, "--mfu", "0.3"]) == 0
    out = capsys.readouterr().out
    assert "1 x GeForce GTX 1080 Ti, fp32" in out
    assert "does not fit in 11 GB: needs about 24 GB; use 3 GPUs with sharding" in out
    assert main([*args, "--mfu", "0.3", "--optimizer", "sgd", "--json"]) == 0
    fit = json.loads(capsys.readouterr().out)["memory"]
    assert fit["need_gb"] == pytest.approx(12.0) and fit["fits"] is False  # 8 B a parameter
