"""One row rule for prices (issue 39): what the catalog would skip is never written. `catalog
update --from`, the online update and the user's price editor refuse a file (or a row) with a
price the reader refuses, naming the row and the field, and write nothing."""

from __future__ import annotations

import pytest

from engine.cli import main
from engine.cloud import prices
from engine.core.errors import ConfigError
from engine.pricing import catalog
from engine.pricing import user_rows as catalog_user
from engine.pricing.profiles import find_instance
from tests.engine.cloud_helpers import sky_home  # noqa: F401
from tests.engine.test_cloud_prices import HEADER, skypilot_folder


def _fetched_text() -> str:
    return catalog.fetched_file().read_text(encoding="utf-8")


def _aws(root, price: str, spot: str = "0.5"):
    aws = root / "aws" / "vms.csv"
    aws.parent.mkdir(parents=True)
    aws.write_text(HEADER + f"g5.xlarge,A10G,1,4,16,,{price},{spot},us-east-1,us-east-1a\n")
    return root


@pytest.mark.parametrize(
    ("price", "spot", "says"),
    [
        ("inf", "0.5", "line 2: Price: inf must be at least 0 and at most 100000"),
        ("1e308", "0.5", "line 2: Price: 1e308 must be at least 0 and at most 100000"),
        ("100001", "0.5", "line 2: Price: 100001 must be at least 0 and at most 100000"),
        ("nan", "0.5", "line 2: Price: nan must be"),
        ("-1", "0.5", "line 2: Price: -1 must be"),
        ("cheap", "0.5", "line 2: Price: 'cheap' is not a number"),
        ("1.2", "inf", "line 2: SpotPrice: inf must be"),
        ("1.2", "5", "g5.xlarge in us-east-1: usd_per_hour_spot: 5 is above the on-demand"),
    ],
)
def test_update_from_refuses_a_file_the_catalog_would_skip_and_keeps_the_prices(
    tmp_path, capsys, price, spot, says
):
    assert main(["catalog", "update", "--from", str(skypilot_folder(tmp_path / "good"))]) == 0
    before = _fetched_text()
    capsys.readouterr()
    assert main(["catalog", "update", "--from", str(_aws(tmp_path / "bad", price, spot))]) == 2
    err = capsys.readouterr().err
    assert says in err and "nothing written" in err and len(err.strip().splitlines()) == 1
    assert _fetched_text() == before  # the prices fetched before are still there
    cat = catalog.load()
    assert find_instance(cat, "aws:g5.xlarge").usd_per_hour == 1.2 and not cat.problems


def test_one_bad_cloud_in_the_folder_refuses_the_whole_update(tmp_path, capsys):
    folder = skypilot_folder(tmp_path)
    (folder / "aws" / "vms.csv").write_text(HEADER + "g5.xlarge,A10G,1,4,16,,inf,,us-east-1,a\n")
    assert main(["catalog", "update", "--from", str(folder)]) == 2
    assert not catalog.fetched_file().exists()  # gcp's good file was not written either


def test_the_online_update_refuses_a_bad_file_and_keeps_that_clouds_prices(tmp_path, monkeypatch):
    from engine.cloud import sky_catalog, skypilot

    def catalog_url(command, payload, timeout_s):
        return {"url": f"https://example.test/catalog/v8/{payload['cloud']}/vms.csv"}

    monkeypatch.setattr(skypilot, "call", catalog_url)
    good = skypilot_folder(tmp_path)

    def fetch(url: str) -> str:
        if "/aws/" in url:
            return HEADER + "g5.xlarge,A10G,1,4,16,,1e308,0.5,us-east-1,us-east-1a\n"
        return (good / "gcp" / "vms.csv").read_text()

    fetched = prices.update_online(["aws", "gcp"], fetch=fetch)
    assert list(fetched.failed) == ["aws"] and "line 2: Price: 1e308" in fetched.failed["aws"]
    cat = catalog.load()
    assert find_instance(cat, "aws:g5.xlarge").usd_per_hour == 1.006  # kept
    assert find_instance(cat, "gcp:a2-highgpu-1g").origin == "fetched"
    assert not (sky_catalog.fetched_folder() / "aws" / "vms.csv").exists()
    assert not cat.problems


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"usd_per_hour": "1", "usd_per_hour_spot": "2"}, "usd_per_hour_spot"),
        ({"usd_per_hour": "inf"}, "usd_per_hour"),
        ({"usd_per_hour": "1e308"}, "usd_per_hour"),
        ({"usd_per_hour": "100001"}, "usd_per_hour"),
        ({"usd_per_hour": "nan"}, "usd_per_hour"),
    ],
)
def test_the_price_editor_refuses_a_row_the_catalog_would_skip(values, field):
    row = {"cloud": "mine", "instance_type": "box", **values}
    with pytest.raises(ConfigError) as refused:
        catalog_user.add_row("instances", row)
    assert refused.value.field == field
    assert not catalog.user_file("instances").exists()


def test_the_reader_skips_a_spot_price_above_on_demand(tmp_path):
    path = catalog.user_file("instances")
    path.write_text("cloud,instance_type,usd_per_hour,usd_per_hour_spot\nmine,box,1,2\n")
    rows, problems = catalog.read_rows(path, "instances", "user")
    assert rows == [] and "line 2: usd_per_hour_spot: 2 is above" in str(problems[0])
