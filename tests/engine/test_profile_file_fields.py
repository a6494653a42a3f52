"""profiles.json read as a user's file, not trusted: a FIFO is refused before it is opened (it
hung every profile command), an integer of 400 digits is one line (it was an OverflowError),
each field must be of its type (the string "false" was taken as spot), a field that does not
apply is refused by the rules `profile add` checks, what the catalog lacks is said when that
profile is used (the rest stay usable), and each error names the profile and the field as the
file spells it."""

from __future__ import annotations

import json
import os

import pytest

from engine.cli import main
from engine.core.errors import ConfigError, StoreError
from engine.pricing import catalog, profile_store
from engine.pricing.profiles import OWNED, Profile
from engine.results.store import Store
from tests.engine.price_results import result

OWNED_4090 = {
    "name": "o1",
    "kind": OWNED,
    "gpu": "GeForce RTX 4090",
    "purchase_usd": 1600,
    "usd_per_kwh": 0.3,
}
RENTED_P3 = {"name": "p3", "instance": "aws:p3.2xlarge"}


def _write(home, *profiles: dict) -> bytes:
    home.mkdir(parents=True, exist_ok=True)
    data = json.dumps({"schema": 1, "profiles": list(profiles)}).encode()
    (home / "profiles.json").write_bytes(data)
    return data


def _refused(capsys, home, words: str, kept: bytes) -> None:
    """Every profile command (and results show --profile) says one line, exit 3, and the file
    is kept as it was."""
    for argv in (
        ["profile", "list"],
        ["profile", "add", "q", "--price-per-hour", "1.5"],
        ["profile", "show", "o1"],
    ):
        assert main(argv) == 3, argv
        err = capsys.readouterr().err
        assert words in err, err
        assert len(err.strip().splitlines()) == 1 and "internal error" not in err
    assert (home / "profiles.json").read_bytes() == kept


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_fifo_as_profiles_file_is_refused_without_waiting(capsys, epochcost_home, tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result(usd_per_hour=0.9, run_id="20250101T000000-gpu00001")))
    run_id = Store().import_file(path).run_id
    os.mkfifo(epochcost_home / "profiles.json")
    for argv in (
        ["profile", "list"],
        ["profile", "add", "q", "--price-per-hour", "1.5"],
        ["results", "show", run_id, "--profile", "z"],
    ):
        assert main(argv) == 3, argv
        err = capsys.readouterr().err
        assert "profiles.json: is a FIFO (a named pipe), not a file; fix it or move it away" in err
        assert len(err.strip().splitlines()) == 1
    with pytest.raises(StoreError, match="is a FIFO"):
        profile_store.save(Profile("q", usd_per_hour=1.0))


def test_a_folder_as_profiles_file_is_refused(epochcost_home):
    (epochcost_home / "profiles.json").mkdir(parents=True)
    with pytest.raises(StoreError, match="profiles.json: is a folder, not a file"):
        profile_store.load()


@pytest.mark.parametrize("field", ["usd_per_hour", "watts", "purchase_usd", "lifetime_years"])
def test_an_integer_of_400_digits_is_one_line(capsys, epochcost_home, field):
    base = {**OWNED_4090} if field != "usd_per_hour" else {"name": "o1", "usd_per_hour": 1}
    text = json.dumps({"schema": 1, "profiles": [{**base, field: 7}]}).replace("7", "9" * 400)
    epochcost_home.mkdir(parents=True)
    (epochcost_home / "profiles.json").write_text(text)
    _refused(capsys, epochcost_home, "(400 digits)", text.encode())


@pytest.mark.parametrize("field", ["usd_per_hour", "watts", "purchase_usd", "lifetime_years"])
def test_a_profile_of_a_huge_integer_is_a_config_error_not_an_overflow(field):
    base = {**OWNED_4090} if field != "usd_per_hour" else {"name": "o1", "usd_per_hour": 1}
    with pytest.raises(ConfigError) as err:
        Profile(**{**base, field: 10**400}).validated()
    assert err.value.field == field


