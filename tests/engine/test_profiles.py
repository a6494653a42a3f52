"""Machine profiles (engine/pricing/profiles.py, profile_store.py) and re-pricing a stored result
(engine/results/repricing.py): the price each gives, the file, and a damaged file."""

from __future__ import annotations

import json

import pytest

from engine.core.errors import ConfigError, StoreError
from engine.pricing import catalog, profile_store
from engine.pricing.cost import OwnedHardware, Price
from engine.pricing.profiles import OWNED, Profile, find_instance
from engine.results.repricing import repriced
from tests.engine.price_results import result


@pytest.fixture(scope="module")
def cat() -> catalog.Catalog:
    return catalog.load()


def test_rented_price_is_the_given_figure_with_its_source_and_date(cat):
    p = Profile("quote", usd_per_hour=2.5, source="quote from X", as_of="2026-11-01").validated()
    assert p.price(cat) == Price(2.5, "profile quote: quote from X", "2026-11-01")


def test_instance_price_comes_from_the_catalog(cat):
    instance = find_instance(cat, "aws:p3.2xlarge")
    p = Profile("p3", instance="aws:p3.2xlarge").validated()
    price = p.price(cat)
    assert price.usd_per_hour == instance.usd_per_hour
    assert "aws p3.2xlarge on-demand" in price.source
    spot = Profile("p3s", instance="aws:p3.2xlarge", spot=True).price(cat)
    assert spot.usd_per_hour == instance.usd_per_hour_spot


def test_an_unknown_instance_names_close_ones(cat):
    with pytest.raises(ConfigError, match="no instance 'p3.2xl'.*aws:p3.2xlarge"):
        find_instance(cat, "p3.2xl")


def test_owned_price_is_the_owning_model_with_the_gpu_tdp(cat):
    spec = cat.gpu("GTX 1080 Ti")
    assert spec is not None and spec.tdp_w
    p = Profile(
        "box", kind=OWNED, gpu=spec.name, purchase_usd=699.0, usd_per_kwh=0.3, as_of="2026-11-25"
    ).validated()
    expected = OwnedHardware(purchase_usd=699.0, usd_per_kwh=0.3, power_w=spec.tdp_w)
    price = p.price(cat)
    assert price.usd_per_hour == pytest.approx(expected.usd_per_hour)
    assert price.as_of == "2026-11-25"
    assert "$699" in price.source and "$0.3/kWh" in price.source
    # given watts replace the TDP
    assert Profile(**{**p.to_dict(), "watts": 100.0}).owned_hardware(cat).power_w == 100.0


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "x"}, "instance"),  # neither an instance nor a $/h
        ({"name": "x", "usd_per_hour": 1.0, "instance": "aws:p3.2xlarge"}, "instance"),
        ({"name": "x", "usd_per_hour": -1.0}, "usd_per_hour"),
        ({"name": "x", "kind": OWNED, "gpu": "V100", "purchase_usd": 1.0}, "usd_per_kwh"),
        ({"name": "x", "kind": OWNED, "gpu": "V100", "usd_per_kwh": 0.1}, "purchase_usd"),
    ],
)
def test_a_wrong_profile_names_what_to_fix(values, field):
    with pytest.raises(ConfigError) as err:
        Profile(**values).validated()
    assert err.value.field == field


def test_the_file_keeps_profiles_and_lists_known_names_for_a_wrong_one(epochcost_home):
    profile_store.save(Profile("b", usd_per_hour=1.0, as_of="2026-01-01"))
    profile_store.save(Profile("a", usd_per_hour=2.0, as_of="2026-01-01"))
    assert profile_store.names() == ["a", "b"]
    assert profile_store.get("a").usd_per_hour == 2.0
    with pytest.raises(ConfigError, match="a profile 'a' exists"):
        profile_store.save(Profile("a", usd_per_hour=3.0))
    profile_store.save(Profile("a", usd_per_hour=3.0), replace=True)
    assert profile_store.get("a").usd_per_hour == 3.0
    with pytest.raises(ConfigError, match=r"no profile 'c' \(known: a, b\)"):
        profile_store.get("c")
    profile_store.remove("b")
    assert profile_store.names() == ["a"]
    assert not list(epochcost_home.glob(".profiles.json*"))  # no temporary file left


def test_a_damaged_file_is_reported_and_never_written_over(epochcost_home):
    file = profile_store.path()
    file.write_text('{"profiles": [', encoding="utf-8")
    with pytest.raises(StoreError, match="profiles.json: is not valid JSON.*not write over it"):
        profile_store.load()
    with pytest.raises(StoreError):
        profile_store.save(Profile("a", usd_per_hour=1.0))
    assert file.read_text(encoding="utf-8") == '{"profiles": ['
    file.write_text(json.dumps({"profiles": [{"name": "x", "usd_per_hour": "cheap"}]}))
    with pytest.raises(StoreError, match=r"profile 1 \('x'\): usd_per_hour: 'cheap' is not a"):
        profile_store.load()


def test_repricing_is_epoch_seconds_times_the_price():
    stored = result(usd_per_hour=0.9)
    again = repriced(stored, Price(3.06, "quote", "2026-11-25"))
    assert again["usd_per_epoch"] == pytest.approx(stored["epoch_seconds"] * 3.06 / 3600)
    assert again["price"] == {"usd_per_hour": 3.06, "source": "quote", "as_of": "2026-11-25"}
    assert again["stored_price"] == stored["price"]
    assert stored["usd_per_epoch"] is None  # the stored result is not changed
