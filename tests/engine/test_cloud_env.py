"""The cloud environment's making: everything compiled when it is made but Azure's SDK, which
the first import that needs it compiles (engine/envs/cloud_env.py)."""

from __future__ import annotations

import importlib.util
import os
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


def test_the_made_environment_has_all_but_azures_sdk_compiled(tmp_path: Path):
    python = need_cloud_env()
    # The environment `make test` made with cloud_env.create. A module imported since has a
    # .pyc whether or not the step ran (the cloud program runs with -I, which writes them), so
    # every module counts: all have theirs when the step ran (93% in an environment uv compiled,
    # which left out the seeded pip and setuptools), only those imported so far when it did not.
    site = Path(
        subprocess.run(
            [str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
    )
    left = re.compile(cloud_env.LEFT_TO_FIRST_IMPORT)
    sources = compiled = 0
    for folder, subfolders, files in os.walk(site):
        subfolders[:] = [d for d in subfolders if not left.search(f"{folder}/{d}/")]
        for name in files:
            if name.endswith(".py"):
                sources += 1
                compiled += Path(importlib.util.cache_from_source(f"{folder}/{name}")).is_file()
    assert sources > 5_000 and compiled / sources > 0.9, (compiled, sources)
    # The step itself, on a folder of its own: compiled, but Azure's SDK.
    lib = tmp_path / "lib" / "python3.11" / "site-packages"
    for name in ("sky/clouds/azure.py", "azure/core/x.py", "msgraph/y.py"):
        (lib / name).parent.mkdir(parents=True, exist_ok=True)
        (lib / name).write_text("X = 1\n", encoding="utf-8")
    subprocess.run(cloud_env.compile_step(str(python), tmp_path), check=True, timeout=120)
    compiled_here = {p.parent.parent.name for p in tmp_path.rglob("*.pyc")}
    assert compiled_here == {"clouds"}, compiled_here
