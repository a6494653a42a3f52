"""The planner's arithmetic against cases worked by hand (comments show the working), on a small
catalog written out here so that the figures do not move when the shipped catalog does."""

from __future__ import annotations

import pytest

from engine.core.errors import ConfigError
from engine.plan import planner
from engine.plan import targets as plan_targets
from engine.plan.options import PlanOptions
from engine.plan.planner import Power, RunsRow
from engine.pricing.catalog import Catalog
from engine.pricing.rows import GpuSpec, GridIntensity, Instance

V100 = GpuSpec(
    name="Tesla V100 SXM2 16GB",
    aliases=("Tesla V100-SXM2-16GB",),
    fp32_tflops=15.67,
    fp16_bf16_tensor_tflops_dense=125.0,
    tdp_w=300.0,
    has_tensor_cores=True,
    architecture="Volta",
)
GTX = GpuSpec(
    name="GeForce GTX 1080 Ti",
    aliases=("NVIDIA GeForce GTX 1080 Ti",),
    fp32_tflops=11.34,
    tdp_w=250.0,
    launch_price_usd=699.0,
    architecture="Pascal",
)
P3_16 = Instance(
    cloud="aws",
    instance_type="p3.16xlarge",
    usd_per_hour=24.48,
    usd_per_hour_spot=2.6694,
    region="us-east-1",
    gpu_spec=V100.name,
    gpu_count=8,
    price_date="2025-06",
    source="test",
)
P3_2 = Instance(
    cloud="aws",
    instance_type="p3.2xlarge",
    usd_per_hour=3.06,
    region="us-east-1",
    gpu_spec=V100.name,
    gpu_count=1,
    price_date="2025-06",
    source="test",
)
CATALOG = Catalog(
    instances=(P3_16, P3_2),
    gpus=(V100, GTX),
    grid=(GridIntensity("aws", "us-east-1", 367.8, ci_data_vintage="test"),),
)


def test_6nd_bert_base_on_eight_v100s_by_hand():
    # C = 6 N D = 6 x 110e6 x 3.3e9 = 2.178e18 FLOPs.
    # 8 V100 at 125 TFLOP/s (dense FP16 tensor) kept 35% busy: 8 x 125e12 x 0.35 = 3.5e14 FLOP/s.
    # wall = 2.178e18 / 3.5e14 = 6222.857 s = 1.728571 h; GPU-hours = 8 x 1.728571 = 13.828571.
    # p3.16xlarge (8 V100) $24.48/h: 1.728571 x 24.48 = $42.3154; spot $2.6694/h: $4.6142.
    # Energy at TDP: 8 x 300 W x 6222.857 s / 3.6e6 = 4.148571 kWh; x 367.8 g/kWh = 1.525845 kg.
    # Twenty runs in all: $846.31 on-demand.
    compute = planner.transformer(110e6, 3.3e9)
    assert compute.flops == pytest.approx(2.178e18)
    options = PlanOptions(count=8, precision="fp16", region="us-east-1").validated()
    target = plan_targets.target_for_gpu(CATALOG, V100, options)
    row = planner.plan(compute, target, planner.assumed(0.35), runs=(RunsRow("all", 20),))
    assert row.wall_hours == pytest.approx(1.728571, rel=1e-6)
    assert row.gpu_hours == pytest.approx(13.828571, rel=1e-6)
    assert row.usd_ondemand == pytest.approx(42.3154, rel=1e-5)
    assert row.usd_spot == pytest.approx(4.6142, rel=1e-4)
    assert row.kwh == pytest.approx(4.148571, rel=1e-6)
    assert row.kg_co2 == pytest.approx(1.525845, rel=1e-6)
    assert row.usd_fully_loaded == pytest.approx(846.31, rel=1e-5)
    assert "1 x aws p3.16xlarge" in target.price_basis  # cheaper than 8 x p3.2xlarge ($24.48)


def test_attention_term_full_and_causal():
    # BERT-base (full attention): 6 N + 12 x n_layer x n_ctx x d_attn per token
    #   = 6.6e8 + 12 x 12 x 512 x 768 = 6.6e8 + 56,623,104 = 716,623,104 FLOPs per token;
    #   x 1.31072e11 tokens = 9.3929223487488e19.
    bert = planner.transformer(110e6, 1.31072e11, 12, 512, 768, causal=False)
    assert bert.flops == pytest.approx(9.3929223487488e19, rel=1e-12)
    # A 7B decoder (causal): 6 x 7e9 + 6 x 32 x 4096 x 4096 = 4.2e10 + 3,221,225,472 per token;
    #   x 2e12 tokens = 9.0442450944e22.
    decoder = planner.transformer(7e9, 2e12, 32, 4096, 4096, causal=True)
    assert decoder.flops == pytest.approx(9.0442450944e22, rel=1e-12)
    assert "Kaplan" in decoder.basis
    # Without the shape: 6ND only, and the basis says so.
    assert planner.transformer(7e9, 2e12).flops == pytest.approx(8.4e22)
    assert "no attention term" in planner.transformer(7e9, 2e12).basis


def test_published_gpu_hours_read_as_mfu():
    # Llama 2 7B, table 2: 184,320 A100 GPU-hours. 9.0442450944e22 FLOPs /
    # (184,320 h x 3600 s x 312e12 FLOP/s) = 9.0442450944e22 / 2.07028224e23 = 0.436860.
    assert planner.implied_mfu(9.0442450944e22, 184_320, 312.0) == pytest.approx(0.436860, 1e-5)


