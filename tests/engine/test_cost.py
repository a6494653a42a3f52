import pytest

from engine.core.errors import ConfigError
from engine.pricing import cost


def test_cost_per_epoch_is_time_times_hourly_price():
    # 7 minutes on a $0.90/h machine: 420 s / 3600 s * 0.90 = $0.105
    assert cost.usd_per_epoch(420.0, 0.90) == pytest.approx(0.105)
    # p3.2xlarge at $3.06/h for a 90 s epoch: 0.025 h * 3.06 = $0.0765
    assert cost.usd_per_epoch(90.0, 3.06) == pytest.approx(0.0765)


def test_cost_of_a_run_scales_with_epochs():
    assert cost.usd_per_run(600.0, 1.20, epochs=90) == pytest.approx(18.0)


def test_epoch_seconds_from_throughput():
    # CIFAR-10: 50,000 images at 1,250 images/s = 40 s
    assert cost.epoch_seconds(50_000, 1_250.0) == pytest.approx(40.0)
    with pytest.raises(ValueError):
        cost.epoch_seconds(50_000, 0.0)


def test_negative_inputs_are_refused():
    with pytest.raises(ValueError):
        cost.usd_for_seconds(-1.0, 1.0)
    with pytest.raises(ValueError):
        cost.usd_per_run(1.0, 1.0, epochs=-2)


# --- the published studies' cost tables -------------------------------------------------------
# Kroutikov, "Cost of Machine Learning" (innodatalabs, AWS prices of Nov 2016): one epoch of the
# LSTM char-CNN language model. Time (s) and cost (cents) as the study prints them; the hourly
# prices are the shipped catalog's historical rows.
KROUTIKOV_EPOCH = [
    # instance, epoch seconds, cents in the study
    ("c4.8xlarge", 1404, 65),  # 1404 / 3600 * 1.675 = 0.6533 -> 65 cents
    ("g2.2xlarge", 3779, 68),  # 3779 / 3600 * 0.65 = 0.6823 -> 68 cents
    ("p2.xlarge", 428, 11),  # 428 / 3600 * 0.90 = 0.1070 -> 11 cents
]


def _historical_price(instance_type: str) -> float:
    from engine.pricing import catalog

    rows = catalog.load().select(text=instance_type, historical=True)
    assert len(rows) == 1 and rows[0].price_date == "2016-11"
    return rows[0].usd_per_hour


@pytest.mark.parametrize(("instance", "seconds", "cents"), KROUTIKOV_EPOCH)
def test_the_published_cost_per_epoch_table_is_reproduced(instance, seconds, cents):
    usd = cost.usd_per_epoch(seconds, _historical_price(instance))
    assert round(usd * 100) == cents


def test_cost_to_a_stabilisation_point_is_time_to_it_times_price():
    # The same study: the model needs 25 epochs to train fully (its stabilisation point).
    # p2.xlarge: 25 x 428 s = 10,700 s = 2.9722 h x $0.90 = $2.675
    assert cost.usd_to_target(25 * 428, 0.90) == pytest.approx(2.675)
    # c4.8xlarge: 25 x 1404 s = 35,100 s = 9.75 h x $1.675 = $16.33125
    assert cost.usd_to_target(25 * 1404, 1.675) == pytest.approx(16.33125)
    # g2.2xlarge: 25 x 3779 s = 94,475 s = 26.243 h x $0.65 = $17.0580
    assert cost.usd_to_target(25 * 3779, 0.65) == pytest.approx(17.05799, rel=1e-5)


# --- rented: spot overhead and billed start-up ------------------------------------------------


def test_spot_epoch_carries_the_rerun_overhead():
    # p3.2xlarge spot $0.3707/h, a 90 s epoch, 10% re-run: 99 s = 0.0275 h x 0.3707 = $0.01019425
    assert cost.rented_usd_per_epoch(90.0, 0.3707, rerun_fraction=0.1) == pytest.approx(0.01019425)
    assert cost.rented_usd_per_epoch(90.0, 3.06) == pytest.approx(0.0765)  # on demand, none


def test_a_run_bills_its_start_up_minutes_once():
    # 10 epochs of 600 s + 5 min start-up at $3.06/h: (6000 + 300) s = 1.75 h x 3.06 = $5.355
    assert cost.rented_usd_per_run(600.0, 3.06, epochs=10, startup_minutes=5) == pytest.approx(
        5.355
    )
    # spot at $0.90 with 20% re-run: (6000 x 1.2 + 300) s = 7500 s = 2.0833 h x 0.90 = $1.875
    assert cost.rented_usd_per_run(
        600.0, 0.90, epochs=10, startup_minutes=5, rerun_fraction=0.2
    ) == pytest.approx(1.875)


# --- owned: amortisation plus electricity -------------------------------------------------------


