"""epochcost profile add|list|show|remove, --profile on the pricing commands, and re-pricing a
stored result with `results show ID --price-per-hour USD | --profile NAME`."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.pricing import catalog
from engine.pricing.cost import OwnedHardware
from engine.results.store import Store
from tests.engine.helpers import TINY_ARGS, cli_here
from tests.engine.price_results import result

BOX = [
    "profile",
    "add",
    "box",
    "--owned-gpu",
    "GTX 1080 Ti",
    "--purchase-usd",
    "699",
    "--usd-per-kwh",
    "0.30",
    "--price-date",
    "2026-11-20",
]


def run_json(capsys, *args: str) -> object:
    code = main(list(args))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_a_real_run_priced_again_at_3_06_and_by_a_profile(capsys):
    quote = ["--price-per-hour", "0.9", "--price-source", "quote X", "--price-date", "2026-11-01"]
    assert main(["profile", "add", "ninety", *quote]) == 0
    capsys.readouterr()
    proc = cli_here("run", *TINY_ARGS, "--profile", "ninety", "--json")
    assert proc.returncode == 0, proc.stderr
    run_id = json.loads(proc.stdout)["run_id"]
    price = {"usd_per_hour": 0.9, "source": "profile ninety: quote X", "as_of": "2026-11-01"}
    assert json.loads(proc.stdout)["price"] == price  # run --profile: the profile's, named
    shown = run_json(capsys, "results", "show", run_id, "--price-per-hour", "3.06", "--json")
    assert shown["usd_per_epoch"] == pytest.approx(shown["epoch_seconds"] * 3.06 / 3600, rel=1e-12)
    assert shown["price"]["usd_per_hour"] == 3.06
    assert shown["price"]["source"] == "user" and shown["price"]["as_of"]
    assert shown["stored_price"]["usd_per_hour"] == 0.9
    stored = Store(readonly=True).get(run_id)
    assert stored["price"]["usd_per_hour"] == 0.9  # nothing stored changed

    assert main(BOX) == 0
    spec = catalog.load().gpu("GTX 1080 Ti")
    assert spec is not None
    hourly = OwnedHardware(purchase_usd=699, usd_per_kwh=0.3, power_w=spec.tdp_w).usd_per_hour
    capsys.readouterr()
    shown = run_json(capsys, "results", "show", run_id, "--profile", "box", "--json")
    assert shown["usd_per_epoch"] == pytest.approx(shown["epoch_seconds"] * hourly / 3600)
    assert shown["price"]["as_of"] == "2026-11-20"
    assert shown["price"]["source"].startswith("profile box: owned GeForce GTX 1080 Ti: $699")
    # compare prices the measured machine as the owned profile: no tariff asked for
    rows = run_json(capsys, "compare", run_id, "--profile", "box", "--json")
    local = next(r for r in rows if r["local"])
    assert local["usd_per_hour"] == pytest.approx(hourly)
    assert "$699" in local["price_source"] and "$0.3/kWh" in local["price_source"]
    assert main(["results", "show", run_id, "--profile", "nope"]) == 2
    assert "no profile 'nope' (known: box, ninety)" in capsys.readouterr().err
    for command in (
        ["sweep", *TINY_ARGS[:2]],
        ["accuracy", "--model", "tiny-mlp", "--until-stable"],
    ):
        assert main([*command, "--profile", "nope"]) == 2
        assert "--profile: no profile 'nope' (known: box, ninety)" in capsys.readouterr().err
    assert main(["run", "--profile", "box", "--price-per-hour", "1"]) == 2
    assert "not both" in capsys.readouterr().err


def test_profiles_are_added_listed_shown_and_removed(capsys):
    assert main(BOX) == 0
    assert main(["profile", "add", "p3", "--instance", "p3.2xlarge"]) == 0
    assert "aws:p3.2xlarge" in capsys.readouterr().out  # kept as cloud:type
    listed = run_json(capsys, "profile", "list", "--json")
    assert [p["name"] for p in listed] == ["box", "p3"]
    shown = run_json(capsys, "profile", "show", "p3", "--json")
    assert (
        shown["price"]["usd_per_hour"]
        == catalog.load().select(["aws"], text="p3.2xlarge")[0].usd_per_hour
    )
    assert main(["profile", "add", "box", "--price-per-hour", "1"]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["profile", "add", "x", "--price-per-hour", "1", "--owned-gpu", "V100"]) == 2
    gpu = "Tesla V100 SXM2 16GB"
    assert main(["profile", "add", "x", "--owned-gpu", gpu, "--purchase-usd", "9"]) == 2
    assert "--usd-per-kwh" in capsys.readouterr().err
    assert main(["profile", "remove", "p3"]) == 0
    assert main(["profile", "remove", "p3"]) == 2
    assert "no profile 'p3' (known: box)" in capsys.readouterr().err


def test_plan_and_compare_take_the_profile(capsys, epochcost_home):
    assert main(BOX) == 0
    capsys.readouterr()
    plan = run_json(
        capsys,
        "plan",
        "--params",
        "1.5e8",
        "--tokens",
        "3e9",
        "--mfu",
        "0.35",
        "--precision",
        "fp32",
        "--profile",
        "box",
        "--json",
    )
    text = json.dumps(plan)
    assert "GTX 1080 Ti" in text and "699" in text
    assert "give --usd-per-kwh" not in text and "owning not priced" not in text
    path = epochcost_home / "gpu.json"
    path.write_text(json.dumps(result(usd_per_hour=0.9)))
    assert main(["profile", "add", "quote", "--price-per-hour", "2.5"]) == 0
    capsys.readouterr()
    rows = run_json(capsys, "compare", str(path), "--profile", "quote", "--json")
    assert next(r for r in rows if r["local"])["usd_per_hour"] == 2.5


def test_a_damaged_profiles_file_is_one_line_and_kept(capsys, epochcost_home):
    epochcost_home.mkdir(parents=True, exist_ok=True)
    (epochcost_home / "profiles.json").write_text("not json")
    assert main(["profile", "list"]) == 3
    err = capsys.readouterr().err
    assert "profiles.json: is not valid JSON" in err and len(err.strip().splitlines()) == 1
    assert main(BOX) == 3
    assert (epochcost_home / "profiles.json").read_text() == "not json"
