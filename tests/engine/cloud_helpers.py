"""Shared by the cloud tests: SkyPilot imported under a private HOME (it keeps its state and
catalogs in ~/.sky), a run built for a catalog instance, and its run command executed here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.cloud import task
from engine.measure.config import RunConfig
from engine.pricing import catalog
from engine.pricing.profiles import find_instance

# A run a CPU does in seconds.
TINY = RunConfig(
    model="tiny-mlp",
    batch_size=8,
    device="cpu",
    warmup_steps=2,
    min_steps=3,
    max_steps=5,
    max_seconds=2.0,
    repeats=1,
    threads=1,
)


# The cloud environment `make test` makes (in the user's cache folder, shared by checkouts),
# where none is named: the Makefile writes its Python's path into .venv.
_MADE = Path(__file__).resolve().parents[2] / ".venv" / ".epochcost-cloud-python"
if _MADE.is_file():
    os.environ.setdefault("EPOCHCOST_CLOUD_PYTHON", _MADE.read_text(encoding="utf-8").strip())


def need_cloud_env() -> Path:
    """The cloud environment's Python, or a skip that says why (printed with -ra)."""
    named = os.environ.get("EPOCHCOST_CLOUD_PYTHON", "")
    python = Path(named)
    if not named or not python.is_file():
        pytest.skip(
            f"no cloud environment{f' at {python}' if named else ''}: `make test` makes it "
            "(epochcost env create --cloud), or set EPOCHCOST_CLOUD_PYTHON"
        )
    return python


@pytest.fixture(scope="session", autouse=True)
def sky_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SkyPilot's ~/.sky in a folder of the tests (set before its first import)."""
    home = tmp_path_factory.mktemp("sky-home")
    os.environ["HOME"] = str(home)
    return home


def prepared(instance: str = "aws:g5.xlarge", nodes: int = 1, config: RunConfig = TINY):
    cat = catalog.load()
    return task.prepare(cat, find_instance(cat, instance), config, False, nodes, time.time())


def run_here(mapping: dict, log: Path, prefix: str = "(task, pid=4242) ") -> int:
    """The task's run command on this machine (CPU), its output written as SkyPilot's job log
    writes it: each line behind its prefix."""
    env = {
        **os.environ,
        **mapping["envs"],
        "EPOCHCOST_VENV": str(Path(sys.executable).parent.parent),
    }
    proc = subprocess.run(
        task.local_command(mapping),
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    lines = (proc.stdout + proc.stderr).splitlines()
    log.write_text("".join(f"{prefix}{line}\n" for line in lines), encoding="utf-8")
    return proc.returncode


def config_of(mapping: dict) -> dict:
    return json.loads(mapping["envs"]["EPOCHCOST_CONFIG"])
