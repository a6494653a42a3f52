"""What a cloud run uploads: the engine alone, staged in a folder of its own.

SkyPilot uploads the task's workdir whole (its zipper packs every file a .skyignore does not
name). The workdir is therefore never the checkout (with .git, tests, the GUI and whatever the
user left there: a .env, an id_rsa) nor site-packages (gigabytes, and a laptop's torch first
on the instance's path), but a folder made here with only what the instance needs:

- engine/: the package's own files (*.py and py.typed) from wherever this epochcost runs
  (a checkout, an installed wheel, either desktop bundle's engine source);
- assets/*.csv: the GPU catalog the worker reads for its device's peak (MFU);
- pyproject.toml written here, so that setup installs it as a project (`epochcost-worker`
  and the engine's own dependencies, no extras);
- .skyignore: caches, in case anything else lands there.

The same from every install. The folder is named by its content's hash and made once.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import engine
from engine.core import paths

PACKAGE_FILES = ("*.py", "py.typed")
LEFT_OUT = ("cloud_program",)  # the parent's SkyPilot side: never run on the instance
DEPENDENCIES = ("numpy", "pandas", "psutil", "platformdirs", "nvidia-ml-py")
SKYIGNORE = "__pycache__/\n*.pyc\n*.egg-info/\n.git/\n"

PYPROJECT = """\
# Written by epochcost (engine/cloud/upload.py): the engine alone, for a cloud instance.
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "epochcost"
version = "{version}"
requires-python = ">=3.11"
dependencies = [{dependencies}]

[project.scripts]
epochcost-worker = "engine.worker.main:entry"

[tool.setuptools.packages.find]
include = ["engine*"]

[tool.setuptools.package-data]
engine = ["py.typed"]

[tool.setuptools.data-files]
"share/epochcost/assets" = ["assets/*.csv"]
"""


def package_files() -> dict[str, Path]:
    """The engine package's files, by their path in the upload (engine/...)."""
    root = paths.engine_source_root() / "engine"
    found: dict[str, Path] = {}
    for pattern in PACKAGE_FILES:
        for path in root.rglob(pattern):
            relative = path.relative_to(root)
            if "__pycache__" in relative.parts or relative.parts[0] in LEFT_OUT:
                continue
            if path.is_file():
                found[str(Path("engine") / relative)] = path
    return found


def asset_files() -> dict[str, Path]:
    return {f"assets/{p.name}": p for p in sorted(paths.assets().glob("*.csv")) if p.is_file()}


def stage() -> Path:
    """The upload folder (made once per content): its path, to give SkyPilot as the workdir."""
    files = {**package_files(), **asset_files()}
    pyproject = PYPROJECT.format(
        version=engine.__version__,
        dependencies=", ".join(f'"{d}"' for d in DEPENDENCIES),
    )
    digest = hashlib.sha256(pyproject.encode())
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + files[name].read_bytes())
    target = paths.home() / "cloud" / "upload" / digest.hexdigest()[:16]
    if (target / ".skyignore").is_file():
        return target
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    for name, source in files.items():
        (partial / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, partial / name)
    (partial / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (partial / ".skyignore").write_text(SKYIGNORE, encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return target
