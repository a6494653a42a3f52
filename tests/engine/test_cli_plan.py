"""epochcost plan: JSON figures, a measured MFU from a stored result, the comparison across
hardware, and exit code 2 with the option named for each mistake."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.measure import utilisation
from engine.pricing import catalog
from engine.results.store import Store
from tests.engine.price_results import result as gpu_result

EXAMPLE = ["plan", "--params", "110e6", "--tokens", "3.3e9", "--gpu", "Tesla V100 SXM2 16GB"]


def run_json(capsys, *args: str) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_issues_example_gives_every_figure(capsys):
    data = run_json(capsys, *EXAMPLE, "--count", "8", "--mfu", "0.35", "--grid-region", "us-east-1")
    for key in (
        "flops",
        "gpu_hours",
        "wall_hours",
        "usd_ondemand",
        "usd_spot",
        "kwh",
        "kg_co2",
        "usd_fully_loaded",
    ):
        assert isinstance(data[key], float), key
    # 6 x 110e6 x 3.3e9 = 2.178e18 FLOPs on 8 x 125 TFLOP/s at 35%: 6222.857 s
    assert data["flops"] == pytest.approx(2.178e18)
    assert data["wall_hours"] == pytest.approx(6222.857 / 3600, rel=1e-6)
    assert data["gpu_hours"] == pytest.approx(8 * data["wall_hours"])
    assert data["kwh"] == pytest.approx(8 * 300 * 6222.857 / 3.6e6, rel=1e-6)  # TDP 300 W
    assert data["usd_fully_loaded"] == pytest.approx(20 * data["usd_ondemand"])  # sharir-2020
    assumptions = data["assumptions"]
    assert assumptions["mfu"].startswith("assumed") and assumptions["mfu_measured"] is False
    assert assumptions["runs_table"] == "sharir-2020"
    assert assumptions["grid"].startswith("aws:us-east-1")


def test_runs_and_a_named_instance(capsys):
    data = run_json(
        capsys, *EXAMPLE[:5], "--instance", "p3.16xlarge", "--mfu", "0.35", "--runs", "5"
    )
    assert data["count"] == 8 and data["label"] == "aws p3.16xlarge"
    assert data["usd_per_hour"] == pytest.approx(24.48)
    assert data["usd_fully_loaded"] == pytest.approx(5 * data["usd_ondemand"])


def _stored_gpu_result(**kw) -> str:
    """A V100 fp16 result as an imported file would hold it: 1e10 FLOPs per sample at 4375
    samples/s = 43.75 TFLOP/s, MFU 0.35 against the V100's 125; 240 W measured (80% of TDP)."""
    data = gpu_result(device_name="Tesla V100-SXM2-16GB", precision="fp16", samples_per_s=4375.0)
    data["environment"]["framework"] = "torch"
    flops = {"per_step": 6.4e11, "per_sample": 1e10, "achieved_tflops": 43.75, "method": "x"}
    data["flops"] = utilisation.with_mfu(flops, data["environment"], "fp16", catalog.load())
    data["energy"]["mean_power_w"] = 240.0
    data.update(kw)
    return Store().add(data).run_id


def test_measured_mfu_and_power_from_a_stored_result(capsys):
    run_id = _stored_gpu_result()
    data = run_json(
        capsys, "plan", "--preset", "bert-base", "--gpu", "A100 SXM4 40GB", "--from-result", run_id
    )
    assert data["mfu"] == pytest.approx(0.35)
    assert data["assumptions"]["mfu_measured"] is True
    assert "on Tesla V100 SXM2 16GB" in data["assumptions"]["mfu"]
    assert data["assumptions"]["power"].startswith("measured 240 W on Tesla V100 SXM2 16GB = 80%")
    assert any("measured on Tesla V100 SXM2 16GB, applied to A100" in n for n in data["notes"])
    # 80% of the A100's 400 W TDP for the run's wall time
    assert data["kwh"] == pytest.approx(0.8 * 400 * data["wall_hours"] / 1000)


def test_flops_per_sample_from_a_stored_result(capsys):
    run_id = _stored_gpu_result()
    data = run_json(
        capsys,
        "plan",
        "--samples",
        "1e6",
        "--epochs",
        "90",
        "--from-result",
        run_id,
        "--gpu",
        "Tesla V100 SXM2 16GB",
    )
    assert data["flops"] == pytest.approx(1e10 * 1e6 * 90)
    assert data["notes"] == []  # same GPU, same precision, one GPU: nothing carried over


