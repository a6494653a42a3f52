"""The SkyPilot task of a cloud run, with no credentials and no network: built with SkyPilot's
API, passed by its own schemas, priced from the catalog with its date; the dry run; a job
log's prefixes; a launch that fails."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.cloud import log, task
from tests.engine.cloud_helpers import config_of, prepared, sky_home  # noqa: F401


@pytest.mark.parametrize("instance", ["aws:g5.xlarge", "aws:p3.2xlarge", "gcp:a2-highgpu-1g"])
def test_the_task_of_a_catalog_instance_passes_skypilots_schema(instance):
    from sky.utils import common_utils, schemas

    run = prepared(instance)
    mapping = task.task_mapping(task.sky_task(run))
    common_utils.validate_schema(mapping, schemas.get_task_schema())  # raises if not
    resources = mapping["resources"]
    assert resources["instance_type"] == run.instance.instance_type
    assert resources["region"] == run.instance.region
    assert resources["use_spot"] is False
    assert list(resources["accelerators"]) == [run.instance.gpu_model]
    assert config_of(mapping)["usd_per_hour"] == run.instance.usd_per_hour


def test_the_framework_build_fits_the_gpu():
    # The checkout itself (the workdir SkyPilot uploads) is the worker side: no release of
    # epochcost needs to be on a package index.
    assert prepared("aws:p3.2xlarge").packages == f"{task.OLD_GPU_TORCH} ."
    assert prepared("aws:g5.xlarge").packages == f"{task.OLD_GPU_TORCH} ."
    mapping = task.task_mapping(task.sky_task(prepared("aws:g5.xlarge")))
    assert Path(mapping["workdir"]) == Path(__file__).resolve().parents[2]


def test_nodes_run_data_parallel_at_the_clusters_price():
    run = prepared("aws:g5.12xlarge", nodes=2)
    mapping = task.task_mapping(task.sky_task(run))
    config = config_of(mapping)
    assert mapping["num_nodes"] == 2
    assert (config["nnodes"], config["nproc"]) == (2, 4)
    assert config["usd_per_hour"] == pytest.approx(2 * run.instance.usd_per_hour)
    assert "SKYPILOT_NODE_IPS" in mapping["run"] and "torch.distributed.run" in mapping["run"]


def test_dryrun_prints_the_task_its_price_and_estimate(capsys):
    args = ["cloud", "run", "--instance", "aws:p3.2xlarge", "--model", "resnet18-cifar"]
    assert main([*args, "--dryrun", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["usd_per_hour"] == 3.06
    assert plan["task"]["resources"]["instance_type"] == "p3.2xlarge"
    assert plan["price_note"] == "undated"  # the shipped snapshot
    assert plan["estimated_usd"] == pytest.approx(3.06 * plan["estimated_minutes"] / 60, 1e-3)
    assert main([*args, "--dryrun"]) == 0
    text = capsys.readouterr().out
    assert "instance_type: p3.2xlarge" in text and "# estimate:" in text and "$3.06/h" in text


def test_a_gpu_picks_the_cheapest_instance(capsys):
    assert main(["cloud", "run", "--gpu", "A10G", "--cloud", "aws", "--dryrun", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["task"]["resources"]["instance_type"] == "g5.xlarge"


def test_without_skypilot_it_says_how_to_add_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sky", None)
    assert main(["cloud", "run", "--instance", "aws:g5.xlarge", "--dryrun"]) == 2
    assert "pip install 'epochcost[cloud]'" in capsys.readouterr().err


def test_a_launch_without_yes_off_a_terminal_is_refused(capsys):
    assert main(["cloud", "run", "--instance", "aws:g5.xlarge"]) == 2
    assert "--yes" in capsys.readouterr().err


def test_a_failed_launch_is_one_line_pointing_to_sky_check(monkeypatch, capsys):
    import sky

    from engine.cli import cmd_cloud

    class Refused:
        downs: list[str] = []

        def launch(self, *args):
            raise sky.exceptions.ResourcesUnavailableError("no capacity in us-east-1\nmore")

        def down(self, cluster):
            self.downs.append(cluster)

    monkeypatch.setattr(cmd_cloud, "connect", Refused)
    assert main(["cloud", "run", "--instance", "aws:g5.xlarge", "--yes"]) == 3
    err = capsys.readouterr().err
    assert "no capacity in us-east-1" in err and "sky check" in err and "more" not in err
    assert "Traceback" not in err and len(Refused.downs) == 1
    assert main(["results", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_a_job_log_loses_skypilots_prefixes_and_other_nodes():
    lines = [
        '(head, rank=0, pid=11) {"type":"phase","run_id":"a","phase":"measuring"}',
        '(worker1, rank=1, pid=12, ip=10.0.0.2) {"type":"phase","run_id":"b","phase":"x"}',
        "\x1b[36m(head, rank=0, pid=11)\x1b[0m epochcost-clock run 100.5",
        "(setup pid=9) epochcost-clock setup 50",
        "I SkyPilot's own note",
        '{"not": "an event"}',
    ]
    job = log.parse("\n".join(lines))
    assert [e.run_id for e in job.events] == ["a"]
    assert job.clocks == {"run": 100.5, "setup": 50.0}
