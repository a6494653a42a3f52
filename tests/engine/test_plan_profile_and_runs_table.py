"""plan --profile plans on the profile's own hardware: an owned RTX 4090's $1,600 priced an
H100 when --gpu named one; the mismatch is refused and the price lines name the profile. And
--runs-table read as a user's file: a folder was a raw errno, a FIFO hung."""

from __future__ import annotations

import json
import os

import pytest

from engine.cli import main

PLAN = ["plan", "--params", "1e9", "--tokens", "1e9", "--mfu", "0.3"]
O1 = ["--owned-gpu", "RTX 4090", "--purchase-usd", "1600", "--usd-per-kwh", "0.3"]


def _err(capsys, argv: list[str]) -> str:
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err, err
    return err


@pytest.fixture
def o1(capsys) -> str:
    assert main(["profile", "add", "o1", *O1]) == 0
    capsys.readouterr()
    return "o1"


@pytest.mark.parametrize(
    ("chosen", "words"),
    [
        (["--gpu", "H100 SXM5 80GB"], "not H100 SXM5 80GB (--gpu): leave out --gpu"),
        (["--compare"], "not every GPU (--compare)"),
        (["--gpu", "all"], "not every GPU (--gpu all)"),
        (["--instance", "p3.2xlarge"], "not aws:p3.2xlarge (--instance)"),
    ],
    ids=["gpu", "compare", "gpu-all", "instance"],
)
def test_an_owned_profile_refuses_other_hardware(capsys, o1, chosen, words):
    err = _err(capsys, [*PLAN, *chosen, "--profile", o1])
    assert "--profile: 'o1' is the owned GeForce RTX 4090: its figures price that GPU" in err
    assert words in err


def test_an_owned_profile_plans_on_its_gpu_and_the_line_names_it(capsys, o1):
    for chosen in ([], ["--gpu", "RTX 4090"]):  # its own GPU, given or not
        assert main([*PLAN, *chosen, "--profile", o1]) == 0
        out = capsys.readouterr().out
        owned = next(line for line in out.splitlines() if line.startswith("owned"))
        assert "profile o1: owned: 1 x $1,600" in owned, out
        assert "GeForce RTX 4090" in out
    assert main([*PLAN, "--profile", o1, "--json"]) == 0
    assert "profile o1: owned" in capsys.readouterr().out


def test_a_rented_profile_refuses_another_instance(capsys):
    assert main(["profile", "add", "p3", "--instance", "aws:p3.2xlarge"]) == 0
    capsys.readouterr()
    err = _err(capsys, [*PLAN, "--gpu", "H100 SXM5 80GB", "--profile", "p3"])
    assert "'p3' is the rented aws:p3.2xlarge, not H100 SXM5 80GB (--gpu)" in err
    assert main([*PLAN, "--instance", "p3.2xlarge", "--profile", "p3"]) == 0
    assert "p3.2xlarge" in capsys.readouterr().out


def test_a_rented_profiles_price_lines_name_it(capsys):
    assert main(["profile", "add", "p3", "--instance", "aws:p3.2xlarge"]) == 0
    capsys.readouterr()
    assert main([*PLAN, "--profile", "p3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    demand = next(line for line in lines if line.startswith("on-demand"))
    spot = next(line for line in lines if line.startswith("spot"))
    assert "profile p3: on-demand: 1 x aws p3.2xlarge" in demand
    assert "profile p3: spot: 1 x aws p3.2xlarge" in spot


def test_a_folder_as_runs_table_is_a_message(capsys, tmp_path):
    err = _err(capsys, [*PLAN, "--gpu", "V100", "--runs-table", str(tmp_path)])
    assert f"--runs-table: {tmp_path} is a folder: give a CSV file" in err
    assert "Errno" not in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_fifo_as_runs_table_is_refused_without_waiting(capsys, tmp_path):
    fifo = tmp_path / "runs.csv"
    os.mkfifo(fifo)
    err = _err(capsys, [*PLAN, "--gpu", "V100", "--runs-table", str(fifo)])
    assert f"--runs-table: {fifo} is a FIFO (a named pipe)" in err


def test_a_runs_table_file_is_still_read(capsys, tmp_path):
    table = tmp_path / "runs.csv"
    table.write_bytes(b"\xef\xbb\xbflabel,runs,relative_size\ntuning,10,0.5\n")  # a BOM too
    assert main([*PLAN, "--gpu", "V100", "--runs-table", str(table), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs_multiplier"] == 5.0  # 10 runs x 0.5