def test_compare_gives_one_row_per_gpu(capsys):
    data = run_json(capsys, "plan", "--preset", "llama2-7b", "--compare", "--mfu", "0.4")
    gpus = [row["gpu"] for row in data["rows"]]
    assert len(gpus) == len(set(gpus)) > 5
    priced = [row["usd_ondemand"] for row in data["rows"] if row["usd_ondemand"] is not None]
    assert priced == sorted(priced)
    assert any(o["gpu"] == "GeForce GTX 1080 Ti" for o in data["left_out"])  # no FP16 peak
    assert main(["plan", "--preset", "llama2-7b", "--gpu", "all", "--mfu", "0.4"]) == 0
    text = capsys.readouterr().out
    assert "left out, no fp16 peak in the catalog" in text


def test_text_shows_the_published_run_and_its_sources(capsys):
    args = ["plan", "--preset", "llama2-7b", "--gpu", "A100 SXM4 80GB", "--count", "8"]
    assert main([*args, "--mfu", "0.4"]) == 0
    text = capsys.readouterr().out
    assert "184,320 GPU-hours on A100 SXM4 80GB: MFU 43.7% by this FLOP count" in text
    assert "Touvron et al. 2023" in text and "Sharir" in text


def test_list_presets(capsys):
    assert main(["plan", "--list-presets"]) == 0
    assert "t5-11b" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "option", "words"),
    [
        (EXAMPLE, "--mfu", "--from-result ID"),
        (["plan", "--gpu", "V100", "--mfu", "0.3"], "--params", "--preset NAME"),
        (["plan", "--preset", "gpt-5", "--gpu", "V100", "--mfu", ".3"], "--preset", "bert-base"),
        (["plan", "--preset", "gpt2-1.5b", "--gpu", "V100", "--mfu", ".3"], "--tokens", "no pub"),
        ([*EXAMPLE[:5], "--gpu", "Quantum 9000", "--mfu", ".3"], "--gpu", "no GPU matches"),
        ([*EXAMPLE, "--mfu", ".3", "--precision", "bf16"], "--precision", "has no bf16"),
        ([*EXAMPLE, "--mfu", ".3", "--runs", "3", "--runs-table", "x"], "--runs", "not both"),
        ([*EXAMPLE, "--mfu", ".3", "--runs-table", "nope"], "--runs-table", "neither"),
        ([*EXAMPLE[:5], "--instance", "p9.huge", "--mfu", ".3"], "--instance", "no instance"),
        ([*EXAMPLE, "--mfu", ".3", "--grid-region", "mars-1"], "--grid-region", "not in the grid"),
        ([*EXAMPLE, "--mfu", ".3", "--owned"], "--usd-per-kwh", "tariff"),
        ([*EXAMPLE[:5], "--mfu", ".3"], "--gpu", "--compare"),
        ([*EXAMPLE, "--from-result", "nosuchrun"], "", "nosuchrun"),
    ],
)
def test_mistakes_exit_2_naming_the_option(capsys, argv, option, words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"epochcost: error: {option}"), err
    assert words in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("extra", "option", "words"),
    [
        (["--mfu", "35"], "--mfu", "give a fraction from 0.001 to 1 (0.35 for 35%)"),
        (["--mfu", ".3", "--count", "0"], "--count", "give a whole number from 1 to 1,000,000"),
    ],
)
def test_a_number_out_of_its_range_exits_2_as_it_is_read(capsys, extra, option, words):
    """Ranges are checked as the options are read (engine/cli/numbers.py; more in
    test_cli_numbers.py): argparse names the option and the range."""
    with pytest.raises(SystemExit) as info:
        main([*EXAMPLE, *extra])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument {option}: " in err and words in err and "Traceback" not in err


def test_a_result_without_mfu_is_refused(capsys):
    cpu = gpu_result(device="cpu", device_name=None, run_id="20250101T000000-cpu00001")
    cpu["flops"] = utilisation.with_mfu(
        {"per_step": 1e9, "per_sample": 1e7, "achieved_tflops": 0.01, "method": "x"},
        cpu["environment"],
        "fp32",
        catalog.load(),
    )
    run_id = Store().add(cpu).run_id
    assert main([*EXAMPLE, "--from-result", run_id]) == 2
    err = capsys.readouterr().err
    assert "--from-result: " in err and "has no measured MFU (peak unknown: " in err