@pytest.mark.parametrize(
    ("changed", "words"),
    [
        ({**RENTED_P3, "spot": "false"}, "profile 1 ('p3'): spot: 'false' is not true or false"),
        ({**RENTED_P3, "spot": 1}, "profile 1 ('p3'): spot: 1 is not true or false"),
        ({"name": "p3", "instance": 5}, "profile 1 ('p3'): instance: 5 is not text"),
        ({"name": "p3", "instance": ["aws:p3.2xlarge"]}, "instance: ['aws:p3.2xlarge'] is not"),
        ({**OWNED_4090, "gpu": 5}, "profile 1 ('o1'): gpu: 5 is not text"),
        ({**OWNED_4090, "grid_region": 5}, "profile 1 ('o1'): grid_region: 5 is not text"),
        ({"name": "q", "usd_per_hour": 1, "source": "\ud800"}, "source: holds a character"),
        ({"name": "q", "usd_per_hour": True}, "usd_per_hour: True is not a number"),
        ({"name": "q", "usd_per_hour": 1, "as_of": 20260101}, "as_of: 20260101 is not text"),
        ({"name": 5, "usd_per_hour": 1}, "profile 1: name: 5 is not text"),
        ({"usd_per_hour": 1}, "profile 1: name: is missing"),
        ({**OWNED_4090, "watts": -3}, "profile 1 ('o1'): watts: -3 must be at least 0"),
    ],
    ids=[
        "spot-text",
        "spot-1",
        "instance-number",
        "instance-list",
        "gpu-number",
        "grid-number",
        "lone-surrogate",
        "price-true",
        "date-number",
        "name-number",
        "no-name",
        "negative-watts",
    ],
)
def test_each_field_must_be_of_its_type(capsys, epochcost_home, changed, words):
    kept = _write(epochcost_home, changed)
    _refused(capsys, epochcost_home, words, kept)


@pytest.mark.parametrize(
    ("changed", "words"),
    [
        ({**RENTED_P3, "lifetime_years": "x"}, "lifetime_years: applies to owned hardware"),
        ({**RENTED_P3, "hours_per_day": None}, "hours_per_day: applies to owned hardware"),
        ({"name": "q", "usd_per_hour": 1, "psu_efficiency": 0.5}, "psu_efficiency: applies"),
        ({"name": "q"}, "instance: give instance or usd_per_hour;"),  # the file's own names
    ],
    ids=["lifetime", "hours-null", "psu", "neither"],
)
def test_the_file_is_held_to_the_rules_of_a_profiles_fields(capsys, epochcost_home, changed, words):
    kept = _write(epochcost_home, changed)
    _refused(capsys, epochcost_home, words, kept)


@pytest.mark.parametrize(
    ("changed", "words"),
    [
        ({**OWNED_4090, "gpu": "Nope 9000"}, "its GPU 'Nope 9000' is not in the catalog and it"),
        ({"name": "o1", "instance": "aws:nope"}, "no instance 'aws:nope'"),
    ],
    ids=["gpu", "instance"],
)
def test_what_the_catalog_lacks_is_said_when_that_profile_is_used(
    capsys, epochcost_home, changed, words
):
    # A catalog row removed after the profile was saved must not make the file unreadable:
    # the other profiles stay usable, and the one that names it says why when it is used.
    kept = _write(epochcost_home, changed, {"name": "fine", "usd_per_hour": 1.5})
    assert main(["profile", "list"]) == 0
    assert "fine" in capsys.readouterr().out
    assert main(["profile", "show", "fine"]) == 0
    capsys.readouterr()
    assert main(["profile", "show", "o1"]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1, err
    assert (epochcost_home / "profiles.json").read_bytes() == kept


def test_owned_hardware_of_your_own_with_its_watts_is_saved_and_priced(epochcost_home):
    # The app's "other" hardware: a GPU the catalog does not hold, its draw given.
    own = Profile(**{**OWNED_4090, "gpu": "my lab box", "watts": 300.0})
    profile_store.save(own)
    price = profile_store.get("o1").price(catalog.load())
    assert price.source.startswith("profile o1: owned my lab box") and price.usd_per_hour > 0


def test_a_rented_profile_written_with_the_owned_defaults_is_read():
    """Earlier versions wrote lifetime, hours a day and PSU at their defaults on every profile."""
    written = Profile("p3", instance="aws:p3.2xlarge").to_dict()
    assert written["lifetime_years"] == 3.0
    assert Profile.from_dict(written).in_catalog(catalog.load()).instance == "aws:p3.2xlarge"


def test_the_cli_refuses_by_the_same_rules_naming_its_options(capsys, epochcost_home):
    owned = ["profile", "add", "o", "--owned-gpu", "RTX 4090", "--purchase-usd", "1600"]
    owned += ["--usd-per-kwh", "0.3"]
    assert main([*owned, "--grid-region", "aws:nowhere"]) == 2
    assert "--grid-region: 'aws:nowhere' is not in the catalog" in capsys.readouterr().err
    assert main(["profile", "add", "o", "--owned-gpu", "Nope 9000", "--purchase-usd", "1"]) == 2
    assert "--owned-gpu: no GPU 'Nope 9000' in the catalog" in capsys.readouterr().err
    assert main(["profile", "add", "x"]) == 2
    assert "--instance: give --instance or --price-per-hour" in capsys.readouterr().err
    assert not (epochcost_home / "profiles.json").exists()


@pytest.mark.parametrize("name", ["\t", " x", "a\x07b"])
def test_a_bad_name_is_blamed_on_the_name_as_given(capsys, epochcost_home, name):
    assert main(["profile", "add", name, "--price-per-hour", "1"]) == 2
    err = capsys.readouterr().err
    assert "profile NAME: " in err and "--name" not in err, err
    assert not (epochcost_home / "profiles.json").exists()
