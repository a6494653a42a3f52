"""Comparing a measured epoch across catalog instances and the machine it ran on."""

from __future__ import annotations

import pytest

from engine.pricing import catalog, cost
from engine.pricing.breakeven import break_even_against
from engine.pricing.compare import (
    CompareOptions,
    MeasuredRun,
    compare,
    throughput_to_beat,
)
from engine.pricing.compare_rows import measured_elsewhere
from engine.results.store import Store
from tests.engine.helpers import COMPARE_JSON_KEYS
from tests.engine.price_results import result

CAT = catalog.load()


def _row(comparison, instance_type):
    return next(r for r in comparison.rows if r.instance_type == instance_type)


def test_an_estimated_row_is_priced_from_its_projected_epoch():
    # 1000 samples/s on a GTX 1080 Ti -> V100 SXM2 estimate 1738.00 samples/s, the weighted
    # mean of the published conv-model ratios (tests/engine/test_projection.py works it out).
    # resnet50-cifar epoch 50,000 images: 50,000 / 1738.00 = 28.7687 s.
    # p3.2xlarge $3.06/h: 28.7687 / 3600 x 3.06 = $0.0244534; spot $0.3707: $0.00296238;
    # with 10% re-run: x1.1. 90 epochs + 5 start-up minutes on demand:
    # (90 x 28.7687 + 300) s / 3600 x 3.06 = $2.45580
    options = CompareOptions(epochs=90, startup_minutes=5, rerun_fraction=0.1)
    c = compare(result(samples_per_s=1000.0), CAT, options)
    p3 = _row(c, "p3.2xlarge")
    assert p3.status == "estimated" and p3.estimated
    assert p3.throughput_samples_per_s == pytest.approx(1738.00, rel=1e-5)
    assert p3.epoch_seconds == pytest.approx(28.7687, rel=1e-5)
    assert p3.usd_per_epoch == pytest.approx(0.0244534, rel=1e-5)
    assert p3.usd_per_epoch_spot == pytest.approx(0.00296238 * 1.1, rel=1e-5)
    assert p3.usd_per_run == pytest.approx(2.45580, rel=1e-5)
    assert "published convolutional models" in p3.basis
    # the $ range follows the throughput range: cheapest at the fastest end
    assert p3.usd_per_epoch_low == pytest.approx(
        50_000 / p3.throughput_high / 3600 * 3.06, rel=1e-9
    )
    assert p3.usd_per_epoch_high == pytest.approx(
        50_000 / p3.throughput_low / 3600 * 3.06, rel=1e-9
    )
    assert p3.throughput_low < 1738.00 < p3.throughput_high
    # energy: V100 TDP 300 W x 28.7687 s = 0.00239739 kWh; us-east-1 367.8 g/kWh
    assert p3.kwh_per_epoch == pytest.approx(0.00239739, rel=1e-5)
    assert p3.co2_kg_per_epoch == pytest.approx(0.00239739 * 0.3678, rel=1e-5)
    assert "skypilot" in p3.price_source and p3.price_date.startswith("undated; inferred")


def test_rows_are_sorted_by_cost_per_epoch_with_the_local_machine_among_them():
    owned = cost.OwnedHardware(699, usd_per_kwh=0.15, power_w=250, rest_of_system_w=100)
    c = compare(result(), CAT, CompareOptions(owned=owned))
    priced = [r.usd_per_epoch for r in c.rows if r.usd_per_epoch is not None]
    assert priced == sorted(priced) and len(priced) == len(c.rows)
    local = [r for r in c.rows if r.local]
    assert len(local) == 1 and local[0].cloud == "local" and local[0].instance_type == "homebox"
    # owned: $0.0849315/h (see test_cost) for a 50 s epoch (50,000 at 1000/s) = $0.00117960
    assert local[0].usd_per_epoch == pytest.approx(0.00117960, rel=1e-5)
    assert set(c.to_frame().columns) >= COMPARE_JSON_KEYS
    # only whole machines of at most one GPU, and no historical prices, unless asked
    assert all(r.gpu_count <= 1 for r in c.rows)
    assert not any(r.historical for r in c.rows)
    assert ("gcp accelerator:T4x1 (attach to n1-*)", "price is gpu_only (not a whole machine)") in (
        c.left_out
    )


