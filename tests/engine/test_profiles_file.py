"""Issue 32: profiles.json treated like the results store. A link is followed (its target
written, the link kept); a newer schema, two profiles of one name and bytes that are not UTF-8
are one line (exit 3) and the file is never rewritten; an option the profile would ignore is
refused; a price from a profile names the profile."""

from __future__ import annotations

import json
import os

import pytest

from engine.cli import main
from engine.results.store import Store
from tests.engine.price_results import result
from tests.engine.test_cli_profiles import BOX

QUOTE = ["profile", "add", "quote", "--price-per-hour", "1.5"]


def _one_line(capsys, words: str) -> None:
    err = capsys.readouterr().err
    assert words in err, err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_a_linked_profiles_file_is_written_through_the_link(capsys, epochcost_home, tmp_path):
    epochcost_home.mkdir(parents=True, exist_ok=True)
    target = tmp_path / "dotfiles" / "profiles.json"
    target.parent.mkdir()
    target.write_text('{"schema": 1, "profiles": []}\n')
    link = epochcost_home / "profiles.json"
    link.symlink_to(target)
    assert main(QUOTE) == 0, capsys.readouterr().err
    assert link.is_symlink() and link.resolve() == target
    assert [p["name"] for p in json.loads(target.read_text())["profiles"]] == ["quote"]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b'{"schema": 99, "profiles": []}', "is schema 99, newer than this epochcost reads (1)"),
        (b'{"schema": "one", "profiles": []}', "has schema 'one', not a profiles schema"),
        (
            b'{"schema": 1, "profiles": [{"name": "a", "usd_per_hour": 1.0}, '
            b'{"name": "a", "usd_per_hour": 2.0}]}',
            "profile 2 has the name 'a' of an earlier one",
        ),
        (b'{"schema": 1, "profiles": [{"name": "caf\xe9", "usd_per_hour": 1}]}', "not UTF-8"),
        (
            b'{"schema": 1, "profiles": [{"name": "a", "usd_per_hour": 1.0, "spot": true}]}',
            "profile 1 ('a'): spot: applies to a catalog instance",
        ),
    ],
    ids=["newer-schema", "bad-schema", "duplicate-names", "not-utf8", "field-that-does-not-apply"],
)
def test_a_profiles_file_not_read_whole_is_one_line_and_never_rewritten(
    capsys, epochcost_home, content, words
):
    epochcost_home.mkdir(parents=True, exist_ok=True)
    file = epochcost_home / "profiles.json"
    file.write_bytes(content)
    for argv in (["profile", "list"], QUOTE, ["profile", "remove", "a"]):
        assert main(argv) == 3, argv
        _one_line(capsys, words)
    assert file.read_bytes() == content


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--price-per-hour", "1", "--spot"], "--spot: applies to a catalog --instance"),
        (["--price-per-hour", "1", "--power-w", "300"], "--power-w: applies to owned hardware"),
        (["--instance", "aws:p3.2xlarge", "--grid-region", "aws:us-east-1"], "--grid-region"),
        (["--instance", "aws:p3.2xlarge", "--price-source", "me"], "the catalog gives"),
        (["--price-per-hour", "1", "--psu-efficiency", "0.9"], "--psu-efficiency: applies to"),
        ([*BOX[3:], "--price-source", "me"], "an owned profile's price comes from its figures"),
    ],
)
def test_an_option_that_does_not_apply_is_refused(capsys, epochcost_home, extra, words):
    assert main(["profile", "add", "x", *extra]) == 2
    _one_line(capsys, words)
    assert not (epochcost_home / "profiles.json").exists()


def test_a_price_from_a_profile_names_the_profile(capsys, epochcost_home, tmp_path):
    box = list(BOX)
    box[2] = "home1080"
    assert main(box) == 0
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result(usd_per_hour=0.9, run_id="20250101T000000-gpu00001")))
    run_id = Store().import_file(path).run_id
    capsys.readouterr()
    assert main(["results", "show", run_id, "--profile", "home1080", "--json"]) == 0
    price = json.loads(capsys.readouterr().out)["price"]
    assert price["source"].startswith("profile home1080: owned GeForce GTX 1080 Ti: $699")
    assert main(["profile", "show", "home1080"]) == 0
    assert "price: " in capsys.readouterr().out
