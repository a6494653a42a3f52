"""The SkyPilot task of a cloud run, with no credentials and no network: written as SkyPilot's
YAML reads it, accepted by SkyPilot's own loader, validation and optimizer (the cloud program
in the real cloud environment), priced from the catalog with its date; what a cloud run
refuses; a job log's prefixes; a launch that fails."""

from __future__ import annotations

import json
import os

import pytest

from engine.cli import main
from engine.cloud import log, task
from engine.cloud.skypilot import SkyError
from tests.engine.cloud_helpers import config_of, need_cloud_env, prepared, sky_home  # noqa: F401


def test_the_task_names_the_instance_as_skypilot_does():
    mapping = task.task_mapping(prepared("aws:g5.xlarge"), workdir="/w")
    resources = mapping["resources"]
    assert resources["infra"] == "aws/us-east-1" and resources["instance_type"] == "g5.xlarge"
    assert resources["accelerators"] == {"A10G": 1} and resources["use_spot"] is False
    assert resources["autostop"] == {"idle_minutes": task.IDLE_MINUTES, "down": True}
    gcp = task.task_mapping(prepared("gcp:n1-standard-8 + 1xV100"), workdir="/w")["resources"]
    assert gcp["instance_type"] == "n1-standard-8" and gcp["accelerators"] == {"V100": 1}
    runpod = task.task_mapping(prepared("runpod:1x_A100-80GB_SECURE"), workdir="/w")
    assert runpod["resources"]["infra"] == "runpod/US/US-CA-1"


def test_the_framework_build_fits_the_gpu():
    assert prepared("aws:p3.2xlarge").framework_build == task.OLD_GPU_TORCH
    mapping = task.task_mapping(prepared("aws:g5.xlarge"), workdir="/w")
    assert mapping["envs"]["EPOCHCOST_PACKAGES"] == task.OLD_GPU_TORCH


def test_a_multi_gpu_instance_measures_all_its_gpus():
    run = prepared("aws:p4d.24xlarge")
    assert run.config.nproc == 8 and run.usd_per_hour == run.instance.usd_per_hour


