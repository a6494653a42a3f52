"""Issue 40, precision named per source: AMP, pure fp16, TF32 and FP32 figures kept apart, and a
run's precision (tf32, or fp32 whose environment says TF32 ran) picks its own figures and
errors."""

from __future__ import annotations

import pytest

from engine.pricing import catalog, projection_errors, published
from engine.pricing.calibration import Calibration
from engine.pricing.projection import Basis, project
from engine.pricing.published import Figure, PublishedTable
from engine.pricing.result_projection import project_result
from engine.pricing.roofline import has_tf32, peak_tflops, ran_tf32, spec_ratios

CAT = catalog.load()
BASIS = Basis.of(CAT)
TI, V100, A100 = (
    CAT.gpu("GeForce GTX 1080 Ti"),
    CAT.gpu("Tesla V100 SXM2 16GB"),
    CAT.gpu("A100 SXM4 40GB"),
)


def _figure(gpu: str, precision: str, value: float, model: str = "m") -> Figure:
    return Figure(gpu, model, "convolutional", precision, value, "v1", gpu, "test", "0" * 40, "")


def _table() -> PublishedTable:
    """The 1080 Ti and the V100 (no TF32) in fp32, the A100 in tf32 and strict fp32 halves:
    the A100 trains m 4x as fast as the V100 in TF32; amp and pure fp16 figures apart."""
    return PublishedTable(
        (
            _figure(TI.name, "fp32", 100.0),
            _figure(V100.name, "fp32", 200.0),
            _figure(A100.name, "tf32", 800.0),
            _figure(V100.name, "amp", 500.0),
            _figure(A100.name, "amp", 1000.0),
            _figure(V100.name, "half", 450.0),
            _figure(A100.name, "half", 1350.0),
        )
    )


def test_the_run_precisions_map_to_the_tables():
    assert published.table_precision("fp16") == published.table_precision("bf16") == "amp"
    assert published.table_precision("fp32") == "fp32"
    assert published.table_precision("fp32", tf32=True) == "tf32"
    assert published.table_precision("tf32") == "tf32"
    assert published.table_precision("fp8") is None
    # between two GPUs without TF32 a TF32 run is FP32 arithmetic; .half() is no run's
    assert published.run_precision("tf32", False, with_tf32=False) == "fp32"
    assert published.run_precision("fp32", True, with_tf32=True) == "tf32"
    assert published.run_precision("half", False, with_tf32=True) is None
    assert (has_tf32(TI), has_tf32(V100), has_tf32(A100)) == (False, False, True)


def test_ratios_pair_like_with_like():
    table = _table()
    # TF32: the A100's tf32 figure over the V100's fp32 one (the V100 runs TF32 as FP32)
    assert [r.ratio for r in table.ratios(V100.name, A100.name, "tf32", None)] == [4.0]
    # strict FP32: the table holds no FP32 figure of the A100, so no ratio
    assert table.ratios(V100.name, A100.name, "fp32", None) == []
    assert [r.ratio for r in table.ratios(TI.name, V100.name, "fp32", None)] == [2.0]
    # a run's fp16 is AMP, never the .half() figures
    assert [r.ratio for r in table.ratios(V100.name, A100.name, "fp16", None)] == [2.0]
    assert [r.ratio for r in table.ratios(V100.name, A100.name, "half", None)] == [3.0]
    # each pair once: 1080 Ti-V100 in fp32 only, the A100's pairs in tf32
    pairs = {(p, a, b) for _, p, a, b, _, _ in table.pairs()}
    assert pairs == {
        ("fp32", TI.name, V100.name),
        ("tf32", A100.name, TI.name),
        ("tf32", A100.name, V100.name),
        ("amp", A100.name, V100.name),
        ("half", A100.name, V100.name),
    }


def test_a_tf32_run_and_an_fp32_run_with_tf32_on_are_projected_alike():
    tf32 = project(1000.0, V100, A100, "tf32", basis=BASIS, family="convolutional")
    fp32_on = project(1000.0, V100, A100, "fp32", basis=BASIS, family="convolutional", tf32=True)
    assert tf32.status == "estimated" and tf32.method == "published"
    assert tf32.samples_per_s == pytest.approx(fp32_on.samples_per_s)
    assert (tf32.low, tf32.high) == (pytest.approx(fp32_on.low), pytest.approx(fp32_on.high))
    assert "precision: TF32" in tf32.basis and "convolutional tf32+fp32 'family'" in tf32.basis


