"""Issue 38: one owned price and break-even with its range. owning.owned_setup prices every
figure of an owned set-up (the rest of the system included) for profiles, Plan, `compare --buy`
and `compare --owned`; a profile keeps its rest-of-system watts and an older profiles.json
without them still reads; break-even days come with their range from both throughputs'."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.core.errors import ConfigError
from engine.pricing import breakeven, catalog, owning, profile_store
from engine.pricing.compare import CompareOptions, compare
from engine.pricing.profiles import OWNED, Profile
from engine.results.store import Store
from tests.engine.price_results import result

CAT = catalog.load()
GPU = "GeForce GTX 1080 Ti"
# The owned GTX 1080 Ti: $699, 250 W, 100 W rest of system, $0.30/kWh.
SETUP = {"purchase_usd": 699.0, "usd_per_kwh": 0.3, "power_w": 250.0, "rest_of_system_w": 100.0}
USD_PER_HOUR = 699 / (3 * 365 * 24) + (250 + 100) / 0.9 / 1000 * 0.3  # $0.14326/h


def test_an_owned_setup_is_priced_with_every_figure():
    assert owning.usd_per_hour(**SETUP) == pytest.approx(USD_PER_HOUR)
    assert round(owning.usd_per_hour(**SETUP), 5) == 0.14326
    assert owning.owned_setup(**SETUP).rest_of_system_w == 100.0
    with pytest.raises(ConfigError) as caught:
        owning.owned_setup(usd_per_kwh=0.3)
    assert caught.value.field == "purchase_usd"
    with pytest.raises(ConfigError) as caught:
        owning.owned_setup(**{**SETUP, "psu_efficiency": 1.5})
    assert caught.value.field == "psu_efficiency"


def test_the_panels_figures_carry_whole_to_the_results_gpu_and_not_its_price_to_another():
    owned = owning.owned_setup(**SETUP, hours_per_day=8.0, psu_efficiency=0.8)
    mine = owning.carried(owned, GPU, result(), CAT)
    assert mine == owning.figures_of(owned)  # rest of system and PSU included
    other = owning.carried(owned, "GeForce RTX 4090", result(), CAT)
    assert "purchase_usd" not in other and "power_w" not in other
    assert other["rest_of_system_w"] == 100.0 and other["psu_efficiency"] == 0.8


def test_a_profile_keeps_the_rest_of_the_system_and_an_old_file_still_reads(epochcost_home):
    profile = Profile(
        "home", OWNED, gpu=GPU, purchase_usd=699.0, usd_per_kwh=0.3, watts=250.0,
        rest_of_system_w=100.0,
    )  # fmt: skip
    profile_store.save(profile.validated())
    back = profile_store.get("home")
    assert back.rest_of_system_w == 100.0
    assert back.price(CAT).usd_per_hour == pytest.approx(USD_PER_HOUR)
    assert "100 W rest of system" in back.describe()
    old = {k: v for k, v in back.to_dict().items() if k != "rest_of_system_w"}
    profile_store.path().write_text(json.dumps({"schema": 1, "profiles": [old]}))
    assert profile_store.get("home").rest_of_system_w == 0.0
    with pytest.raises(ConfigError) as caught:
        Profile("r", usd_per_hour=1.0, rest_of_system_w=50.0).validated()
    assert caught.value.field == "rest_of_system_w"


def test_break_even_days_come_with_their_range():
    owned = owning.owned_setup(**SETUP)
    r = breakeven.days_range(owned, 3.06, (1000.0, 900.0, 1100.0), (1500.0, 1200.0, 1800.0))
    assert r.low < r.days < r.high
    assert r.days == breakeven.against(owned, 3.06, 1000 / 1500).days
    assert r.low == breakeven.against(owned, 3.06, 1100 / 1200).days  # fastest here, slowest there
    assert r.high == breakeven.against(owned, 3.06, 900 / 1800).days
    assert breakeven.days_text(r) == f"{r.days:,.0f} ({r.low:,.0f}–{r.high:,.0f})"
    flat = breakeven.days_range(owned, 3.06, (1000.0, None, None), (1500.0, None, None))
    assert breakeven.days_text(flat) == f"{flat.days:,.0f}"
    never = breakeven.days_range(owned, 0.01, (1000.0, None, None), (1500.0, None, None))
    assert breakeven.days_text(never) == "never" and breakeven.days_text(None) == ""


def test_compare_rows_carry_the_range_and_a_buy_row_prices_its_rest_of_system():
    owned = owning.owned_setup(**SETUP)
    c = compare(result(), CAT, CompareOptions(clouds=("aws",), owned=owned))
    local = next(r for r in c.rows if r.local)
    assert local.usd_per_hour == pytest.approx(USD_PER_HOUR)
    ranged = [r for r in c.rows if not r.local and r.break_even_days is not None]
    assert ranged and all(r.break_even_text for r in ranged)
    for r in ranged:
        assert r.break_even_days_low <= r.break_even_days
        assert r.break_even_days_high is None or r.break_even_days <= r.break_even_days_high


def test_the_cli_says_the_break_even_range_and_buys_with_the_rest_of_the_system(capsys):
    stored = result(run_id="20260101T000000-owned381")
    Store().add(stored)
    base = ["compare", stored["run_id"], "--cloud", "aws", "--usd-per-kwh", "0.3"]
    assert main([*base, "--buy", "GeForce RTX 4090", "--rest-of-system-w", "100", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    buy = next(r for r in rows if r["cloud"] == "buy")
    spec = CAT.gpu("GeForce RTX 4090")
    expected = owning.usd_per_hour(
        purchase_usd=spec.launch_price_usd, usd_per_kwh=0.3, power_w=spec.tdp_w,
        rest_of_system_w=100.0,
    )  # fmt: skip
    assert buy["usd_per_hour"] == pytest.approx(expected)
    assert "(" in buy["break_even_text"]
    assert main([*base, "--owned", "--power-w", "250", "--rest-of-system-w", "100"]) == 0
    out = capsys.readouterr().out
    assert "break-even days" in out and "total $0.1433/h" in out
    p3 = next(line for line in out.splitlines() if " p3.2xlarge " in line)
    assert "–" in p3  # its days with their range


def test_plan_prices_owning_with_the_rest_of_the_system(capsys):
    plan = ["plan", "--params", "110e6", "--tokens", "3.3e9", "--gpu", GPU, "--mfu", ".3", "--json"]
    owned = [*plan, "--owned", "--usd-per-kwh", "0.3", "--purchase-usd", "699"]
    assert main(owned) == 0
    without = json.loads(capsys.readouterr().out)
    assert main([*owned, "--rest-of-system-w", "100"]) == 0
    withrest = json.loads(capsys.readouterr().out)
    assert withrest["usd_owned"] > without["usd_owned"]
    assert "100 W rest of system" in withrest["assumptions"]["owned"]
