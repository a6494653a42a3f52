"""Every GPU the published tables name resolves, under the names NVML gives it, to a catalog GPU
or a stand-in of its product (engine/pricing/device.py); and the published table pairs GPUs only
within one source and harness version (issue 40)."""

from __future__ import annotations

import csv
import importlib.util

import pytest

from engine.core import paths
from engine.pricing import catalog, projection_errors, published
from engine.pricing.device import device_parts
from engine.pricing.projection import Basis, project
from engine.pricing.published import Figure, PublishedTable
from engine.pricing.result_projection import project_result
from engine.pricing.roofline import has_tf32

CAT = catalog.load()
BASIS = Basis.of(CAT)


def _assets_module(name: str):
    spec = importlib.util.spec_from_file_location(name, paths.assets() / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DERIVE = _assets_module("derive_published")
LAMBDA = _assets_module("derive_throughput")


def _labels() -> set[tuple[str, str]]:
    """(table, GPU label) of every published table the project holds (assets/sources/, copied
    from the collected tables by assets/derive_published.py)."""
    found = set()
    for path in sorted((paths.assets() / "sources").glob("published_*.csv")):
        table = path.name.removeprefix("published_")
        with path.open(newline="", encoding="utf-8") as f:
            found |= {(table, row["gpu"]) for row in csv.DictReader(f)}
    return found


def test_every_gpu_the_published_tables_name_resolves_under_its_nvml_name():
    labels = _labels()
    assert len({t for t, _ in labels}) >= 5
    unresolved = []
    for table, label in sorted(labels):
        nvml = DERIVE.nvml_name(table, label)
        if nvml is None:
            assert label in DERIVE.NOT_RESOLVED, f"{table}: {label!r} has no NVML name"
            continue
        if CAT.gpu_for_device(nvml) is None:
            unresolved.append((table, label, nvml))
    assert unresolved == []
    # Left out only: accelerators NVML does not name and two GPUs no source gives specs of,
    # all of the matmul microbenchmark alone (no training table).
    assert sorted(DERIVE.NOT_RESOLVED) == [
        "AMD MI300X",
        "AMD MI325X",
        "AMD MI355X",
        "Intel Gaudi 2",
        "Intel Gaudi 3",
        "NVIDIA B300 SXM",
        "NVIDIA GB200 SXM",
    ]


def test_every_gpu_of_lambdas_tables_resolves_from_its_nvml_names():
    names = {LAMBDA.catalog_gpu(row) for row in LAMBDA.GPU_NAMES}
    for name in sorted(names):
        spec = CAT.gpu(name)
        assert spec is not None and spec.aliases, name
        assert all(CAT.gpu_for_device(alias) is spec for alias in spec.aliases), name


@pytest.mark.parametrize(
    ("device_name", "spec"),
    [
        ("Tesla V100-SXM3-32GB", "Tesla V100 SXM3 32GB"),  # a DGX-2's
        ("Tesla V100-DGXS-16GB", "Tesla V100 DGXS 16GB"),
        ("NVIDIA GeForce GTX 1080 Ti", "GeForce GTX 1080 Ti"),
        ("Tesla P100-PCIE-16GB", "Tesla P100 PCIe 16GB"),
        ("NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB"),
        ("A100-SXM4-40GB", "A100 SXM4 40GB"),  # older drivers: no "NVIDIA"
        ("NVIDIA H100 80GB HBM3", "H100 SXM5 80GB"),
        ("TITAN Xp", "TITAN Xp"),
        ("TITAN V", "TITAN V"),
        ("NVIDIA TITAN RTX", "TITAN RTX"),
        ("TITAN X (Pascal)", "TITAN X (Pascal)"),
        ("GeForce GTX TITAN X", "GeForce GTX TITAN X"),
    ],
)
def test_nvml_names_resolve_to_their_catalog_gpu(device_name, spec):
    assert CAT.gpu_for_device(device_name).name == spec


def test_a_name_of_a_known_product_and_memory_is_stood_in_for_by_it():
    # A board revision NVML names: the RTX 2080 Ti's rates, under the device's own name (so
    # nothing measured on it is taken for the catalog card's measurement).
    found = CAT.gpu_for_device("NVIDIA GeForce RTX 2080 Ti Rev. A")
    ti = CAT.gpu("GeForce RTX 2080 Ti")
    assert found.name == "NVIDIA GeForce RTX 2080 Ti Rev. A"
    assert "GeForce RTX 2080 Ti" in found.notes
    assert (found.fp32_tflops, found.memory_gb, found.compute_capability) == (
        ti.fp32_tflops,
        ti.memory_gb,
        ti.compute_capability,
    )
    assert device_parts("Tesla V100-SXM3-32GB") == ("v100", 32.0, "sxm")
    # Another memory than every row of the product (another bandwidth), a MIG slice, a laptop
    # part, a product the catalog lacks: no stand-in, no guess.
    for name in (
        "Tesla P100-PCIE-12GB",
        "NVIDIA A100-SXM4-40GB MIG 3g.20gb",
        "NVIDIA GeForce RTX 3080 Ti Laptop GPU",
        "NVIDIA GeForce RTX 3060",
    ):
        assert CAT.gpu_for_device(name) is None, name


def _result(device_name: str, model: str = "resnet50") -> dict:
    return {
        "run_id": "r1",
        "config": {"model": model, "precision": "fp32", "framework": "pytorch"},
        "environment": {"device": "cuda", "device_name": device_name},
        "throughput_samples_per_s": 400.0,
        "throughput_ci95": [390.0, 410.0],
    }


@pytest.mark.parametrize("target", ["A100 SXM4 40GB", "Tesla T4", "H100 SXM5 80GB", "L4"])
def test_a_result_measured_on_a_dgx2s_v100_gets_an_estimate(target):
    source = CAT.gpu_for_device("Tesla V100-SXM3-32GB")
    proj = project_result(_result("Tesla V100-SXM3-32GB"), source, CAT.gpu(target), BASIS)
    assert proj.status == "estimated" and proj.samples_per_s > 0
    assert proj.low < proj.samples_per_s < proj.high
    # The table lacks the SXM3: a V100 of the table stands in for it, its rates the step
    assert "same chip" in proj.basis and "Tesla V100-SXM3-32GB" not in CAT.gpu(target).aliases


def test_a_stood_in_device_is_projected_through_its_chip():
    source = CAT.gpu_for_device("Tesla V100-DGXS-32GB")
    assert source.name == "Tesla V100 DGXS 32GB"
    rev_a = CAT.gpu_for_device("NVIDIA GeForce RTX 2080 Ti Rev. A")
    proj = project(
        300.0, rev_a, CAT.gpu("A10G"), "fp16", basis=BASIS, family="convolutional", tf32=True
    )
    assert proj.status == "estimated" and proj.method == "stand-in"
    assert "GeForce RTX 2080 Ti for NVIDIA GeForce RTX 2080 Ti Rev. A" in proj.basis


def _figure(gpu: str, version: str, value: float, model: str = "vgg16") -> Figure:
    return Figure(gpu, model, "convolutional", "fp32", value, version, "", "", "", "")


def test_a_pair_across_two_harness_versions_is_never_used():
    # The 1080 Ti in ryujaehun's v2018-10 harness (batch 12), the V100 only in v2018-12 (15):
    # no ratio is taken between them, in the table or in its calibration.
    table = PublishedTable(
        (
            _figure("GeForce GTX 1080 Ti", "ryujaehun v2018-10", 100.0),
            _figure("Tesla V100 DGXS 16GB", "ryujaehun v2018-12", 300.0),
        )
    )
    assert table.ratios("GeForce GTX 1080 Ti", "Tesla V100 DGXS 16GB", "fp32", None, False) == []
    assert list(table.pairs()) == []
    # The shipped table: every pair is of one version, and each source's versions are apart
    shipped = published.shipped()
    assert {"ryujaehun v2018-10", "ryujaehun v2018-12", "u39kun pytorch 0.3.0"} <= set(
        shipped.versions
    )
    for version, precision, a, b, fa, fb in shipped.pairs():
        assert fa == shipped.figures_of(version, precision, a)
        assert a != b and fb


def test_each_row_is_labelled_with_the_precision_its_source_measured():
    shipped = published.shipped()
    rows = [f for f in shipped.figures if f.version not in ("v1", "v2")]
    assert rows and {f.precision for f in rows} == {"fp32", "amp", "half"}
    # AMP only from llm-foundry's "bf16 (AMP)"; the .half() rows of ryujaehun and u39kun are
    # pure fp16, apart; every other source's fp32 is of GPUs before Ampere (no TF32)
    assert {f.version for f in rows if f.precision == "amp"} == {"mosaicml 8 gpus"}
    assert {f.version for f in rows if f.precision == "half"} == {
        "ryujaehun v2018-10",
        "ryujaehun v2018-12",
        "u39kun pytorch 0.3.0",
    }
    assert not any(f.version == "ryujaehun v2020" for f in rows)
    # Lambda's fp16 tables are AMP; its fp32 ran TF32 on Ampere and newer, FP32 before
    lambdas = [f for f in shipped.figures if f.version in ("v1", "v2")]
    assert {f.precision for f in lambdas} == {"amp", "tf32", "fp32"}
    for f in lambdas:
        if f.precision != "amp":
            assert (f.precision == "tf32") == has_tf32(CAT.gpu(f.gpu)), f
    assert LAMBDA.measured_precision("fp32", "8.6") == "tf32"
    assert LAMBDA.measured_precision("fp32", "7.0") == "fp32"
    assert LAMBDA.measured_precision("fp16", "7.0") == "amp"


def test_pure_fp16_rows_answer_no_run_and_stay_out_of_pooled_ranges():
    # A run's fp16 is autocast (AMP): the ryujaehun/u39kun .half() figures, pure fp16, are
    # never its ratios; nor do their checks enter the ranges pooled over precisions.
    shipped = published.shipped()
    ti, titan_v = "GeForce GTX 1080 Ti", "TITAN V"
    assert shipped.ratios(ti, titan_v, "half", "convolutional", False)
    for ratio in shipped.ratios(ti, titan_v, "fp16", "convolutional", False):
        assert not ratio.version.startswith(("ryujaehun", "u39kun"))
    half = PublishedTable(tuple(f for f in shipped.figures if f.precision == "half"))
    assert published.table_precision("fp16") == "amp" and not half.ratios(ti, titan_v, "fp16", None)
    found = projection_errors.model_out(half)
    assert found and all(key[3] == "half" for key in found)
    ranges = projection_errors.ranges(found)
    assert ranges and all(key[3] == "half" for key in ranges)
