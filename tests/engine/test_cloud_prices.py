"""`catalog update --from` a folder in SkyPilot's layout changes a price and its date; a price
older than 30 days is flagged."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path

import pytest

from engine.cli import main
from engine.pricing import catalog
from engine.pricing.profiles import find_instance
from tests.engine.cloud_helpers import sky_home  # noqa: F401

HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n"
)


def skypilot_folder(root: Path, days_old: int = 0) -> Path:
    aws = root / "aws" / "vms.csv"
    aws.parent.mkdir(parents=True)
    aws.write_text(
        HEADER
        + "g5.xlarge,A10G,1,4,16,,1.2,0.5,us-east-1,us-east-1a\n"
        + "g5.xlarge,A10G,1,4,16,,1.2,0.45,us-east-1,us-east-1b\n"
        + "g5.xlarge,A10G,1,4,16,,1.5,0.6,us-west-2,us-west-2a\n"
    )
    gcp = root / "gcp" / "vms.csv"
    gcp.parent.mkdir(parents=True)
    gcp.write_text(
        HEADER
        + "a2-highgpu-1g,,,12,85,,0.8,0.4,us-central1,us-central1-a\n"
        + ",A100,1,,,,3.0,1.5,us-central1,us-central1-a\n"
    )
    stamp = time.time() - days_old * 86400
    for path in (aws, gcp):
        os.utime(path, (stamp, stamp))
    return root


def test_update_from_a_folder_changes_a_price_and_its_date(tmp_path, capsys):
    before = find_instance(catalog.load(), "aws:g5.xlarge")
    assert before.usd_per_hour == 1.006 and not before.price_date.startswith("20")
    assert main(["catalog", "update", "--from", str(skypilot_folder(tmp_path))]) == 0
    assert "aws: " in capsys.readouterr().out
    cat = catalog.load()
    after = find_instance(cat, "aws:g5.xlarge")
    today = dt.date.today().isoformat()
    assert (after.usd_per_hour, after.usd_per_hour_spot, after.price_date) == (1.2, 0.45, today)
    assert after.origin == "fetched" and "was $1.006/h" in after.notes
    a2 = find_instance(cat, "gcp:a2-highgpu-1g")  # a VM row plus its accelerator's
    assert (a2.usd_per_hour, a2.usd_per_hour_spot) == (3.8, 1.9)
    assert catalog.price_note(after.price_date) == ""
    assert not cat.problems


def test_a_price_older_than_30_days_is_flagged(tmp_path, capsys):
    assert main(["catalog", "update", "--from", str(skypilot_folder(tmp_path, 45))]) == 0
    assert "45 days old" in capsys.readouterr().out
    assert main(["catalog", "instances", "--gpu", "A10G", "--cloud", "aws", "--json"]) == 0
    rows = {r["instance_type"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["g5.xlarge"]["price_note"] == "45 days old"
    assert main(["catalog", "instances", "--search", "g5.xlarge"]) == 0
    assert "(45 days old)" in capsys.readouterr().out
    args = ["cloud", "run", "--instance", "aws:g5.xlarge", "--dryrun"]
    assert main(args) == 0
    assert "[45 days old]" in capsys.readouterr().out


def test_a_folder_without_skypilots_files_is_one_line(tmp_path, capsys):
    assert main(["catalog", "update", "--from", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no <cloud>/vms.csv" in err and len(err.strip().splitlines()) == 1


@pytest.mark.worker
def test_online_each_cloud_is_fetched_on_its_own_and_one_failure_keeps_the_others(tmp_path):
    """The address and schema come from the cloud environment's real SkyPilot (v8); the
    network stands in: gcp's file is SkyPilot's, aws answers 404."""
    from engine.cloud import prices, sky_catalog
    from tests.engine.cloud_helpers import need_cloud_env

    need_cloud_env()
    files = skypilot_folder(tmp_path)
    asked: list[str] = []

    def fetch(url: str) -> str:
        asked.append(url)
        if "/aws/" in url:
            raise OSError("HTTP Error 404: Not Found")
        return (files / "gcp" / "vms.csv").read_text()

    fetched = prices.update_online(["aws", "gcp"], fetch=fetch)
    assert all("/v8/" in url and url.endswith("/vms.csv") for url in asked) and len(asked) == 2
    assert list(fetched.failed) == ["aws"] and "404" in fetched.failed["aws"]
    assert [r.cloud for r in fetched.reports] == ["gcp"]
    a2 = find_instance(catalog.load(), "gcp:a2-highgpu-1g")
    assert a2.usd_per_hour == pytest.approx(3.8) and a2.origin == "fetched"
    assert find_instance(catalog.load(), "aws:g5.xlarge").usd_per_hour == 1.006  # kept
    assert (sky_catalog.fetched_folder() / "gcp" / "vms.csv").is_file()  # for the dry run
    assert not (sky_catalog.fetched_folder() / "aws" / "vms.csv").exists()