def test_nodes_run_data_parallel_at_the_clusters_price():
    run = prepared("aws:g5.12xlarge", nodes=2)
    mapping = task.task_mapping(run, workdir="/w")
    config = config_of(mapping)
    assert mapping["num_nodes"] == 2
    assert (config["nnodes"], config["nproc"]) == (2, 4)
    assert config["usd_per_hour"] == pytest.approx(2 * run.instance.usd_per_hour)
    assert "SKYPILOT_NODE_IPS" in mapping["run"] and "torch.distributed.run" in mapping["run"]


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--instance", ""], "names no instance type"),
        (["--instance", "aws:dl1.24xlarge"], "NVIDIA GPUs"),
        (["--instance", "gcp:tpu-v3-8"], "NVIDIA GPUs"),
        (["--instance", "aws:g5.xlarge", "--device", "mps"], "all the instance's NVIDIA GPUs"),
        (["--instance", "aws:g5.xlarge", "--device", "cuda:9"], "all the instance's NVIDIA"),
        (["--instance", "aws:g5.xlarge", "--data", "imagefolder:/tmp"], "not uploaded"),
    ],
)
def test_what_a_cloud_run_cannot_measure_is_refused_saying_what_to_do(options, says, capsys):
    assert main(["cloud", "run", *options, "--dryrun"]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_a_model_file_is_refused(tmp_path, capsys):
    from tests.engine.model_files import VALID, write

    path = write(tmp_path, VALID)
    args = ["cloud", "run", "--instance", "aws:g5.xlarge", "--model-file", str(path)]
    assert main([*args, "--dryrun"]) == 2
    assert "not uploaded" in capsys.readouterr().err


def test_a_gpu_only_row_is_no_machine():
    from engine.pricing import catalog

    cat = catalog.load()
    row = next(i for i in cat.instances if i.price_component == "gpu_only")
    with pytest.raises(Exception, match="without its host VM"):
        task.prepare(cat, row, prepared().config, False, 1, 0.0)


# SkyPilot's own verdicts, in the real cloud environment (offline, no credentials).


ONE_OF_EACH_CLOUD = [
    "aws:g5.xlarge",
    "aws:p3.2xlarge",
    "gcp:n1-standard-8 + 1xV100",
    "gcp:a2-highgpu-1g",
    "azure:Standard_NC6s_v3",
    "lambda:gpu_1x_a10",
    "runpod:1x_A100-80GB_SECURE",
    "paperspace:A4000",
]


@pytest.mark.worker
def test_skypilot_accepts_one_instance_of_each_cloud_and_the_sweep_totals_them(capsys):
    """One dry run of a cloud sweep over them (one start of the cloud program): each plan is
    the one `cloud run --dryrun` prints for its instance."""
    need_cloud_env()
    args = ["cloud", "sweep", "--instances", ",".join(ONE_OF_EACH_CLOUD)]
    assert main([*args, "--model", "resnet18-cifar", "--dryrun", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert len(plan["instances"]) == len(ONE_OF_EACH_CLOUD)
    for instance, one in zip(ONE_OF_EACH_CLOUD, plan["instances"], strict=True):
        assert one["skypilot"]["accepted"] is True, instance
        run = prepared(instance)
        # SkyPilot's optimizer prices the machine as the catalog does (GCP: VM + GPUs).
        assert one["skypilot"]["usd_per_hour"] == pytest.approx(run.usd_per_hour, abs=0.01)
        assert one["usd_per_hour"] == pytest.approx(run.usd_per_hour, abs=1e-9), instance
        assert one["estimated_usd"] == pytest.approx(
            one["usd_per_hour"] * one["estimated_minutes"] / 60, 1e-3
        )
    assert plan["estimated_usd"] == pytest.approx(
        sum(p["estimated_usd"] for p in plan["instances"]), abs=1e-3
    )


@pytest.mark.worker
def test_every_instance_cloud_run_offers_passes_skypilots_validation():
    from engine.cloud import dryrun
    from engine.cloud.resources import sky_resources
    from engine.core.errors import ConfigError
    from engine.pricing import catalog

    need_cloud_env()
    cat = catalog.load()
    offered, mappings = [], []
    for instance in cat.instances:
        try:
            sky_resources(instance)
        except ConfigError:
            continue
        run = task.prepare(cat, instance, prepared().config, False, 1, 0.0)
        offered.append(instance.label)
        mappings.append(task.task_mapping(run, workdir=os.getcwd()))
    verdicts = dryrun.check(cat, mappings)
    refused = {label: v.error for label, v in zip(offered, verdicts, strict=True) if not v.ok}
    assert len(offered) > 100 and refused == {}


@pytest.mark.worker
def test_the_rows_not_offered_are_those_skypilot_refuses():
    import dataclasses

    from engine.cloud import dryrun, resources
    from engine.pricing import catalog

    need_cloud_env()
    cat = catalog.load()
    mappings = []
    for cloud, kind in resources.SKYPILOT_REFUSES:
        row = next(i for i in cat.instances if (i.cloud, i.instance_type) == (cloud, kind))
        sky = dataclasses.replace(
            resources.sky_resources(dataclasses.replace(row, instance_type="x")),
            instance_type=kind,
        )
        mapping = task.task_mapping(prepared("aws:g5.xlarge"), workdir=os.getcwd())
        mapping["resources"] = sky.mapping(False)
        mappings.append(mapping)
    assert mappings and not any(v.ok for v in dryrun.check(cat, mappings))


@pytest.mark.worker
def test_skypilot_refuses_what_its_catalog_does_not_hold(capsys):
    from engine.cloud import dryrun
    from engine.pricing import catalog

    need_cloud_env()
    mapping = task.task_mapping(prepared("aws:g5.xlarge"), workdir=os.getcwd())
    mapping["resources"]["instance_type"] = "g5.nosuch"
    (verdict,) = dryrun.check(catalog.load(), [mapping])
    assert not verdict.ok and "g5.nosuch" in verdict.error


@pytest.mark.worker
def test_dryrun_prints_the_task_its_price_and_estimate(capsys):
    need_cloud_env()
    args = ["cloud", "run", "--instance", "aws:p3.2xlarge", "--model", "resnet18-cifar"]
    assert main([*args, "--dryrun"]) == 0
    out = capsys.readouterr()
    assert "instance_type: p3.2xlarge" in out.out and "# estimate:" in out.out
    assert "$3.06/h" in out.out and "SkyPilot's optimizer chooses" in out.out


@pytest.mark.worker
def test_a_gpu_picks_the_cheapest_machine_with_its_host(capsys):
    need_cloud_env()
    assert main(["cloud", "run", "--gpu", "V100", "--cloud", "gcp", "--dryrun", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["task"]["resources"]["instance_type"] == "n1-standard-8"
    assert plan["usd_per_hour"] == pytest.approx(2.86)  # VM 0.38 + V100 2.48


def test_without_the_cloud_environment_it_says_how_to_make_it(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("EPOCHCOST_CLOUD_PYTHON", str(tmp_path / "none"))
    assert main(["cloud", "run", "--instance", "aws:g5.xlarge", "--dryrun"]) == 2
    assert "epochcost env create --cloud" in capsys.readouterr().err


def test_a_launch_without_yes_off_a_terminal_is_refused(monkeypatch, capsys):
    from engine.cloud import dryrun

    monkeypatch.setattr(dryrun, "all_accepted", lambda cat, runs: [dryrun.Verdict(True, yaml="x")])
    assert main(["cloud", "run", "--instance", "aws:g5.xlarge"]) == 2
    assert "--yes" in capsys.readouterr().err


def test_a_refusal_before_provisioning_stores_nothing(monkeypatch, capsys):
    from engine.cli import cmd_cloud
    from engine.cloud import dryrun

    class Refused:
        downs: list[str] = []

        def launch(self, *args):
            raise SkyError("ResourcesUnavailableError", "no capacity in us-east-1", False)

        def down(self, cluster):
            self.downs.append(cluster)

        def down_command(self, cluster):
            return f"sky down {cluster}"

    monkeypatch.setattr(dryrun, "all_accepted", lambda cat, runs: [dryrun.Verdict(True, yaml="x")])
    monkeypatch.setattr(cmd_cloud, "connect", Refused)
    assert main(["cloud", "run", "--instance", "aws:g5.xlarge", "--yes"]) == 3
    err = capsys.readouterr().err
    assert "no capacity in us-east-1" in err and "sky check" in err
    assert "no instance came up" in err and "Traceback" not in err and len(Refused.downs) == 1
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