def test_flops_per_sample_times_samples_and_epochs():
    # A counted 2.46e10 FLOPs per image (ResNet-50 train step: 3 x 2 x 4.1e9) x 1,281,167
    # ImageNet images x 90 epochs = 2.836503738e18 FLOPs.
    compute = planner.per_sample(2.46e10, 1_281_167, 90)
    assert compute.flops == pytest.approx(2.836503738e18, rel=1e-12)


def test_owned_gpu_amortised_plus_electricity():
    # 1e18 FLOPs on a GTX 1080 Ti at fp32 (11.34 TFLOP/s) at MFU 0.5: 1e18 / 5.67e12
    #   = 176,366.84 s = 48.990790 h.
    # Owned: $699 over 3 years x 365 d x 24 h = 26,280 h -> $0.0265982/h; electricity 250 W
    #   (TDP) / 0.9 PSU = 0.277778 kW x $0.15 = $0.0416667/h; together $0.0682648/h
    #   x 48.990790 h = $3.34435. No cloud sells it here: on-demand and spot are None.
    options = PlanOptions(count=1, precision="fp32", usd_per_kwh=0.15, owned=True).validated()
    target = plan_targets.target_for_gpu(CATALOG, GTX, options)
    row = planner.plan(planner.Compute(1e18, "given"), target, planner.assumed(0.5))
    assert row.wall_hours == pytest.approx(48.990790, rel=1e-6)
    assert row.usd_owned == pytest.approx(3.34435, rel=1e-5)
    assert row.usd_ondemand is None and row.usd_spot is None and row.usd_fully_loaded is None
    assert row.kg_co2 is None  # no region given
    assert target.grid_basis.startswith("no region given")


def test_whole_instances_are_billed():
    # 12 V100: two p3.16xlarge ($48.96/h, 4 GPUs idle) against twelve p3.2xlarge ($36.72/h).
    options = PlanOptions(count=12, precision="fp16").validated()
    target = plan_targets.target_for_gpu(CATALOG, V100, options)
    assert target.usd_per_hour == pytest.approx(36.72)
    named = plan_targets.target_for_instance(CATALOG, P3_16, options)
    assert named.usd_per_hour == pytest.approx(48.96)
    assert "4 of its GPUs idle" in named.price_basis


def test_measured_power_fraction_scales_energy():
    # A run measured 240 W on a 300 W GPU (80% of TDP): 8 V100 for 6222.857 s at 0.8 x 300 W
    # = 0.8 x 4.148571 kWh = 3.318857 kWh.
    options = PlanOptions(count=8).validated()
    target = plan_targets.target_for_gpu(CATALOG, V100, options)
    row = planner.plan(
        planner.transformer(110e6, 3.3e9),
        target,
        planner.assumed(0.35),
        Power(0.8, "measured"),
    )
    assert row.kwh == pytest.approx(3.318857, rel=1e-6)


def test_runs_table_multiplier():
    # 16 search runs at a tenth, 8 ablations at a quarter, 2 failed at half, 1 final:
    # 1.6 + 2 + 1 + 1 = 5.6
    table = (
        RunsRow("search", 16, 0.1),
        RunsRow("ablations", 8, 0.25),
        RunsRow("failed", 2, 0.5),
        RunsRow("final", 1),
    )
    assert planner.runs_multiplier(table) == pytest.approx(5.6)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: planner.transformer(0, 1e9), "params"),
        (lambda: planner.transformer(1e9, -5), "tokens"),
        (lambda: planner.assumed(1.5), "mfu"),
        (lambda: planner.assumed(0), "mfu"),
        (lambda: planner.per_sample(1e9, 1e6, 0), "epochs"),
        (lambda: planner.runs_multiplier((RunsRow("x", 0),)), "runs"),
        (lambda: PlanOptions(count=0).validated(), "count"),
        (lambda: PlanOptions(precision="int8").validated(), "precision"),
        (lambda: PlanOptions(owned=True).validated(), "usd_per_kwh"),
        (
            lambda: plan_targets.target_for_gpu(CATALOG, GTX, PlanOptions(precision="fp16")),
            "precision",
        ),
    ],
)
def test_bad_plans_name_the_field(call, field):
    with pytest.raises(ConfigError) as info:
        call()
    assert info.value.field == field


def test_comparison_leaves_out_gpus_without_a_peak():
    targets, left_out = plan_targets.all_targets(CATALOG, PlanOptions(count=8).validated())
    assert [t.gpu for t in targets] == [V100.name]
    assert left_out == [
        (GTX.name, f"{GTX.name} has no tensor cores and its FP16 rate is not in the catalog")
    ]
    rows = [planner.plan(planner.Compute(1e20, "x"), t, planner.assumed(0.4)) for t in targets]
    assert rows[0].to_row()["wall_days"] == pytest.approx(1e20 / (8 * 125e12 * 0.4) / 86400)


def test_compare_notes_a_measured_mfu_carried_to_other_hardware():
    # An MFU measured on a GTX 1080 Ti at fp32, applied to 8 V100s at fp16: three notes.
    measured = planner.Utilisation(0.5, "measured", True, GTX.name, "fp32", "run-1")
    options = PlanOptions(count=8, precision="fp16").validated()
    compute = planner.Compute(1e20, "given")
    rows, left_out = plan_targets.compare(CATALOG, compute, measured, options)
    ((row, target),) = rows
    assert row.gpu == V100.name and row.mfu == 0.5
    assert [n.split(":")[0] for n in row.notes] == [
        f"MFU measured on {GTX.name}, applied to {V100.name}",
        "MFU measured at fp32, applied to the fp16 peak",
        "MFU measured on one GPU, applied to 8",
    ]
    assert row.to_row()["notes"] == list(target.notes)
    assert [gpu for gpu, _ in left_out] == [GTX.name]