def test_break_even_days_against_each_instance_count_electricity():
    # owned wall power (250 + 100) / 0.9 = 388.889 W; p3.2xlarge estimated 1.73800x faster, so
    # speedup = 1000 / 1738.00 = 0.575374; rented per day 24 x 0.575374 x 3.06 = $42.2554;
    # electricity per day 24 x 0.388889 x 0.15 = $1.4; days = 699 / 40.8554 = 17.1091
    owned = cost.OwnedHardware(699, usd_per_kwh=0.15, power_w=250, rest_of_system_w=100)
    c = compare(result(), CAT, CompareOptions(owned=owned))
    assert _row(c, "p3.2xlarge").break_even_days == pytest.approx(17.1091, rel=1e-4)
    # the chart's series is the same break-even: owning and renting cost the same on that day
    p3 = _row(c, "p3.2xlarge")
    be = break_even_against(CompareOptions(owned=owned), 1000.0, p3.throughput_samples_per_s, 3.06)
    owned_usd, rented_usd = be.cumulative(17.1091)
    assert owned_usd == pytest.approx(rented_usd, rel=1e-4)


def test_a_result_measured_on_the_target_gpu_replaces_the_estimate():
    runs = [MeasuredRun("20250102T000000-v100", "Tesla V100-SXM2-16GB", 1700.0)]
    c = compare(result(), CAT, CompareOptions(), runs)
    for name in ("p3.2xlarge", "Standard_NC6s_v3", "n1-standard-8 + 1xV100"):
        row = _row(c, name)
        assert row.status == "measured" and not row.estimated
        assert row.throughput_samples_per_s == row.throughput_low == row.throughput_high == 1700.0
        assert "20250102T000000-v100" in row.basis
    # instances of the measured GPU itself carry the measurement: none for a 1080 Ti, but a T4 run
    t4 = compare(result(device_name="Tesla T4", samples_per_s=700.0), CAT)
    assert _row(t4, "g4dn.xlarge").status == "measured"
    assert _row(t4, "g4dn.xlarge").throughput_samples_per_s == 700.0


def test_a_measurement_on_the_target_brings_its_own_interval_to_the_row():
    # V100 run: 1700 samples/s, 95% interval 1650-1760; p3.2xlarge $3.06/h, epoch 50,000:
    # $/epoch 50,000 / 1760 / 3600 x 3.06 = $0.0241477 to 50,000 / 1650 / 3600 x 3.06 = $0.0257576
    store = Store()
    v100 = result(run_id="20250103T000000-v100", device_name="Tesla V100-SXM2-16GB")
    v100.update(throughput_samples_per_s=1700.0, throughput_ci95=[1650.0, 1760.0])
    store.add(v100)
    mine = result()
    (run,) = measured_elsewhere(store.list(), mine)
    assert (run.samples_per_s, run.low, run.high) == (1700.0, 1650.0, 1760.0)
    p3 = _row(compare(mine, CAT, CompareOptions(), [run]), "p3.2xlarge")
    assert p3.status == "measured" and (p3.throughput_low, p3.throughput_high) == (1650, 1760)
    assert p3.usd_per_epoch_low == pytest.approx(0.0241477, rel=1e-5)
    assert p3.usd_per_epoch_high == pytest.approx(0.0257576, rel=1e-5)


def test_multi_gpu_and_partial_gpu_instances_say_what_they_assume():
    c = compare(result(), CAT, CompareOptions(max_gpus=None))
    one, four = _row(c, "p3.2xlarge"), _row(c, "p3.8xlarge")
    assert four.throughput_samples_per_s == pytest.approx(4 * one.throughput_samples_per_s)
    assert "perfect data-parallel scaling assumed" in four.basis
    quarter = _row(c, "g6f.2xlarge")
    assert "0.25 of a GPU" in quarter.basis and "fractional" in quarter.notes


def test_a_batch_too_big_for_a_gpu_is_flagged_and_sorted_last():
    c = compare(result(peak_memory_bytes=20 * 2**30), CAT)
    t4 = _row(c, "g4dn.xlarge")
    assert t4.status == "does_not_fit" and t4.fits is False and t4.usd_per_epoch is None
    assert t4.memory_needed_bytes == 20 * 2**30 and t4.memory_available_bytes == 16 * 2**30
    a100 = _row(c, "a2-ultragpu-1g")  # 80 GB: fits
    assert a100.status == "estimated" and a100.fits is True
    statuses = [r.status for r in c.rows]
    assert statuses.index("does_not_fit") > max(
        i for i, s in enumerate(statuses) if s != "does_not_fit"
    )


