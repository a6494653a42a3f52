"""Scaling without processes (issue 19): the config's data-parallel checks, process counts,
efficiency against perfect scaling, what a dead run's log says, and a measured efficiency found
in the store for compare (here from results written as a GPU machine records them)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.core.errors import ConfigError
from engine.core.events import RANK_FAILED
from engine.measure.config import RunConfig
from engine.process.distributed import death_message, torchrun_command
from engine.results.scaling import Point, measured_scaling_efficiency, with_efficiency
from engine.results.store import Store
from engine.sweep.scaling import parse_counts
from tests.engine.price_results import result

H100 = "NVIDIA H100 80GB HBM3"


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"framework": "tensorflow", "model": "tiny-mlp"}, "nproc", "not supported with --nproc"),
        ({"device": "cuda:1"}, "device", "each process takes a device of its own"),
        ({"nnodes": 2}, "rdzv_endpoint", "give HOST:PORT"),
        ({"nnodes": 2, "rdzv_endpoint": "no port"}, "rdzv_endpoint", "give HOST:PORT"),
        ({"nnodes": 2, "node_rank": 2, "rdzv_endpoint": "h:29500"}, "node_rank", "out of range"),
        ({"nproc": 0}, "nproc", "out of range"),
    ],
)
def test_a_data_parallel_config_says_what_to_fix(changes, field, words):
    with pytest.raises(ConfigError) as info:
        RunConfig(model="tiny-mlp", nproc=2).with_changes(**changes)
    assert info.value.field == field and words in info.value.message


def test_torchrun_is_started_standalone_on_one_node_and_with_a_rendezvous_on_several():
    one = torchrun_command("py", RunConfig(model="tiny-mlp", nproc=4).validated())
    # torch.distributed.run, in a scratch folder of the run's own (removed when it ends)
    assert one[:3] == ["py", "-m", "engine.process.scratch"] and "--standalone" in one
    assert Path(one[3]).is_dir() and Path(one[3]).name.startswith("epochcost-dp-")
    shutil.rmtree(one[3])  # never started: nothing removes it before this process ends
    assert one[one.index("--nproc_per_node") + 1] == "4" and one[-2:] == ["-m", "engine.worker"]
    two = RunConfig(
        model="tiny-mlp", nproc=2, nnodes=2, node_rank=1, rdzv_endpoint="node0:29500"
    ).validated()
    cmd = torchrun_command("py", two)
    shutil.rmtree(cmd[3])
    assert "--standalone" not in cmd
    assert cmd[cmd.index("--rdzv_endpoint") + 1] == "node0:29500"
    assert cmd[cmd.index("--node_rank") + 1] == "1"
    assert "join_timeout=300" in cmd


def test_process_counts_are_parsed_and_bad_ones_refused():
    assert parse_counts("4, 1,2,2") == (1, 2, 4)
    for bad in ("1", "1,0", "1,two", ""):
        with pytest.raises(ConfigError):
            parse_counts(bad)


def test_efficiency_is_against_perfect_scaling_from_the_smallest_count():
    points = with_efficiency([Point(4, 300.0), Point(1, 100.0), Point(2, 180.0), Point(8, None)])
    assert [p.nproc for p in points] == [1, 2, 4, 8]
    assert [p.efficiency for p in points] == [1.0, 0.9, 0.75, None]
    # No one-process point: the smallest that measured is the base.
    assert with_efficiency([Point(2, 200.0), Point(4, 300.0)])[1].efficiency == 0.75


def test_a_dead_run_names_the_rank_and_how_it_ended():
    config = RunConfig(model="tiny-mlp", nproc=2).validated()
    torchrun_log = [
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2026-11-25_22:30:00",
        "  rank      : 1 (local_rank: 1)",
        "  exitcode  : -9 (pid: 1234)",
        "  traceback : Signal 9 (SIGKILL) received by PID 1234",
    ]
    message = death_message(1, "measuring", torchrun_log, config)
    assert message == (
        "a process of the 2-process run ended, during measuring: rank 1 ended with signal SIGKILL"
    )
    own = [RANK_FAILED + '{"rank": 1, "kind": "oom", "message": "out of memory at batch 64"}']
    assert "rank 1: out of memory at batch 64" in death_message(1, "", own, config)
    assert "torchrun exit code 1" in death_message(1, "", ["something else"], config)


def _distributed(run_id: str, samples_per_s: float, world: int) -> dict:
    data = result(run_id=run_id, device_name=H100, samples_per_s=samples_per_s)
    data["config"].update(nproc=world, device="cuda")  # each process on cuda:RANK
    data["distributed"] = {
        "world_size": world,
        "nnodes": 1,
        "nproc_per_node": world,
        "backend": "nccl",
        "per_process_batch": 64,
        "global_batch": 64 * world,
        "per_rank": [{"rank": r, "samples_per_s": samples_per_s / world} for r in range(world)],
    }
    return data


def test_a_measured_efficiency_comes_from_a_distributed_result_and_a_single_one():
    store = Store()
    store.add(result(run_id="20260101T000000-single01", device_name=H100, samples_per_s=1000.0))
    store.add(_distributed("20260101T000000-wide0001", 3400.0, 4))
    found = measured_scaling_efficiency(store, "resnet50-cifar", H100, 4)
    assert found is not None
    assert found[0] == pytest.approx(0.85)
    assert "20260101T000000-wide0001" in found[1] and "20260101T000000-single01" in found[1]
    # The catalog's name for the GPU finds it too; another count, model or GPU does not.
    assert measured_scaling_efficiency(store, "resnet50-cifar", "H100 SXM5 80GB", 4) is not None
    assert measured_scaling_efficiency(store, "resnet50-cifar", H100, 8) is None
    assert measured_scaling_efficiency(store, "tiny-mlp", H100, 4) is None
    assert measured_scaling_efficiency(store, "resnet50-cifar", "NVIDIA A100", 4) is None
