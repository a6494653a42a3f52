"""The cloud environment's making: everything compiled when it is made but Azure's SDK, which
the first import that needs it compiles (engine/envs/cloud_env.py)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from engine.envs import cloud_env
from tests.engine.cloud_helpers import need_cloud_env


def test_only_azures_sdk_is_left_to_its_first_import():
    left = re.compile(cloud_env.LEFT_TO_FIRST_IMPORT)
    site = "/d/envs/cloud/lib/python3.11/site-packages"
    for path in (f"{site}/azure/mgmt/compute/models.py", f"{site}/msgraph/graph.py"):
        assert left.search(path), path
    for path in (
        f"{site}/sky/adaptors/azure.py",  # SkyPilot's own Azure module is compiled
        f"{site}/sky/clouds/azure.py",
        f"{site}/azure_core_shim/x.py",
        f"{site}/msgraph_core/x.py",
        f"{site}/google/cloud/storage/blob.py",
    ):
        assert not left.search(path), path


def test_the_made_environment_has_skypilot_compiled(tmp_path: Path):
    python = need_cloud_env()
    # The environment `make test` made with cloud_env.create: SkyPilot's modules have their
    # .pyc (a Python that writes none still starts the cloud program quickly).
    found = subprocess.run(
        [
            str(python),
            "-I",
            "-c",
            "import importlib.util as u, sky; "
            "print(u.cache_from_source(sky.__file__)); print(sky.__file__)",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    ).stdout.split()
    assert Path(found[0]).is_file(), found
    # The step itself, on a folder of its own: compiled, but Azure's SDK.
    lib = tmp_path / "lib" / "python3.11" / "site-packages"
    for name in ("sky/clouds/azure.py", "azure/core/x.py", "msgraph/y.py"):
        (lib / name).parent.mkdir(parents=True, exist_ok=True)
        (lib / name).write_text("X = 1\n", encoding="utf-8")
    subprocess.run(cloud_env.compile_step(str(python), tmp_path), check=True, timeout=120)
    compiled = {p.parent.parent.name for p in tmp_path.rglob("*.pyc")}
    assert compiled == {"clouds"}, compiled
