"""Projection of a measured throughput to GPUs that are not here."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from engine.pricing import catalog
from engine.pricing.projection import memory_bytes, peak_tflops, project

CAT = catalog.load()
GTX_1080_TI = CAT.gpu("GeForce GTX 1080 Ti")
V100 = CAT.gpu("Tesla V100 SXM2 16GB")
A100 = CAT.gpu("A100 SXM4 40GB")
T4 = CAT.gpu("Tesla T4")
A10G = CAT.gpu("A10G")
GIB = 2**30


def test_fp32_estimate_is_the_roofline_range_with_its_geometric_midpoint():
    # 1080 Ti -> V100 SXM2 16GB, fp32: peak 15.67 / 11.34 = 1.381834; bandwidth 897 / 484 =
    # 1.853306. 1000 samples/s measured -> range 1381.8 to 1853.3, midpoint
    # 1000 x sqrt(1.381834 x 1.853306) = 1000 x sqrt(2.560961) = 1600.30
    p = project(1000.0, GTX_1080_TI, V100, "fp32")
    assert p.status == "estimated" and p.estimated
    assert p.compute_ratio == pytest.approx(1.381834, rel=1e-6)
    assert p.bandwidth_ratio == pytest.approx(1.853306, rel=1e-6)
    assert (p.low, p.high) == (pytest.approx(1381.834, rel=1e-6), pytest.approx(1853.306, rel=1e-6))
    assert p.samples_per_s == pytest.approx(1600.30, rel=1e-5)
    assert "FP32 peak x1.38, memory bandwidth x1.85" in p.basis


def test_mixed_precision_uses_the_tensor_rates():
    # V100 -> A100 40GB, fp16 autocast: tensor 312 / 125 = 2.496; bandwidth 1560 / 897 = 1.739130
    p = project(2000.0, V100, A100, "fp16")
    assert p.compute_ratio == pytest.approx(2.496)
    assert p.bandwidth_ratio == pytest.approx(1.739130, rel=1e-6)
    assert (p.low, p.high) == (pytest.approx(3478.26, rel=1e-5), pytest.approx(4992.0))
    assert p.samples_per_s == pytest.approx(2000 * math.sqrt(2.496 * 1.739130), rel=1e-6)


@pytest.mark.parametrize(
    ("source", "target", "precision", "why"),
    [
        (V100, GTX_1080_TI, "fp16", "GeForce GTX 1080 Ti has no tensor cores"),
        (A100, V100, "bf16", "Tesla V100 SXM2 16GB has no bf16"),
        (V100, A10G, "fp16", "tensor FP16/BF16 rate of A10G is not in the catalog"),
        (GTX_1080_TI, V100, "fp16", "the measured GPU: GeForce GTX 1080 Ti has no tensor cores"),
    ],
)
def test_no_estimate_where_the_bounding_rate_is_not_known(source, target, precision, why):
    p = project(1000.0, source, target, precision)
    assert p.status == "no_estimate" and p.samples_per_s is None
    assert why in p.basis


def test_the_estimate_never_falls_as_the_targets_peak_rate_rises():
    rates = [1.0, 5.0, 11.34, 15.0, 30.0, 80.0, 200.0]
    points, lows, highs = [], [], []
    for rate in rates:
        p = project(1000.0, GTX_1080_TI, replace(V100, fp32_tflops=rate), "fp32")
        points.append(p.samples_per_s)
        lows.append(p.low)
        highs.append(p.high)
        assert p.low <= p.samples_per_s <= p.high
    assert points == sorted(points) and lows == sorted(lows) and highs == sorted(highs)
    assert points[0] < points[-1]
    # the same peak rate and bandwidth as the source: exactly the measured throughput
    same = project(1000.0, GTX_1080_TI, GTX_1080_TI, "fp32")
    assert (same.low, same.samples_per_s, same.high) == (1000.0, 1000.0, 1000.0)


def test_a_batch_that_does_not_fit_the_targets_memory_gets_no_throughput():
    needed = 20 * GIB
    for memory_gb in (8.0, 16.0, 20 * GIB / 1e9 - 0.001):
        target = replace(V100, memory_gb=memory_gb)
        p = project(1000.0, GTX_1080_TI, target, "fp32", needed, memory_bytes(target))
        assert p.status == "does_not_fit" and p.fits is False and p.samples_per_s is None
        assert "batch needs 20.0 GiB" in p.basis
    bigger = replace(V100, memory_gb=32.0)
    fits = project(1000.0, GTX_1080_TI, bigger, "fp32", needed, memory_bytes(bigger))
    assert fits.status == "estimated" and fits.fits is True
    unknown = project(1000.0, GTX_1080_TI, V100, "fp32", None, memory_bytes(V100))
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
    p = project(1000.0, GTX_1080_TI, V100, "fp32")
    quarter = p.scaled(0.25, "a quarter")
    assert quarter.samples_per_s == pytest.approx(p.samples_per_s / 4)
    assert quarter.low == pytest.approx(p.low / 4) and quarter.basis.endswith("; a quarter")
    assert p.scaled(1, "one") is p
