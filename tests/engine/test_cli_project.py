"""epochcost project: a measured run on other GPUs, with what each figure rests on."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.results.store import Store
from tests.engine.price_results import result

KEYS = {"gpu", "status", "samples_per_s", "low", "high", "basis", "fits"}


def _file(tmp_path, **kwargs):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(result(**kwargs)))
    return str(path)


def _json(capsys, *args):
    assert main(["project", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_1080_ti_run_projected_to_a_v100_by_its_nvml_name(tmp_path, capsys):
    data = _json(capsys, _file(tmp_path), "--gpu", "Tesla V100-SXM2-16GB")
    assert set(data) >= KEYS and data["gpu"] == "Tesla V100 SXM2 16GB"
    assert data["status"] == "estimated" and data["fits"] is True
    # tests/engine/test_projection.py works out 1738.00 from the published conv-model ratios
    assert data["samples_per_s"] == pytest.approx(1738.00, rel=1e-4)
    assert 1000 < data["low"] < 1500 and 2400 < data["high"] < 3400
    assert "published convolutional models" in data["basis"]


def test_all_lists_every_catalog_gpu_with_the_measured_one_measured(tmp_path, capsys):
    data = _json(capsys, _file(tmp_path), "--gpu", "all")
    by_gpu = {row["gpu"]: row for row in data}
    assert len(data) >= 57 and all(set(row) >= KEYS for row in data)
    assert by_gpu["GeForce GTX 1080 Ti"]["status"] == "measured"
    assert by_gpu["GeForce GTX 1080 Ti"]["samples_per_s"] == 1000.0
    # the batch needs 3 GiB: it fits an 8 GB card
    assert by_gpu["GeForce RTX 3070"]["fits"] is True
    assert by_gpu["TITAN Xp"]["status"] == "estimated"
    assert "same chip" in by_gpu["TITAN Xp"]["basis"]
    faster = by_gpu["H100 SXM5 80GB"]["samples_per_s"]
    assert (
        faster
        > by_gpu["A100 SXM4 80GB"]["samples_per_s"]
        > by_gpu["Tesla V100 SXM2 16GB"]["samples_per_s"]
    )


def test_a_run_stored_on_the_target_replaces_the_estimate(tmp_path, capsys):
    Store().add(
        result(
            run_id="20250102T000000-v1000001",
            device_name="Tesla V100-SXM2-16GB",
            samples_per_s=1750.0,
        )
    )
    data = _json(capsys, _file(tmp_path), "--gpu", "Tesla V100 SXM2 16GB")
    assert data["status"] == "measured" and data["samples_per_s"] == 1750.0
    assert "20250102T000000-v1000001" in data["basis"]


def test_a_cpu_run_is_not_projected_to_any_gpu(tmp_path, capsys):
    data = _json(capsys, _file(tmp_path, device="cpu", device_name=None), "--gpu", "all")
    assert {row["status"] for row in data} == {"no_estimate"}
    assert all(row["samples_per_s"] is None and "CPU" in row["basis"] for row in data)


def test_a_batch_too_big_for_the_target_does_not_fit(tmp_path, capsys):
    data = _json(capsys, _file(tmp_path, peak_memory_bytes=10 * 2**30), "--gpu", "RTX 3070")
    assert data["status"] == "does_not_fit" and data["fits"] is False
    assert data["samples_per_s"] is None and "batch needs 10.0 GiB" in data["basis"]


@pytest.mark.parametrize(
    ("gpu", "message"),
    [
        ("v100", "matches 7 GPUs"),
        ("Voodoo 5", "no catalog GPU matches 'Voodoo 5'"),
    ],
)
def test_a_gpu_name_that_names_none_or_several_is_refused(tmp_path, capsys, gpu, message):
    assert main(["project", _file(tmp_path), "--gpu", gpu]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_the_text_table_names_the_basis(tmp_path, capsys):
    assert main(["project", _file(tmp_path), "--gpu", "NVIDIA A100-PCIE-40GB"]) == 0
    out = capsys.readouterr().out
    assert "A100 PCIe 40GB" in out and "estimated" in out and "Lambda PyTorch benchmark" in out
