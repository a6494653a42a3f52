"""The measured machine as owned hardware: defaults from the catalog, the user's figures first."""

from __future__ import annotations

import pytest

from engine.core.errors import ConfigError
from engine.pricing import catalog, owning
from engine.pricing.rows import Machine
from tests.engine.price_results import result

CAT = catalog.load()


def test_defaults_come_from_the_catalog_for_the_detected_gpu():
    owned, basis = owning.owned_for_result(result(mean_power_w=None), CAT, usd_per_kwh=0.2)
    # GTX 1080 Ti: launch price $699, TDP 250 W; 3 years, 24 h/day, no rest, 90% PSU
    assert (owned.purchase_usd, owned.power_w) == (699, 250)
    assert (owned.lifetime_years, owned.hours_per_day, owned.psu_efficiency) == (3.0, 24.0, 0.9)
    assert basis == "TDP of GeForce GTX 1080 Ti (catalog)"
    owned, basis = owning.owned_for_result(result(), CAT, usd_per_kwh=0.2)
    assert (owned.power_w, basis) == (220.0, "measured")


def test_given_figures_come_before_the_machine_row_which_comes_before_the_catalog():
    box = Machine(name="box", purchase_usd=900, usd_per_kwh=0.3, hours_per_day=8, power_w=300)
    owned, basis = owning.owned_for_result(result(), CAT, box, hours_per_day=12)
    assert (owned.purchase_usd, owned.usd_per_kwh, owned.hours_per_day) == (900, 0.3, 12)
    assert (owned.power_w, basis) == (300, "given")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"usd_per_kwh": None}, "usd_per_kwh"),
        ({"usd_per_kwh": 0.2, "hours_per_day": 30}, "hours_per_day"),
        ({"usd_per_kwh": 0.2, "colour": 1}, "colour"),
    ],
)
def test_what_is_missing_or_wrong_is_named(kwargs, field):
    with pytest.raises(ConfigError) as info:
        owning.owned_for_result(result(), CAT, **kwargs)
    assert info.value.field == field
    cpu = result(device="cpu", device_name=None)
    with pytest.raises(ConfigError) as info:
        owning.owned_for_result(cpu, CAT, usd_per_kwh=0.2)
    assert info.value.field == "purchase_usd" and "Some CPU" in info.value.message


def test_the_owned_form_starts_from_the_launch_price_and_tdp_of_a_gpu():
    assert owning.gpu_defaults(CAT.gpu("GeForce GTX 1080 Ti")) == {
        "purchase_usd": 699,
        "power_w": 250,
        "usd_per_kwh": None,
        "lifetime_years": 3.0,
        "hours_per_day": 24.0,
        "rest_of_system_w": 0.0,
        "psu_efficiency": 0.9,
    }
    nothing_known = owning.gpu_defaults(None)
    assert nothing_known["purchase_usd"] is None and nothing_known["power_w"] is None
