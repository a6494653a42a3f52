"""Projection of a measured throughput to GPUs that are not here (v2: published ratios first)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.pricing import calibration, catalog, published
from engine.pricing.projection import Basis, memory_bytes, project
from engine.pricing.published import PublishedTable
from engine.pricing.roofline import peak_tflops, spec_ratios

CAT = catalog.load()
BASIS = Basis.of(CAT)
GTX_1080_TI = CAT.gpu("GeForce GTX 1080 Ti")
TITAN_XP = CAT.gpu("TITAN Xp")
V100 = CAT.gpu("Tesla V100 SXM2 16GB")
A100 = CAT.gpu("A100 SXM4 40GB")
T4 = CAT.gpu("Tesla T4")
A10G = CAT.gpu("A10G")
GIB = 2**30
# Spec ratios alone: no published table
NO_TABLE = Basis(PublishedTable(), calibration.Calibration(), CAT.gpus)


def test_a_1080_ti_result_projected_to_a_v100_rests_on_published_conv_models():
    # Lambda v1 fp32 (assets/published_throughput.csv), V100 16GB over GTX 1080 Ti:
    # resnet50 369/196 = 1.88265, ssd 104/70 = 1.48571, waveglow 47394/19581 = 2.42041
    # (maskrcnn: no V100 figure); u39kun's PyTorch 0.3.0 table holds the same two GPUs but
    # answers only pairs Lambda lacks (engine/pricing/published.py). Their log ratios weighed
    # as Lambda's table says each follows its family (engine/pricing/family_mean.py: resnet50
    # 12.256, ssd 10.163, waveglow 1.855):
    # exp((12.256 x 0.632682 + 10.163 x 0.395896 + 1.855 x 0.883937) / 24.274) = 1.73800
    # (the plain geometric mean, 1.89175, let waveglow pull it up).
    # Range: the 80% range of a convolutional model left out of its family's mean
    # (engine/pricing/projection_errors.py), about x0.7 to x1.4 of the estimate.
    weights = BASIS.calibration.family_weights
    assert (weights["resnet50"], weights["ssd"], weights["waveglow"]) == (
        pytest.approx(12.256, abs=1e-3),
        pytest.approx(10.163, abs=1e-3),
        pytest.approx(1.855, abs=1e-3),
    )
    p = project(1000.0, GTX_1080_TI, V100, "fp32", basis=BASIS, family="convolutional", tf32=True)
    assert p.status == "estimated" and p.method == "published"
    assert p.samples_per_s == pytest.approx(1738.00, rel=1e-4)
    # Neither GPU has TF32: the run is projected from FP32 figures; its range is of TF32 and
    # FP32 checks pooled (engine/pricing/projection_errors.py RANGE_PRECISION), and says so
    assert "precision: FP32" in p.basis and "TF32 and FP32 checks pooled" in p.basis
    error = BASIS.calibration.range_for("family", "convolutional", precision="fp32")
    assert error.count >= 1000 and (error.family, error.precision, error.asked) == (
        "convolutional",
        "tf32+fp32",
        "fp32",
    )
    assert p.low == pytest.approx(1738.00 * error.low, rel=1e-4)
    assert p.high == pytest.approx(1738.00 * error.high, rel=1e-4)
    # hand-checked bounds: a V100 trains a convnet 1.1x to 2.9x as fast as a 1080 Ti here
    # (fp32 family estimates miss more than fp16 ones: their range is the wider)
    assert 1100 < p.low < 1500 and 2200 < p.high < 2900
    assert p.range_label == "80% range" and "80% range from" in p.basis
    assert "measured ratio of 3 published convolutional models" in p.basis
    assert "(resnet50, ssd, waveglow; Lambda PyTorch benchmark v1)" in p.basis
    assert "weighed 50%/42%/8% by how closely each has followed its family" in p.basis


def test_the_same_published_model_uses_its_own_ratio():
    p = project(
        196.0,
        GTX_1080_TI,
        V100,
        "fp32",
        basis=BASIS,
        family="convolutional",
        published_model="resnet50",
    )
    assert p.samples_per_s == pytest.approx(369.0)  # exactly the V100's published resnet50
    assert "same published model (resnet50)" in p.basis


def test_a_gpu_missing_from_the_table_is_stood_in_for_by_its_chip():
    # TITAN Xp (GP102, 6.1) is not in the table; the GTX 1080 Ti (GP102) stands in for it,
    # scaled by the spec ratio between the two.
    p = project(1000.0, TITAN_XP, V100, "fp32", basis=BASIS, family="convolutional")
    assert p.method == "stand-in"
    assert "GeForce GTX 1080 Ti for TITAN Xp" in p.basis
    direct = project(1000.0, GTX_1080_TI, V100, "fp32", basis=BASIS, family="convolutional")
    step = spec_ratios(TITAN_XP, GTX_1080_TI, "fp32")
    alpha = BASIS.calibration.alpha_for("fp32", "convolutional")
    assert p.samples_per_s == pytest.approx(direct.samples_per_s * step.weighted(alpha))


def test_without_the_table_spec_ratios_with_the_default_range():
    # 1080 Ti -> V100 SXM2 16GB, fp32: peak 15.67 / 11.34 = 1.381834; bandwidth 897 / 484 =
    # 1.853306; even weights: sqrt(1.381834 x 1.853306) = 1.600300; range x0.6 to x1.4
    p = project(1000.0, GTX_1080_TI, V100, "fp32", basis=NO_TABLE)
    assert p.method == "spec" and p.samples_per_s == pytest.approx(1600.30, rel=1e-5)
    assert (p.low, p.high) == (pytest.approx(960.18, rel=1e-5), pytest.approx(2240.42, rel=1e-5))
    assert "FP32 peak x1.38, memory bandwidth x1.85" in p.basis


def test_fp32_on_ampere_uses_the_tf32_rate_where_the_run_used_it():
    plain = spec_ratios(V100, A100, "fp32", tf32=False)
    tf32 = spec_ratios(V100, A100, "fp32", tf32=True)
    assert plain.compute == pytest.approx(19.5 / 15.67, rel=1e-3)
    assert tf32.compute == pytest.approx(156.0 / 15.67, rel=1e-3)
    assert "TF32" in tf32.what


@pytest.mark.parametrize(
    ("source", "target", "precision", "why"),
    [
        (A100, V100, "bf16", "Tesla V100 SXM2 16GB has no bf16"),
        (V100, A10G, "fp16", "tensor FP16/BF16 rate of A10G is not in the catalog"),
        (GTX_1080_TI, V100, "fp16", "the measured GPU: GeForce GTX 1080 Ti has no tensor cores"),
    ],
)
def test_no_estimate_without_a_table_pair_or_a_known_rate(source, target, precision, why):
    p = project(1000.0, source, target, precision, basis=NO_TABLE)
    assert p.status == "no_estimate" and p.samples_per_s is None
    assert why in p.basis


def test_published_ratios_rise_in_the_tables_own_order():
    # resnet50 tf32 (v1; FP32 on GPUs without TF32): each GPU's ratio to the 1080 Ti follows
    # the published figures' order (Lambda's tables alone: with the other sources, a GPU they
    # measured too takes the mean of its resnet50 ratios in every source, another set-up's)
    shipped = published.shipped()
    table = shipped.without(versions=[v for v in shipped.versions if v not in ("v1", "v2")])
    basis = Basis.of(CAT, table)
    figures = table.figures_of("v1", "tf32", "GeForce GTX 1080 Ti")
    assert figures["resnet50"] == 196.0 and figures == table.figures_of(
        "v1", "fp32", GTX_1080_TI.name
    )
    order = sorted(
        (g for g in table.gpus if "resnet50" in table.figures_of("v1", "tf32", g)),
        key=lambda g: table.figures_of("v1", "tf32", g)["resnet50"],
    )
    estimates = [
        project(
            196.0,
            GTX_1080_TI,
            CAT.gpu(g),
            "tf32",
            basis=basis,
            family="convolutional",
            published_model="resnet50",
        ).samples_per_s
        for g in order
    ]
    assert estimates == sorted(estimates) and len(estimates) >= 20


def test_the_spec_estimate_never_falls_as_the_targets_peak_rate_rises():
    points = []
    for rate in [1.0, 5.0, 11.34, 15.0, 30.0, 80.0, 200.0]:
        p = project(1000.0, GTX_1080_TI, replace(V100, fp32_tflops=rate), "fp32", basis=NO_TABLE)
        points.append(p.samples_per_s)
        assert p.low <= p.samples_per_s <= p.high
    assert points == sorted(points) and points[0] < points[-1]
    same = project(1000.0, GTX_1080_TI, GTX_1080_TI, "fp32", basis=NO_TABLE)
    assert same.samples_per_s == pytest.approx(1000.0)


def test_a_batch_that_does_not_fit_the_targets_memory_gets_no_throughput():
    needed = 20 * GIB
    for memory_gb in (8.0, 16.0, 20 * GIB / 1e9 - 0.001):
        target = replace(V100, memory_gb=memory_gb)
        p = project(1000.0, GTX_1080_TI, target, "fp32", needed, memory_bytes(target), basis=BASIS)
        assert p.status == "does_not_fit" and p.fits is False and p.samples_per_s is None
        assert "batch needs 20.0 GiB" in p.basis
    bigger = replace(V100, memory_gb=32.0)
    fits = project(1000.0, GTX_1080_TI, bigger, "fp32", needed, memory_bytes(bigger), basis=BASIS)
    assert fits.status == "estimated" and fits.fits is True
    unknown = project(1000.0, GTX_1080_TI, V100, "fp32", None, memory_bytes(V100), basis=BASIS)
    assert unknown.status == "estimated" and unknown.fits is None


def test_an_instances_own_memory_figure_comes_before_the_marketed_one():
    g5 = next(i for i in CAT.instances if i.instance_type == "g5.xlarge")
    assert memory_bytes(A10G, g5) == int(22.35 * GIB)  # what the cloud exposes
    assert memory_bytes(A10G) == int(24e9)  # marketed 24 GB, read as 10^9 bytes
    assert memory_bytes(None) is None


def test_peak_rates_by_precision():
    assert peak_tflops(V100, "fp32") == (15.67, "FP32")
    assert peak_tflops(V100, "fp16") == (125.0, "tensor FP16/BF16")
    assert peak_tflops(A100, "bf16") == (312.0, "tensor FP16/BF16")
    assert peak_tflops(T4, "bf16")[0] is None


def test_scaling_to_a_partition_or_several_gpus_says_so():
    p = project(1000.0, GTX_1080_TI, V100, "fp32", basis=BASIS)
    quarter = p.scaled(0.25, "a quarter")
    assert quarter.samples_per_s == pytest.approx(p.samples_per_s / 4)
    assert quarter.low == pytest.approx(p.low / 4) and quarter.basis.endswith("; a quarter")
    assert p.scaled(1, "one") is p


@pytest.mark.parametrize(
    ("device_name", "spec"),
    [
        ("NVIDIA GeForce GTX 1080 Ti", "GeForce GTX 1080 Ti"),
        ("Tesla V100-SXM2-32GB", "Tesla V100 SXM2 32GB"),
        ("NVIDIA A100-PCIE-40GB", "A100 PCIe 40GB"),
        ("Quadro RTX 8000", "Quadro RTX 8000"),
        ("NVIDIA TITAN RTX", "TITAN RTX"),
        ("NVIDIA TITAN Xp", "TITAN Xp"),
        ("NVIDIA GeForce RTX 3080", "GeForce RTX 3080"),
        ("NVIDIA RTX A5000", "RTX A5000"),
        ("NVIDIA A40", "A40"),
        ("NVIDIA A100 80GB PCIe", "A100 PCIe 80GB"),
    ],
)
def test_device_names_as_nvml_writes_them_resolve(device_name, spec):
    assert CAT.gpu_for_device(device_name).name == spec


def test_every_table_gpu_is_in_the_catalog_and_every_row_says_where_it_is_from():
    table = published.shipped()
    names = {g.name for g in CAT.gpus}
    assert table.gpus <= names and len(table.gpus) >= 25
    assert all(f.source and len(f.commit) == 40 and f.date[:2] == "20" for f in table.figures)
    assert all(r.count >= 20 and r.low < 1 < r.high for r in BASIS.calibration.ranges.values())