def test_a_cpu_result_is_not_scaled_to_gpus():
    cpu = result(device="cpu", device_name=None, samples_per_s=75.0, usd_per_hour=0.9)
    c = compare(cpu, CAT, CompareOptions(historical=True))
    assert [r.cloud for r in c.rows] == ["local"]
    assert "cannot be scaled to a GPU" in c.notes[0]
    reasons = dict(c.left_out)
    assert reasons["aws p3.2xlarge"] == "a CPU result cannot be scaled to a GPU by spec ratios"
    assert reasons["aws c4.8xlarge (historical)"].startswith("CPU-only machine: a CPU result")
    # a GPU result of the same workload in the store gives those instances measured rows
    runs = [MeasuredRun("r-t4", "Tesla T4", 700.0)]
    c = compare(cpu, CAT, CompareOptions(), runs)
    assert {r.instance_type for r in c.rows if r.status == "measured" and not r.local} >= {
        "g4dn.xlarge",
        "Standard_NC4as_T4_v3",
    }
    assert all(r.status == "measured" for r in c.rows)
    # what the cheapest GPU instances would have to reach: 50,000 samples at $0.9/h over the
    # local $/epoch (50,000 / 75 s x 0.9 / 3600 = $0.166667); g4dn.xlarge $0.526/h needs 43.83/s
    local = c.rows[[r.local for r in c.rows].index(True)]
    beat = dict(
        (i.instance_type, need)
        for i, need in throughput_to_beat(CAT, CompareOptions(), 50_000, local.usd_per_epoch)
    )
    assert len(beat) == 5 and beat["g4dn.xlarge"] == pytest.approx(43.8333, rel=1e-4)


def test_a_gpu_missing_from_the_catalog_gets_no_estimates_but_its_own_row():
    c = compare(result(device_name="NVIDIA GeForce RTX 3060"), CAT)
    assert [r.cloud for r in c.rows] == ["local"]
    assert "not in the GPU catalog" in c.notes[0]


def test_stored_results_of_the_same_workload_on_other_devices_are_found():
    store = Store()
    mine = result()
    store.add(mine)
    store.add(result(run_id="20250103T000000-v100", device_name="Tesla V100-SXM2-16GB"))
    store.add(result(run_id="20250104T000000-other", device_name="Tesla T4", batch_size=128))
    store.add(result(run_id="20250105T000000-fp16", device_name="Tesla T4", precision="fp16"))
    found = measured_elsewhere(store.list(), mine)
    assert [(r.run_id, r.device_name) for r in found] == [
        ("20250103T000000-v100", "Tesla V100-SXM2-16GB")
    ]


def test_sorting_by_spot_puts_instances_without_a_spot_market_last():
    c = compare(result(), CAT, CompareOptions(spot=True))
    spot = [r.usd_per_epoch_spot for r in c.rows]
    priced = [s for s in spot if s is not None]
    assert priced == sorted(priced) and len(priced) > 10
    assert spot[: len(priced)] == priced  # the rest (Lambda, Paperspace, local) come after
    lambda_rows = [r for r in c.rows if r.cloud == "lambda"]
    assert lambda_rows and all(r.usd_per_epoch_spot is None for r in lambda_rows)


def test_the_local_rows_energy_uses_the_measured_power_or_a_given_one():
    # 220 W measured for a 50 s epoch: 220 x 50 / 3.6e6 = 0.00305556 kWh (device only)
    local = next(r for r in compare(result(), CAT).rows if r.local)
    assert local.kwh_per_epoch == pytest.approx(0.00305556, rel=1e-5)
    assert "220 W, measured" in local.notes
    # a CPU with no power reading: none, unless given; 65 W x 50 s = 0.000902778 kWh,
    # on a 380 g/kWh grid: 0.000343056 kg
    cpu = result(device="cpu", device_name=None, mean_power_w=None)
    assert next(r for r in compare(cpu, CAT).rows if r.local).kwh_per_epoch is None
    given = CompareOptions(local_power_w=65, local_g_co2e_per_kwh=380)
    local = next(r for r in compare(cpu, CAT, given).rows if r.local)
    assert local.kwh_per_epoch == pytest.approx(0.000902778, rel=1e-5)
    assert local.co2_kg_per_epoch == pytest.approx(0.000343056, rel=1e-5)


def test_without_a_power_reading_a_gpu_is_taken_at_its_tdp():
    # GTX 1080 Ti TDP 250 W (catalog) for a 50 s epoch: 250 x 50 / 3.6e6 = 0.00347222 kWh
    local = next(r for r in compare(result(mean_power_w=None), CAT).rows if r.local)
    assert local.kwh_per_epoch == pytest.approx(0.00347222, rel=1e-5)
    assert "TDP of GeForce GTX 1080 Ti (catalog)" in local.notes


def test_a_cpu_energy_counter_gives_the_power_over_the_measured_windows():
    # RAPL: 1300 J over the 10 s measured window = 130 W; a 50 s epoch = 0.00180556 kWh
    cpu = result(device="cpu", device_name=None, mean_power_w=None)
    cpu["energy"].update(energy_j=1300.0, energy_method="counter")
    local = next(r for r in compare(cpu, CAT).rows if r.local)
    assert local.kwh_per_epoch == pytest.approx(0.00180556, rel=1e-5)
    assert "130 W, measured (energy counter)" in local.notes
