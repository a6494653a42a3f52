"""The worker under the environment `make gpu-env` makes (PyTorch 2.7.1, CUDA 12.6 build), on
the CPU: real runs of tiny-mlp and resnet18-cifar through the CLI with that environment chosen.
Skipped until `make gpu-env` has built it (about 2.5 GB from PyPI)."""

from __future__ import annotations

import json

import pytest

from engine.process import environments
from engine.process.gpu_env import DEFAULT_DIR, python_in
from tests.engine.helpers import cli

PYTHON = python_in(DEFAULT_DIR)
pytestmark = pytest.mark.skipif(
    not PYTHON.exists(), reason=f"{DEFAULT_DIR} is not built (make gpu-env builds it)"
)


@pytest.mark.parametrize(("model", "batch"), [("tiny-mlp", 16), ("resnet18-cifar", 8)])
def test_the_worker_runs_under_torch_2_7_on_the_cpu(model, batch):
    environments.save({"torch": str(PYTHON)})
    proc = cli(
        "run",
        *("--model", model, "--batch-size", str(batch), "--device", "cpu"),
        *("--warmup-steps", "1", "--min-steps", "3", "--max-steps", "3", "--repeats", "1"),
        *("--json", "--no-store"),
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == "ok" and result["throughput_samples_per_s"] > 0
    assert result["environment"]["framework_version"].startswith("2.7.1")


def test_doctor_says_the_chosen_environment_runs_on_a_gtx_1080_ti():
    environments.save({"torch": str(PYTHON)})
    found = json.loads(cli("doctor", "--for-gpu", "GeForce GTX 1080 Ti", "--json").stdout)
    own, chosen = [f for f in found["frameworks"] if f["framework"] == "torch"]
    assert chosen["python"] == str(PYTHON) and chosen["used_for_runs"] and chosen["ok"]
    assert chosen["version"].startswith("2.7.1") and chosen["cuda"] == "12.6"
    assert own["own"] and not own["used_for_runs"]
    if not own["ok"]:
        assert own["remedy"] == f"none needed: runs use {PYTHON}, which can"
