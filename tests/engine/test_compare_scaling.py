"""compare with a measured data-parallel efficiency: multi-GPU rows scale by it, not by the
perfect scaling assumed without one; a data-parallel result is never read as one GPU's rate."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.pricing import catalog
from engine.pricing.compare import CompareOptions, compare
from engine.pricing.compare_rows import measured_elsewhere
from engine.pricing.projection import Basis
from engine.pricing.result_projection import project_result
from engine.results.store import Store
from tests.engine.price_results import result
from tests.engine.test_scaling import H100, _distributed

CAT = catalog.load()


def _rows(c):
    return {r.instance_type: r for r in c.rows}


def test_a_multi_gpu_row_scales_by_the_efficiency_given():
    def scaling(gpu, count):
        return (0.85, "measured scaling: 85%") if (gpu, count) == ("H100 SXM5 80GB", 4.0) else None

    single = result(device_name=H100, samples_per_s=1000.0)
    plain = _rows(compare(single, CAT, CompareOptions(max_gpus=8)))
    measured = _rows(compare(single, CAT, CompareOptions(max_gpus=8, scaling=scaling)))
    one = plain["a3-highgpu-1g"].throughput_samples_per_s
    assert plain["a3-highgpu-4g"].throughput_samples_per_s == pytest.approx(4 * one)
    assert "perfect data-parallel scaling assumed" in plain["a3-highgpu-4g"].basis
    assert measured["a3-highgpu-4g"].throughput_samples_per_s == pytest.approx(4 * 0.85 * one)
    assert "4 GPUs: measured scaling: 85%" in measured["a3-highgpu-4g"].basis
    # counts it has no measurement for still say what they assume
    assert "perfect data-parallel scaling assumed" in measured["a3-highgpu-8g"].basis


def test_cli_compare_uses_a_stored_scaling_measurement(capsys):
    store = Store()
    single = result(run_id="20260101T000000-single01", device_name=H100, samples_per_s=1000.0)
    store.add(single)
    store.add(_distributed("20260101T000000-wide0001", 3400.0, 4))
    assert main(["compare", "20260101T000000-single01", "--max-gpus", "8", "--json"]) == 0
    rows = {r["instance_type"]: r for r in json.loads(capsys.readouterr().out)}
    four = rows["a3-highgpu-4g"]
    assert four["throughput_samples_per_s"] == pytest.approx(4 * 0.85 * 1000.0)
    assert "85% of perfect" in four["basis"] and "20260101T000000-wide0001" in four["basis"]


def test_a_data_parallel_result_is_not_one_gpus_measurement():
    store = Store()
    store.add(_distributed("20260101T000000-wide0001", 3400.0, 4))
    single = result(device_name="NVIDIA GeForce GTX 1080 Ti", samples_per_s=100.0)
    assert measured_elsewhere(store.list(), single) == []
    # projected from itself: one device's share (3400 / 4) is what moves to another GPU
    wide = _distributed("20260101T000000-wide0002", 3400.0, 4)
    alone = result(device_name=H100, samples_per_s=850.0)
    target = CAT.gpu("A100 SXM4 80GB")
    source = CAT.gpu_for_device(H100)
    basis = Basis.of(CAT)
    from_wide = project_result(wide, source, target, basis)
    from_alone = project_result(alone, source, target, basis)
    assert from_wide.samples_per_s == pytest.approx(from_alone.samples_per_s)
    assert "one device's share of 4 processes" in from_wide.basis
