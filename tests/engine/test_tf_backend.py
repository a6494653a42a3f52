"""The TensorFlow backend, for real: Keras 3 on TensorFlow's CPU build, in worker subprocesses.

This pytest process never imports tensorflow: every TensorFlow run happens in a worker.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

from engine.cli import main
from engine.core.errors import RunFailed
from engine.core.events import Finished, Phase, Sample, Started, Step, from_json
from engine.process.launcher import _engine_root
from engine.results.schema import validate
from engine.worker.frameworks.tensorflow import runtime as tf_backend
from engine.workloads import registry
from tests.engine.helpers import TINY, besides_noise, cli, run_events

TF_TINY = TINY.with_changes(framework="tensorflow")
# TensorFlow's own log lines: absl's "I0000 00:00:..." prefix, its pre-init notice, oneDNN's.
TF_LOG = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d|absl::InitializeLog|oneDNN custom operations")


def _skeleton(events):
    """What a consumer sees, without counts that depend on timing: the phases in order,
    how each run begins and ends, and how many warm-up steps there were."""
    return {
        "first": type(events[0]).__name__,
        "last": type(events[-1]).__name__,
        "phases": [e.phase for e in events if isinstance(e, Phase)],
        "warmup_steps": sum(e.steps for e in events if isinstance(e, Step) and not e.measured),
        "has_samples": any(isinstance(e, Sample) for e in events),
        "one_run_id": len({e.run_id for e in events}) == 1,
    }


def test_a_tensorflow_run_has_the_event_sequence_and_result_keys_of_a_torch_run():
    torch_events = run_events(TINY)
    tf_events = run_events(TF_TINY)
    assert isinstance(tf_events[0], Started) and isinstance(tf_events[-1], Finished)
    assert _skeleton(tf_events) == _skeleton(torch_events)

    torch_result, result = torch_events[-1].result, tf_events[-1].result
    assert validate(result) is result
    assert result.keys() == torch_result.keys()
    assert result["status"] == "ok"
    assert result["environment"]["framework"] == "tensorflow"
    assert result["environment"]["threads"] == 1
    assert result["workload"]["parameters"] == torch_result["workload"]["parameters"]
    measured = sum(e.steps for e in tf_events if isinstance(e, Step) and e.measured)
    assert result["steps_measured"] == measured >= TINY.min_steps
    # The trace of the first call is timed apart, never inside the window.
    assert (
        result["compile_seconds"] > 0 and besides_noise(result["warnings"]) == []
    )  # a shared machine may be busy
    # The steps' times tile the windows' wall time, stalls included: the rate they give over
    # the whole run lies between the slowest and the fastest window's (the figure is the
    # windows' median, which a busy machine put twice apart from it: 0.4996 on CI, 2.11 under
    # the full suite's three processes).
    per_step = 16 / result["step_time_s"]["mean"]
    windows = result["throughput_repeats"]
    assert min(windows) * 0.95 < per_step < max(windows) * 1.05, (per_step, windows)
    assert 0 < result["memory_fill"] < 1 and result["memory_source"] == "rss"
    assert result["usd_per_epoch"] == result["epoch_seconds"] / 3600 * 1.0


def test_xla_and_bf16_run_and_report_their_compile_time():
    events = run_events(TF_TINY.with_changes(compile=True, precision="bf16"))
    result = events[-1].result
    assert result["status"] == "ok", events[-1]
    assert result["environment"]["xla"] is True
    assert result["environment"]["precision_policy"] == "mixed_bfloat16"
    assert result["compile_seconds"] > 0
    assert besides_noise(result["warnings"]) == []  # no re-trace while timing


def test_a_run_under_a_memory_cap_finishes_and_says_how_it_ran():
    events = run_events(TF_TINY.with_changes(memory_limit_bytes=256 * 2**20))
    result = events[-1].result
    assert result["status"] == "ok", events[-1]
    assert result["environment"]["tensor_memory_cap_bytes"] == 256 * 2**20
    assert result["environment"]["onednn_opts"] == "0"
    assert any("memory cap" in w for w in result["warnings"])


def _worker_in_process(config) -> tuple[list, str, int]:
    """engine.worker's main in a fresh interpreter that afterwards names the frameworks it
    holds on stderr, so we see what the worker itself imported."""
    code = (
        "import sys\n"
        "from engine.worker.main import main\n"
        "main(['run', '--config-json', sys.argv[1], '--run-id', 'r1'])\n"
        "held = [m for m in ('torch', 'torchvision', 'tensorflow', 'keras') if m in sys.modules]\n"
        "print('FRAMEWORKS ' + ','.join(held), file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": _engine_root()}
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps(config.to_dict())],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    events = [from_json(line) for line in proc.stdout.splitlines() if line.strip()]
    return events, proc.stderr, proc.returncode


def test_resnet18_cifar_runs_in_a_tensorflow_worker_that_never_imports_torch():
    config = TF_TINY.with_changes(
        model="resnet18-cifar",
        batch_size=8,
        warmup_steps=1,
        min_steps=3,
        max_steps=3,
        repeats=1,
        threads=2,
    )
    events, stderr, code = _worker_in_process(config)
    assert code == 0, stderr
    assert isinstance(events[-1], Finished), events[-1]
    result = events[-1].result
    assert result["workload"]["parameters"] == 11_173_962  # torchvision's ResNet-18, CIFAR stem
    assert result["steps_measured"] == 3
    assert "FRAMEWORKS tensorflow,keras" in stderr.splitlines()


def test_out_of_memory_is_data_and_its_message_reaches_the_terminal_without_tf_noise():
    # The batch (12 MiB) fits a 256 MiB cap; the first convolution's output (256 MiB) does not.
    proc = cli(
        "run",
        "--framework",
        "tensorflow",
        "--model",
        "resnet18-cifar",
        "--batch-size",
        "1024",
        "--memory-limit-mb",
        "256",
        "--threads",
        "2",
        "--json",
    )
    assert proc.returncode == 3, proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == "oom" and result["error"]["batch_size"] == 1024
    assert (
        "epochcost: run oom: out of memory at batch size 1024: "
        "OOM when allocating tensor with shape[1024,32,32,64] and type float on CPU:0"
    ) in proc.stderr
    assert not [line for line in proc.stderr.splitlines() if TF_LOG.search(line)]
    listed = json.loads(cli("results", "list", "--json").stdout)
    assert listed[0]["status"] == "oom"


def test_verbose_lets_tensorflow_log_through():
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_")}
    args = ["--model", "tiny-mlp", "--batch-size", "8", "--max-steps", "10", "--threads", "1"]
    proc = cli("run", "--framework", "tensorflow", *args, "--no-store", "--verbose", env=env)
    assert proc.returncode == 0, proc.stderr
    assert [line for line in proc.stderr.splitlines() if TF_LOG.search(line)]


def test_models_lists_tensorflow_for_every_workload_it_builds(capsys):
    assert main(["models", "--json"]) == 0
    models = json.loads(capsys.readouterr().out)
    assert all(m["frameworks"] == ["torch", "tensorflow"] for m in models)


def test_a_workload_tensorflow_cannot_run_is_refused_with_exit_2(monkeypatch, capsys):
    torch_only = registry.Workload(
        name="torch-only",
        task="classification",
        description="a workload with no Keras builder",
        input_shape=(4,),
        num_classes=2,
        epoch_samples=10,
        epoch_unit="rows",
        frameworks=("torch",),
        data_set="none",
    )
    monkeypatch.setitem(registry._BY_NAME, "torch-only", torch_only)
    assert main(["run", "--framework", "tensorflow", "--model", "torch-only"]) == 2
    err = capsys.readouterr().err
    assert "--framework: torch-only runs on torch, not tensorflow" in err
    assert "Traceback" not in err


# ---- device choice, with CUDA faked: there is no GPU (nor a GPU build of TensorFlow) here ----


class _FakeConfig:
    """tf.config's device calls over `gpus` fake GPUs; records what the backend sets."""

    def __init__(self, gpus: int) -> None:
        self.gpus = [f"GPU{i}" for i in range(gpus)]
        self.visible: list[str] | None = None
        self.growth: list[str] = []
        self.experimental = SimpleNamespace(set_memory_growth=self._growth)
        self.threading = SimpleNamespace()

    def list_physical_devices(self, kind: str) -> list[str]:
        return list(self.gpus) if kind == "GPU" else ["CPU0"]

    def set_visible_devices(self, devices: list[str], kind: str) -> None:
        self.visible = devices

    def _growth(self, device: str, on: bool) -> None:
        if on:
            self.growth.append(device)


