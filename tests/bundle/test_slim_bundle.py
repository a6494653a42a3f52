"""The slim bundle (`make bundle-slim` -> dist/epochcost-slim): the app and the command line
with no framework inside, under 450 MB. Run as a new user would under `env -i` (the system's
PATH, a fresh HOME, no venv): its `epochcost env create` makes a PyTorch environment with the
machine's python3, and `epochcost run` measures tiny-mlp in it. Skipped when no slim bundle is
built; `make bundle-slim-smoke` runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "dist" / "epochcost-slim"
CLI = FOLDER / "epochcost"
TARGET_BYTES = 450 * 2**20
CREATE_TIMEOUT_S = 1800

pytestmark = pytest.mark.skipif(
    not CLI.exists(), reason="no slim bundle in dist/epochcost-slim (make bundle-slim builds it)"
)


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _plain_env(home: Path) -> dict[str, str]:
    """What a new user's shell gives: the system's PATH, a fresh HOME, nothing of this venv."""
    return {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


def _cli(home: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["env", "-i", *(f"{k}={v}" for k, v in _plain_env(home).items()), str(CLI), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_the_slim_bundle_is_small_and_carries_no_framework():
    size = _size(FOLDER)
    print(f"slim bundle: {size / 2**20:.0f} MiB")
    assert size < TARGET_BYTES
    internal = FOLDER / "_internal"
    for framework in ("torch", "torchvision", "tensorflow", "keras", "nvidia"):
        assert not (internal / framework).exists(), framework
    assert (internal / "bin" / "uv").is_file()


@pytest.mark.skipif(shutil.which("python3") is None, reason="no python3 on this machine")
def test_it_makes_a_pytorch_environment_and_measures_in_it(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    # Without a framework, a run says how to get one, in one line.
    bare = _cli(home, "run", "--model", "tiny-mlp", "--threads", "1", "--no-store")
    assert bare.returncode != 0
    assert "epochcost env create --framework torch" in bare.stderr, bare.stderr[-2000:]
    assert "Traceback" not in bare.stderr
    # pip here takes the package index's builds from this machine's disk (its configuration);
    # uv, the default, would download them.
    made = _cli(
        home,
        "env",
        "create",
        "--framework",
        "torch",
        "--installer",
        "pip",
        "--json",
        timeout=CREATE_TIMEOUT_S,
    )
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-3000:]
    env = json.loads(made.stdout)
    print(f"made {env['name']}: {env['choice']['label']} ({env['check']})")
    assert env["python"].startswith(str(home))
    out = tmp_path / "r.json"
    run = _cli(
        home,
        "run",
        "--model",
        "tiny-mlp",
        "--threads",
        "1",
        "--warmup-steps",
        "2",
        "--min-steps",
        "5",
        "--max-seconds",
        "1",
        "--repeats",
        "2",
        "--out",
        str(out),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["status"] == "ok" and result["throughput_samples_per_s"] > 0
    listed = _cli(home, "env", "list", "--json")
    assert json.loads(listed.stdout)[0]["used"]


@pytest.mark.skipif(shutil.which("python3") is None, reason="no python3 on this machine")
def test_it_makes_the_cloud_environment_and_skypilot_accepts_a_dry_run(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    # Without it, a cloud run says how to make it, in one line.
    bare = _cli(home, "cloud", "run", "--instance", "aws:g5.xlarge", "--dryrun")
    assert bare.returncode == 2 and "epochcost env create --cloud" in bare.stderr, bare.stderr
    # The bundle's own uv makes SkyPilot's environment with the machine's python3.
    made = _cli(home, "env", "create", "--cloud", "--json", timeout=CREATE_TIMEOUT_S)
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-3000:]
    print(f"cloud environment: {json.loads(made.stdout)['check']}")
    # The cloud program (the bundle's engine source) with SkyPilot's own validation.
    plan = _cli(home, "cloud", "run", "--instance", "aws:g5.xlarge", "--dryrun", "--json")
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert json.loads(plan.stdout)["skypilot"]["accepted"] is True
