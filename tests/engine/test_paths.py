"""Where the shipped data is: a worker under another interpreter, with the engine's source in
another folder (the bundle's engine-src), reads the launching app's catalogs; and an installed
package carries assets/ (pyproject's data-files)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from engine.core import paths
from engine.process.launcher import WorkerSpec

ROOT = Path(__file__).resolve().parents[2]

READ_CATALOG = (
    "import json; from engine.core import paths; from engine.pricing import catalog; "
    "print(json.dumps([str(paths.assets()), str(paths.engine_source_root()), "
    "len(catalog.load().gpus)]))"
)


def test_a_worker_with_the_engine_elsewhere_reads_the_launching_apps_assets(tmp_path):
    source = tmp_path / "engine-src"
    shutil.copytree(
        ROOT / "engine", source / "engine", ignore=shutil.ignore_patterns("__pycache__")
    )
    env = {**WorkerSpec().environment(), "PYTHONPATH": str(source)}
    done = subprocess.run(
        [sys.executable, "-c", READ_CATALOG],
        cwd=tmp_path,  # not the checkout, whose engine `-c` would find first
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assets, engine_root, gpus = json.loads(done.stdout)
    assert engine_root == str(source)  # the copy ran, with no assets/ beside it
    assert assets == str(paths.assets()) == str(ROOT / "assets")
    assert gpus > 0


def test_the_installed_package_carries_the_assets(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for name in ("engine", "gui", "assets"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    build = "from setuptools import build_meta; print(build_meta.build_wheel(%r))"
    done = subprocess.run(
        [sys.executable, "-c", build % str(tmp_path)],
        cwd=source,
        capture_output=True,
        text=True,
        check=True,
    )
    wheel = tmp_path / done.stdout.strip().splitlines()[-1]
    names = set(zipfile.ZipFile(wheel).namelist())
    data = f"epochcost-0.1.0.data/data/{paths.INSTALLED_ASSETS.as_posix()}"
    shipped = {
        p.relative_to(ROOT / "assets").as_posix()
        for p in (ROOT / "assets").rglob("*")
        if p.is_file() and p.suffix in (".csv", ".md", ".py") and not p.name.startswith("derive")
    }
    assert {f"{data}/{name}" for name in shipped} <= names