def test_a_strict_fp32_run_never_takes_an_ampere_gpus_tf32_figures():
    # Lambda's A100 figures ran TF32: a run with TF32 off has no published pair there, and
    # rests on spec ratios of the FP32 rates
    strict = project(1000.0, V100, A100, "fp32", basis=BASIS, family="convolutional", tf32=False)
    assert strict.method == "spec" and "FP32 peak" in strict.basis
    assert strict.compute_ratio == pytest.approx(19.49 / 15.67, rel=1e-3)
    tf32 = project(1000.0, V100, A100, "tf32", basis=BASIS, family="convolutional")
    assert strict.samples_per_s < tf32.samples_per_s


def test_between_two_gpus_without_tf32_a_tf32_run_is_an_fp32_one():
    a = project(1000.0, TI, V100, "tf32", basis=BASIS, family="convolutional")
    b = project(1000.0, TI, V100, "fp32", basis=BASIS, family="convolutional")
    assert a.samples_per_s == pytest.approx(b.samples_per_s) and (a.low, a.high) == (b.low, b.high)
    assert "precision: FP32" in a.basis and "convolutional tf32+fp32 'family'" in a.basis


def test_a_results_precision_and_environment_pick_its_figures():
    def run(precision: str, environment: dict) -> dict:
        return {
            "config": {"model": "resnet50", "precision": precision, "framework": "pytorch"},
            "environment": environment,
            "throughput_samples_per_s": 1000.0,
        }

    tf32 = project_result(run("tf32", {}), V100, A100, BASIS)
    off = project_result(run("fp32", {"tf32_conv": False, "tf32_matmul": False}), V100, A100, BASIS)
    on = project_result(run("fp32", {"tf32_conv": True}), V100, A100, BASIS)
    assert "precision: TF32" in tf32.basis and "precision: TF32" in on.basis
    assert on.samples_per_s == pytest.approx(tf32.samples_per_s)
    assert off.method == "spec" and "precision: FP32" in off.basis
    assert ran_tf32({"tf32_matmul": False}, "transformer", "pytorch", "tf32")


def test_peak_rates_for_tf32():
    assert peak_tflops(A100, "tf32") == (156.0, "TF32 tensor")
    assert peak_tflops(V100, "tf32") == (15.67, "FP32")  # no TF32: its arithmetic is FP32
    assert spec_ratios(V100, A100, "tf32").compute == pytest.approx(156.0 / 15.67)
    assert spec_ratios(V100, A100, "tf32") == spec_ratios(V100, A100, "fp32", tf32=True)


def test_the_shipped_calibration_keeps_each_precision_apart():
    # figures, pairs and spec weights per precision; the ranges of AMP apart, of TF32 and FP32
    # as one (apart, they held fewer than 80% of a left-out GPU's figures)
    cal = BASIS.calibration
    assert {key[3] for key in cal.ranges} == {"", "amp", "tf32+fp32"}
    assert {p for p, _ in cal.alpha} >= {"amp", "tf32", "fp32", ""}
    assert cal.alpha_for("tf32", "transformer") != cal.alpha_for("fp32", "transformer")
    # Lambda's fp32 pairs are the tf32 (a GPU with TF32) and fp32 (two without) ones, each once
    table = BASIS.table.without(versions=[v for v in BASIS.table.versions if v not in ("v1", "v2")])
    pairs = [(v, p, a, b) for v, p, a, b, _, _ in table.pairs()]
    assert len({(v, a, b) for v, p, a, b in pairs if p != "amp"}) == len(
        [p for p in pairs if p[1] != "amp"]
    )
    for _, precision, a, b in pairs:
        tf32 = has_tf32(CAT.gpu(a)) or has_tf32(CAT.gpu(b))
        assert precision == "amp" or (precision == "tf32") == tf32


def test_too_few_checks_of_a_precision_pool_them_and_say_so():
    checks = [(0.1 * i, f"g{i}") for i in range(-12, 13)]
    ranges = projection_errors.ranges({("family", "convolutional", "", "amp"): checks})
    found = Calibration(ranges=ranges).range_for("family", "convolutional", "", "tf32")
    assert found.precision == "" and found.asked == "tf32"
    assert "every precision pooled (too few tf32 checks)" in found.text()
    # TF32's and FP32's checks make one range, which says so
    ranges = projection_errors.ranges({("family", "convolutional", "", "fp32"): checks})
    found = Calibration(ranges=ranges).range_for("family", "convolutional", "", "tf32")
    assert (found.precision, found.asked, found.count) == ("tf32+fp32", "tf32", 25)
    assert "(TF32 and FP32 checks pooled: apart, their ranges held fewer" in found.text()