@pytest.mark.parametrize(
    ("gpus", "requested", "index"),
    [(0, "auto", None), (2, "auto", 0), (2, "cpu", None), (2, "cuda", 0), (2, "cuda:1", 1)],
)
def test_device_choice(gpus, requested, index):
    tf = SimpleNamespace(config=_FakeConfig(gpus))
    assert tf_backend.resolve_device(tf, requested) == index


@pytest.mark.parametrize(
    ("gpus", "requested", "words"),
    [
        (0, "cuda", "TensorFlow sees no CUDA GPU here"),
        (2, "cuda:2", "cuda:2 does not exist (2 GPUs)"),
        (2, "mps", "TensorFlow runs on cpu or cuda"),
    ],
)
def test_a_device_tensorflow_cannot_use_is_a_config_failure(gpus, requested, words):
    tf = SimpleNamespace(config=_FakeConfig(gpus))
    with pytest.raises(RunFailed) as info:
        tf_backend.resolve_device(tf, requested)
    assert info.value.kind == "config" and words in info.value.message


def test_only_the_chosen_gpu_is_visible_and_grows_its_memory():
    tf = SimpleNamespace(config=_FakeConfig(3))
    tf_backend._configure_devices(tf, 1, threads=None)
    assert tf.config.visible == ["GPU1"] and tf.config.growth == ["GPU1"]
    tf_backend._configure_devices(tf, None, threads=None)
    assert tf.config.visible == []  # on the CPU, TensorFlow must not map GPU memory at all