def test_owned_hour_is_amortisation_plus_electricity():
    # GTX 1080 Ti at its $699 launch price over 3 years of 24 h/day = 26,280 h -> $0.0265982/h.
    # 250 W (its TDP) + 100 W rest of system at 90% PSU = 388.89 W at the wall;
    # x $0.15/kWh = $0.0583333/h. Total $0.0849315/h.
    owned = cost.OwnedHardware(
        purchase_usd=699, usd_per_kwh=0.15, power_w=250, rest_of_system_w=100
    ).validated()
    assert owned.hours_of_use == pytest.approx(26_280)
    assert owned.amortisation_usd_per_hour == pytest.approx(0.0265982, rel=1e-5)
    assert owned.wall_power_w == pytest.approx(388.8889, rel=1e-6)
    assert owned.electricity_usd_per_hour == pytest.approx(0.0583333, rel=1e-6)
    assert owned.usd_per_hour == pytest.approx(0.0849315, rel=1e-5)
    # a 7-minute epoch on it: 420 s / 3600 x 0.0849315 = $0.0099087
    assert cost.usd_per_epoch(420, owned.usd_per_hour) == pytest.approx(0.0099087, rel=1e-4)


def test_used_8_hours_a_day_the_purchase_weighs_three_times_as_much_per_hour():
    # $699 / (3 x 365 x 8 h = 8,760 h) = $0.0797945/h
    owned = cost.OwnedHardware(699, usd_per_kwh=0.15, power_w=None, hours_per_day=8)
    assert owned.amortisation_usd_per_hour == pytest.approx(0.0797945, rel=1e-5)
    assert owned.electricity_usd_per_hour is None  # power unknown: not counted, not guessed
    assert owned.usd_per_hour == owned.amortisation_usd_per_hour


@pytest.mark.parametrize(
    ("field", "value"),
    [("lifetime_years", 0.0), ("hours_per_day", 25.0), ("psu_efficiency", 1.5), ("power_w", -1)],
)
def test_owned_hardware_refuses_impossible_values(field, value):
    values = dict(purchase_usd=699, usd_per_kwh=0.15, power_w=250.0)
    values[field] = value
    with pytest.raises(ConfigError) as info:
        cost.OwnedHardware(**values).validated()
    assert info.value.field == field


# --- energy and CO2 ----------------------------------------------------------------------------


def test_energy_and_co2_per_epoch():
    # 250 W for a 420 s epoch = 105,000 J = 0.0291667 kWh; on us-east-1's 367.8 g/kWh grid:
    # 0.0291667 x 367.8 = 10.7275 g = 0.0107275 kg CO2e
    kwh = cost.kwh_for_seconds(250, 420)
    assert kwh == pytest.approx(0.0291667, rel=1e-5)
    assert cost.co2_kg(kwh, 367.8) == pytest.approx(0.0107275, rel=1e-5)


# --- buy or rent -------------------------------------------------------------------------------


def test_break_even_days_with_electricity_counted():
    # A $699 GTX 1080 Ti against a $3.06/h p3.2xlarge that is 1.5x faster (speedup 2/3):
    # renting the same work: 24 h x 2/3 = 16 cloud hours a day x 3.06 = $48.96/day;
    # owning: 350 W at the wall x 24 h = 8.4 kWh x $0.15 = $1.26/day;
    # days = 699 / (48.96 - 1.26) = 14.6541
    b = cost.break_even(699, 3.06, speedup=2 / 3, power_w=350, usd_per_kwh=0.15)
    assert b.rented_usd_per_day == pytest.approx(48.96)
    assert b.owned_usd_per_day == pytest.approx(1.26)
    assert b.days == pytest.approx(14.6541, rel=1e-5)
    # at 8 h/day the daily figures are a third: 699 / (16.32 - 0.42) = 43.9623 days
    b8 = cost.break_even(699, 3.06, 2 / 3, hours_per_day=8, power_w=350, usd_per_kwh=0.15)
    assert b8.days == pytest.approx(43.9623, rel=1e-5)


def test_break_even_series_crosses_at_the_break_even_day():
    b = cost.break_even(699, 3.06, 2 / 3, power_w=350, usd_per_kwh=0.15)
    series = b.series()
    assert series[0] == {"day": 0.0, "owned_usd": 699.0, "rented_usd": 0.0}
    assert series[-1]["day"] == pytest.approx(2 * b.days)
    before = [p for p in series if p["day"] < b.days]
    after = [p for p in series if p["day"] > b.days]
    assert all(p["owned_usd"] > p["rented_usd"] for p in before)
    assert all(p["owned_usd"] < p["rented_usd"] for p in after)


def test_owning_never_pays_when_its_electricity_costs_more_than_renting():
    # 3 kW at $0.30/kWh = $0.90/h against renting the same work at $0.10/h
    b = cost.break_even(1000, 0.10, speedup=1, power_w=3000, usd_per_kwh=0.30)
    assert b.days is None
    assert b.series(points=3)[-1]["day"] == 365.0  # a year shown when there is no crossing
    assert cost.break_even(0, 1.0, 1.0).days == 0.0  # nothing to pay back


def test_throughput_an_instance_needs_to_match_a_cost_per_epoch():
    # to beat $0.1211 an epoch of 50,000 images on a $0.526/h g4dn.xlarge:
    # 50,000 x 0.526 / (0.1211 x 3600) = 26,300 / 435.96 = 60.326 samples/s
    assert cost.throughput_to_match(50_000, 0.1211, 0.526) == pytest.approx(60.326, rel=1e-4)
