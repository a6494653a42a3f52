"""The shipped catalog, the user's own files beside it, and editing them."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core import paths
from engine.core.errors import ConfigError
from engine.pricing import catalog
from engine.pricing import user_rows as catalog_user
from engine.pricing.rows import GpuSpec

SOURCES = Path(__file__).resolve().parents[2] / "assets" / "sources"


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.glob("*.csv")}


def test_the_shipped_catalog_loads_whole_and_clean():
    cat = catalog.load()
    assert cat.problems == ()
    # 154 rows of assets/sources/cloud_gpu_prices.csv + 4 historical; 67 GPUs (41, and 26 added
    # for the published throughput table); 101 grid regions
    assert len(cat.instances) == 158 and len(cat.gpus) == 67 and len(cat.grid) == 101
    names = {g.name for g in cat.gpus}
    assert all(i.gpu_spec in names for i in cat.instances if i.gpu_spec)
    assert {i.cloud for i in cat.instances} == {
        "aws",
        "gcp",
        "azure",
        "lambda",
        "paperspace",
        "runpod",
    }
    assert all(i.source and i.price_date for i in cat.instances)


def test_oddities_of_the_data_are_carried_not_hidden():
    cat = catalog.load()
    by_name = {i.instance_type: i for i in cat.instances if not i.historical}
    # GCP attachable GPUs and bare host VMs are parts of a machine, not instances
    gpu_alone = by_name["accelerator:T4x1 (attach to n1-*)"]
    assert gpu_alone.price_component == "gpu_only" and not gpu_alone.full_instance
    assert not by_name["n1-standard-8"].full_instance
    assert by_name["n1-standard-8 + 1xT4"].full_instance
    # the GCP us-central1 H100 price the source asks to verify is flagged
    assert by_name["a3-highgpu-1g"].flagged and "verify" in by_name["a3-highgpu-1g"].notes
    # Azure: ND H100 v5 count corrected to 8; NC H100 v5 is the 94 GB NVL; K80 rows retired
    assert by_name["Standard_ND96isr_H100_v5"].gpu_count == 8
    assert by_name["Standard_NC40ads_H100_v5"].gpu_spec == "H100 NVL 94GB"
    assert by_name["Standard_NC6"].flagged and "retired" in by_name["Standard_NC6"].notes
    # AWS g6f: a quarter of an L4
    assert by_name["g6f.2xlarge"].gpu_count == 0.25 and by_name["g6f.2xlarge"].flagged
    # spot left blank where there is no spot market
    assert by_name["gpu_1x_a100"].usd_per_hour_spot is None


def test_historical_instances_of_the_published_studies_are_marked_with_their_dates():
    rows = {i.instance_type: i for i in catalog.load().select(historical=True)}
    assert {k: (v.usd_per_hour, v.price_date) for k, v in rows.items()} == {
        "p2.xlarge": (0.90, "2016-11"),
        "g2.2xlarge": (0.65, "2016-11"),
        "c4.8xlarge": (1.675, "2016-11"),
        "p3.2xlarge": (3.06, "2017-2018"),
    }
    assert rows["c4.8xlarge"].gpu_count == 0
    assert "cross-checked" in rows["p2.xlarge"].notes
    assert "not cross-checked" in rows["g2.2xlarge"].notes
    assert "Kroutikov" in rows["p2.xlarge"].source


def test_shipped_files_are_exactly_what_the_derivation_script_writes(tmp_path):
    script = paths.assets() / "derive.py"
    subprocess.run(
        [sys.executable, str(script), "--source", str(SOURCES), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    assert _digest(tmp_path) == _digest(paths.assets())


@pytest.mark.parametrize(
    ("device_name", "spec"),
    [
        ("Tesla V100-SXM2-16GB", "Tesla V100 SXM2 16GB"),
        ("NVIDIA GeForce GTX 1080 Ti", "GeForce GTX 1080 Ti"),
        ("GeForce GTX 1080", "GeForce GTX 1080"),
        ("NVIDIA H100 80GB HBM3", "H100 SXM5 80GB"),
        ("NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB"),
        ("Tesla K80", "Tesla K80 (per GPU, as exposed by clouds)"),
        ("NVIDIA A10G", "A10G"),
        ("NVIDIA GeForce RTX 3060", None),  # not in the catalog: no guess
        ("Apple MPS", None),
    ],
)
def test_a_device_name_finds_its_gpu_row(device_name, spec):
    found = catalog.load().gpu_for_device(device_name)
    assert (found.name if found else None) == spec


def test_a_malformed_user_file_reports_each_bad_line_and_loads_the_rest(epochcost_home):
    shipped = _digest(paths.assets())
    path = catalog.user_dir() / "instances.csv"
    path.write_text(
        "cloud,instance_type,gpu_model,gpu_spec,usd_per_hour,price_date,notes\n"  # line 1
        "aws,p3.2xlarge,V100,Tesla V100 SXM2 16GB,2.10,2025-03-01,my reserved quote\n"  # 2 ok
        "aws,bad-price,V100,,abc,,\n"  # 3
        "aws,short-row,V100\n"  # 4
        ",no-cloud,T4,,1.0,,\n"  # 5
        'home,quoted,T4,Tesla T4,0.40,2025-01-01,"a note\nover two lines"\n'  # 6-7 ok
        "home,bad-date,T4,Tesla T4,0.40,March 2025,\n"  # 8
        "# a comment row\n"  # 9
        "home,negative,T4,Tesla T4,-1,,\n"  # 10
        "home,my-box,T4,Tesla T4,0.30,,\n",  # 11 ok
        encoding="utf-8",
    )
    cat = catalog.load()
    messages = {p.line: p.message for p in cat.problems}
    assert messages == {
        3: "usd_per_hour: 'abc' is not a number; row skipped",
        4: "has 3 cells, header has 7; row skipped",
        5: "cloud: is required and empty; row skipped",
        8: "price_date: 'March 2025': use a date as YYYY-MM-DD (or YYYY-MM, YYYY); row skipped",
        10: "usd_per_hour: -1 must be at least 0 and at most 100000; row skipped",
    }
    assert all(p.path == str(path) for p in cat.problems)
    mine = {i.instance_type: i for i in cat.instances if i.origin == "user"}
    assert set(mine) == {"p3.2xlarge", "quoted", "my-box"}
    # the user's quote replaces the shipped p3.2xlarge row; the historical one stays
    p3 = [i for i in cat.instances if i.instance_type == "p3.2xlarge"]
    assert sorted((i.usd_per_hour, i.historical) for i in p3) == [(2.10, False), (3.06, True)]
    assert mine["my-box"].gpu_count == 1  # a GPU named, no count: one
    assert len(cat.instances) == 158 + 2
    assert _digest(paths.assets()) == shipped  # shipped files untouched


def test_a_user_file_without_a_required_column_is_skipped_with_one_problem():
    (catalog.user_dir() / "gpus.csv").write_text("gpu,fp32_tflops\nRTX 3060,12.7\n")
    (catalog.user_dir() / "grid.csv").write_text(
        "provider,region,ci_gco2e_per_kwh,colour\nhome,berlin,380,blue\n"
    )
    cat = catalog.load()
    assert [str(p).split("/")[-1] for p in cat.problems] == [
        "gpus.csv, line 1: missing column(s) name; file skipped",
        "grid.csv, line 1: unknown column 'colour' ignored (provider, region, region_name, "
        "country, ci_gco2e_per_kwh, ci_source_dataset, ci_data_vintage, pue)",
    ]
    assert len(cat.gpus) == 67
    assert cat.grid_for("home", "berlin").ci_gco2e_per_kwh == 380


def test_a_user_gpu_row_with_a_device_alias_makes_that_gpu_known():
    catalog_user.add_row(
        "gpus",
        {
            "name": "GeForce RTX 3060",
            "aliases": ("NVIDIA GeForce RTX 3060",),
            "architecture": "Ampere",
            "memory_gb": 12,
            "memory_bandwidth_gbs": 360,
            "fp32_tflops": 12.74,
            "has_tensor_cores": True,
            "sources": "my reading of the datasheet",
        },
    )
    spec = catalog.load().gpu_for_device("NVIDIA GeForce RTX 3060")
    assert spec is not None and spec.origin == "user" and spec.supports_bf16
    assert spec.fp16_bf16_tensor_tflops_dense is None  # not given: unknown, not guessed


def test_user_rows_are_added_edited_and_removed_atomically_keeping_the_rest():
    path = catalog.user_dir() / "machines.csv"
    path.write_text("name,purchase_usd\nold box,abc\n")  # a bad row the user typed
    catalog_user.add_row("machines", {"name": "home", "purchase_usd": 699, "usd_per_kwh": 0.3})
    catalog_user.add_row("machines", {"name": "lab", "purchase_usd": 2500})
    with pytest.raises(ConfigError) as dup:
        catalog_user.add_row("machines", {"name": "lab", "purchase_usd": 1})
    assert "already there" in dup.value.message
    with pytest.raises(ConfigError) as bad:
        catalog_user.add_row("machines", {"name": "x", "purchase_usd": 1, "psu_efficiency": 2})
    assert bad.value.field == "psu_efficiency"
    with pytest.raises(ConfigError) as unknown:
        catalog_user.add_row("machines", {"name": "x", "purchase_usd": 1, "colour": "red"})
    assert unknown.value.field == "colour"
    catalog_user.update_row("machines", ("home",), {"name": "home", "purchase_usd": 650})
    catalog_user.remove_row("machines", ("lab",))
    with pytest.raises(ConfigError):
        catalog_user.remove_row("machines", ("nowhere",))
    cat = catalog.load()
    assert [(m.name, m.purchase_usd, m.usd_per_kwh) for m in cat.machines] == [
        ("home", 650.0, None)
    ]
    assert [p.line for p in cat.problems] == [2]  # the user's bad row is still there, reported
    assert "old box,abc" in path.read_text()
    assert [r["name"] for r in catalog_user.user_rows("machines")] == ["old box", "home"]
    assert not list(path.parent.glob(".*.tmp"))  # no temporary file left behind


def test_selecting_instances_by_cloud_gpu_and_text():
    cat = catalog.load()
    v100_aws = cat.select(clouds=["aws"], gpu="v100")
    assert {i.instance_type for i in v100_aws} == {
        "p3.2xlarge",
        "p3.8xlarge",
        "p3.16xlarge",
        "p3dn.24xlarge",
    }
    assert all(i.full_instance for i in cat.select(clouds=["gcp"]))
    assert any(not i.full_instance for i in cat.select(clouds=["gcp"], full_only=False))
    assert [i.instance_type for i in cat.select(text="lambda h100 pcie")] == ["gpu_1x_h100_pcie"]


def test_user_rows_carry_their_line_numbers():
    (catalog.user_dir() / "grid.csv").write_text(
        'provider,region,ci_gco2e_per_kwh,ci_data_vintage\nhome,a,100,"two\nlines"\nhome,b,200,\n'
    )
    assert [(r["region"], r["_line"]) for r in catalog_user.user_rows("grid")] == [
        ("a", "2"),
        ("b", "4"),
    ]


def test_the_catalog_as_tables_for_a_table_model():
    cat = catalog.load()
    instances = cat.frame("instances")
    assert len(instances) == 158
    assert {"usd_per_hour", "price_date", "source", "full_instance", "flagged"} <= set(
        instances.columns
    )
    assert instances["flagged"].sum() == sum(i.flagged for i in cat.instances) > 0
    assert len(cat.frame("gpus")) == 67 and cat.frame("machines").empty
    with pytest.raises(ConfigError):
        cat.frame("prices")


def test_every_nvidia_gpu_has_its_compute_capability():
    cat = catalog.load()
    nvidia = [g for g in cat.gpus if g.vendor == "NVIDIA"]
    assert nvidia and all(g.compute_capability for g in nvidia)
    assert all(not g.compute_capability for g in cat.gpus if g.vendor != "NVIDIA")
    # NVIDIA's table, by chip
    expected = {
        "GeForce GTX 1080 Ti": "6.1",  # GP102
        "Tesla P100 PCIe 16GB": "6.0",  # GP100
        "Tesla V100 SXM2 16GB": "7.0",
        "TITAN V": "7.0",
        "Tesla T4": "7.5",
        "A100 SXM4 40GB": "8.0",
        "A10G": "8.6",
        "GeForce RTX 4090": "8.9",
        "H100 SXM5 80GB": "9.0",
        "B200": "10.0",
        "GeForce RTX 5090": "12.0",
        "Tesla K80 (per GPU, as exposed by clouds)": "3.7",
    }
    assert {name: cat.gpu(name).compute_capability for name in expected} == expected
    assert cat.gpu("GeForce GTX 1080 Ti").compute_capability_tuple == (6, 1)
    assert cat.gpu("GeForce RTX 5090").compute_capability_tuple == (12, 0)
    assert all(g.compute_capability_tuple for g in nvidia)


def test_compute_capability_tuple_is_none_when_blank_or_malformed():
    assert GpuSpec("x", compute_capability="8.6").compute_capability_tuple == (8, 6)
    assert GpuSpec("x", compute_capability=" 10.0 ").compute_capability_tuple == (10, 0)
    for text in ("", "six", "8", "8.x", "8.6.1"):
        assert GpuSpec("x", compute_capability=text).compute_capability_tuple is None


def test_a_user_gpu_row_may_leave_out_the_capability_but_not_garble_it():
    (catalog.user_dir() / "gpus.csv").write_text(
        "name,architecture,fp32_tflops\nGeForce RTX 3060,Ampere,12.74\n"
    )
    cat = catalog.load()
    assert not cat.problems and cat.gpu("GeForce RTX 3060").compute_capability == ""
    (catalog.user_dir() / "gpus.csv").write_text(
        "name,compute_capability,fp32_tflops\nGeForce RTX 3060,8.6,12.74\nRTX 3050,six,9.1\n"
    )
    cat = catalog.load()
    assert cat.gpu("GeForce RTX 3060").compute_capability == "8.6"
    assert cat.gpu("RTX 3050") is None
    (problem,) = [str(p).split("/")[-1] for p in cat.problems]
    assert problem.startswith("gpus.csv, line 3: compute_capability: 'six': give CUDA's")
